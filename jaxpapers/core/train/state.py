"""The functional train state and its sharded initialisation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import flax
import flax.linen as nn
import jax
import jax.numpy as jnp
import optax
from jax.sharding import Mesh

from jaxpapers.core import sharding as sharding_lib


@flax.struct.dataclass
class TrainState:
    """Everything that changes during training, as one pytree (checkpointed whole).

    ``rng`` holds raw uint32 key data (``jax.random.key_data``) so that checkpoints stay plain
    arrays; the step key is ``fold_in(wrap_key_data(rng), step)``. ``extras`` holds anything else a
    paper needs to carry (EMA params, running statistics), default empty.
    """

    step: Any  # int32 scalar (a ShapeDtypeStruct when abstract)
    params: Any
    opt_state: Any
    rng: Any  # uint32 key data
    extras: Any = flax.struct.field(default_factory=dict)

    @property
    def key(self) -> jax.Array:
        return jax.random.wrap_key_data(self.rng)

    @classmethod
    def create(
        cls, params: Any, tx: optax.GradientTransformation, key: jax.Array, extras: Any = None
    ) -> TrainState:
        """Step 0 with ``tx``'s fresh optimizer state; ``key`` (a typed PRNG key) seeds the step keys."""
        return cls(
            step=jnp.zeros((), jnp.int32),
            params=params,
            opt_state=tx.init(params),
            rng=jax.random.key_data(key),
            extras={} if extras is None else extras,
        )


def init_state(
    init_params: Callable[[jax.Array], Any] | Any,
    tx: optax.GradientTransformation,
    key: jax.Array,
    *,
    mesh: Mesh | None = None,
    rules: sharding_lib.Rules | None = None,
    extras: Callable[[Any], Any] | None = None,
) -> tuple[TrainState, Any]:
    """Creates a TrainState whose params are born sharded.

    ``init_params(key)`` returns the params pytree, annotated with ``nn.with_logical_partitioning``
    where the model names axes. Shapes come from ``jax.eval_shape`` (nothing is allocated), logical
    specs from the annotations, physical shardings from ``rules`` on ``mesh``; the jitted init then
    writes each array directly with its sharding. ``init_params`` may instead be the params themselves
    (several runs from one initialisation): they enter the jitted init as its argument, never as
    constants baked into the program. Returns ``(state, shardings)``; ``shardings`` is None without a
    mesh (everything lives on the default device).
    """
    param_key, state_key = jax.random.split(key)
    given = None if callable(init_params) else init_params

    def make(pkey: jax.Array, given: Any) -> TrainState:
        params = init_params(pkey) if given is None else given
        return TrainState.create(params, tx, state_key, extras(params) if extras is not None else None)

    abstract = jax.eval_shape(make, param_key, given)
    shardings = sharding_lib.tree_shardings(abstract, mesh, rules)
    with sharding_lib.mesh_context(mesh, rules):
        state = jax.jit(lambda k, g: nn.unbox(make(k, g)), out_shardings=shardings)(param_key, given)
    return state, shardings


def abstract_like(state: TrainState, shardings: Any = None) -> Any:
    """ShapeDtypeStructs (with shardings) of ``state``: the restore target for checkpoints."""
    if shardings is None:
        return jax.tree.map(
            lambda x: jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=getattr(x, "sharding", None)), state
        )
    return jax.tree.map(lambda x, s: jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=s), state, shardings)
