"""Head-then-Tail training (CLTR) and its baselines through one generic weighted loss (spec, "CLTR algorithm").

Every method is a :class:`Spec` row of arrays, so ERM, logit adjustment, class-balanced, Head-only, plain
fine-tuning, replay, LwF, EWC and the L2 anchor share one compiled Adam/AdamW stage program, vmapped over
methods and seeds::

    loss(theta) = sum_i w_i CE(f(x_i) + offset, y_i)                        (sample weights; LA offset)
                + alpha sum_i w_i T^2 KL(softmax(q_i/T) || softmax(f(x_i)/T))   (LwF distillation, old logits q)
                + (lam/2) sum_j F_j (theta_j - a_j)^2                        (EWC: F = true Fisher; l2_anchor: F = 1)
                + (mu/2) ||theta||^2                                         (Theorem A's in-loss L2)

The model is an MLP ``d-hidden-C`` (ReLU) with parameters flattened into one vector. The true Fisher is the
exact expectation over the model's predictive distribution, ``F = mean_i sum_y p(y|x_i) (grad log p(y|x_i))^2``
(spec, Pitfalls: the empirical Fisher is ~0 at a converged model).
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jaxtyping import Array, ArrayLike, Float, Int

from jaxpapers.core.errors import ConfigError


def mlp_shapes(d: int, hidden: int, c: int) -> list[tuple[int, ...]]:
    """Parameter shapes of the MLP ``d-hidden-c``: ``W1, b1, W2, b2``."""
    return [(d, hidden), (hidden,), (hidden, c), (c,)]


def mlp_init(key: jax.Array, d: int, hidden: int, c: int) -> Float[Array, " P"]:
    """He-uniform-style init (LeCun normal weights, zero biases), flattened."""
    k1, k2 = jax.random.split(key)
    w1 = jax.random.normal(k1, (d, hidden)) / jnp.sqrt(d)
    w2 = jax.random.normal(k2, (hidden, c)) / jnp.sqrt(hidden)
    return jnp.concatenate([w1.ravel(), jnp.zeros(hidden), w2.ravel(), jnp.zeros(c)])


def mlp_apply(theta: Float[Array, " P"], x: Float[Array, "N D"], hidden: int, c: int) -> Float[Array, "N C"]:
    """Logits of the flattened MLP."""
    d = x.shape[1]
    sizes = [int(np.prod(s)) for s in mlp_shapes(d, hidden, c)]
    w1, b1, w2, b2 = jnp.split(theta, np.cumsum(sizes)[:-1])
    h = jax.nn.relu(x @ w1.reshape(d, hidden) + b1)
    return h @ w2.reshape(hidden, c) + b2


@dataclasses.dataclass
class Spec:
    """One method's loss terms (arrays; stacked along a leading axis for a batch of runs)."""

    w: np.ndarray  # [N] sample weights (sum 1)
    offset: np.ndarray  # [C] logit offset (LA: tau log prior)
    alpha: np.ndarray  # [] distillation weight
    q: np.ndarray  # [N, C] teacher logits
    anchor: np.ndarray  # [P]
    fisher: np.ndarray  # [P] per-parameter anchor weights
    lam: np.ndarray  # []

    def tree(self) -> dict:
        return {k: jnp.asarray(v) for k, v in dataclasses.asdict(self).items()}


def make_spec(n: int, c: int, p: int, w, **kw) -> Spec:
    """A Spec with the given weights and every other term off unless given."""
    base = dict(
        offset=np.zeros(c),
        alpha=np.zeros(()),
        q=np.zeros((n, c)),
        anchor=np.zeros(p),
        fisher=np.zeros(p),
        lam=np.zeros(()),
    )
    base.update(kw)
    return Spec(w=np.asarray(w, np.float64), **{k: np.asarray(v, np.float64) for k, v in base.items()})


def stack(specs: list[Spec]) -> dict:
    """Stacks specs into one batched tree ``{field: [B, ...]}``."""
    return {
        f.name: jnp.stack([jnp.asarray(getattr(s, f.name), jnp.float32) for s in specs])
        for f in dataclasses.fields(Spec)
    }


def make_loss_fn(hidden: int, c: int, mu: float, temperature: float):
    """The generic loss of the module docstring, ``loss(theta, spec, x, y)``."""

    def loss(theta, spec, x, y):
        logits = mlp_apply(theta, x, hidden, c)
        z = logits + spec["offset"]
        ce = jax.nn.logsumexp(z, axis=1) - jnp.take_along_axis(z, y[:, None], 1)[:, 0]
        t = temperature
        pq = jax.nn.softmax(spec["q"] / t, axis=1)
        kl = jnp.sum(pq * (jax.nn.log_softmax(spec["q"] / t, axis=1) - jax.nn.log_softmax(logits / t, axis=1)), 1)
        anchor = 0.5 * spec["lam"] * jnp.sum(spec["fisher"] * (theta - spec["anchor"]) ** 2)
        return jnp.sum(spec["w"] * (ce + spec["alpha"] * t * t * kl)) + anchor + 0.5 * mu * jnp.sum(theta**2)

    return loss


def gather_selected(spec: dict, x: Float[ArrayLike, "N D"], y: Int[ArrayLike, " N"], size: int | None = None):
    """Restricts every row of a stacked spec to its selected samples (``w > 0``), padded to ``size`` (default:
    the largest selection) with weight-0 copies of sample 0: returns ``(spec, x [B, M, D], y [B, M])`` with the
    per-sample fields ``w`` and ``q`` gathered likewise. The loss, its gradient and a training stage are those of
    the masked full set (a weight-0 sample contributes nothing), at ``M/N`` of the cost."""
    w = np.asarray(spec["w"])
    sel = [np.flatnonzero(wi > 0) for wi in w]
    m = max(len(s) for s in sel) if size is None else int(size)
    if any(len(s) > m for s in sel):
        raise ConfigError(f"size={m} is smaller than the largest selection ({max(len(s) for s in sel)} samples)")
    idx = np.zeros((len(w), m), np.int64)
    valid = np.zeros((len(w), m), bool)
    for b, s in enumerate(sel):
        idx[b, : len(s)] = s
        valid[b, : len(s)] = True
    out = dict(spec)
    out["w"] = jnp.asarray(np.where(valid, np.take_along_axis(w, idx, 1), 0.0), jnp.float32)
    out["q"] = jnp.asarray(np.take_along_axis(np.asarray(spec["q"]), idx[..., None], 1), jnp.float32)
    return out, jnp.asarray(np.asarray(x)[idx]), jnp.asarray(np.asarray(y)[idx])


@functools.partial(jax.jit, static_argnames=("hidden", "c", "steps", "mu", "temperature", "lr", "weight_decay"))
def train_stage(
    theta: Float[Array, "B P"],
    opt_state,
    spec: dict,
    x: Float[Array, "N D"] | Float[Array, "B M D"],
    y: Int[Array, " N"] | Int[Array, "B M"],
    *,
    hidden: int,
    c: int,
    steps: int,
    mu: float,
    temperature: float,
    lr: float,
    weight_decay: float,
):
    """``steps`` full-batch Adam (``weight_decay = 0``) or AdamW steps of every row of ``theta`` on its ``spec``
    row, in one ``lax.scan``, vmapped over rows; returns ``(theta, opt_state)`` so a stage can be continued.
    ``x, y`` are one pool shared by every row (``[N, D]``, ``[N]``) or one per row (``[B, M, D]``, ``[B, M]``,
    from :func:`gather_selected`)."""
    loss = make_loss_fn(hidden, c, mu, temperature)
    opt = optax.adamw(lr, weight_decay=weight_decay) if weight_decay > 0 else optax.adam(lr)

    def one(th, st, sp, xs, ys):
        def step(carry, _):
            th, st = carry
            g = jax.grad(loss)(th, sp, xs, ys)
            upd, st = opt.update(g, st, th)
            return (optax.apply_updates(th, upd), st), None

        (th, st), _ = jax.lax.scan(step, (th, st), length=steps)
        return th, st

    rows = 0 if x.ndim == 3 else None
    return jax.vmap(one, in_axes=(0, 0, 0, rows, rows))(theta, opt_state, spec, x, y)


def init_opt_state(theta: Float[Array, "B P"], lr: float, weight_decay: float):
    """Fresh (vmapped) Adam/AdamW state for a batch of parameter rows."""
    opt = optax.adamw(lr, weight_decay=weight_decay) if weight_decay > 0 else optax.adam(lr)
    return jax.vmap(opt.init)(theta)


@functools.partial(jax.jit, static_argnames=("hidden", "c"))
def predict(theta: Float[Array, "B P"], x: Float[Array, "N D"], *, hidden: int, c: int) -> Int[Array, "B N"]:
    """Argmax predictions of every parameter row."""
    return jnp.argmax(jax.vmap(lambda t: mlp_apply(t, x, hidden, c))(theta), axis=-1)


@functools.partial(jax.jit, static_argnames=("hidden", "c"))
def true_fisher(theta: Float[Array, " P"], x: Float[Array, "N D"], *, hidden: int, c: int) -> Float[Array, " P"]:
    """Diagonal true Fisher ``mean_i sum_y p(y|x_i) (d log p(y|x_i) / d theta)^2``, exact over the classes."""

    def per_sample(xi):
        def logp(th):
            return jax.nn.log_softmax(mlp_apply(th, xi[None], hidden, c)[0])

        jac = jax.jacrev(logp)(theta)  # [C, P]
        return jnp.sum(jnp.exp(logp(theta))[:, None] * jac**2, axis=0)

    return jnp.mean(jax.lax.map(per_sample, x), axis=0)


@functools.partial(jax.jit, static_argnames=("hidden", "c"))
def empirical_fisher(
    theta: Float[Array, " P"], x: Float[Array, "N D"], y: Int[Array, " N"], *, hidden: int, c: int
) -> Float[Array, " P"]:
    """Diagonal empirical Fisher ``mean_i (d log p(y_i|x_i) / d theta)^2`` (the label-sampled shortcut)."""

    def per_sample(args):
        xi, yi = args
        return jax.grad(lambda th: jax.nn.log_softmax(mlp_apply(th, xi[None], hidden, c)[0])[yi])(theta) ** 2

    return jnp.mean(jax.lax.map(per_sample, (x, y)), axis=0)
