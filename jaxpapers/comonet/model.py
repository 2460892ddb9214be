"""COMONet: a partially connected network whose declared per-variable shapes hold by construction.

Letters: B batch, D input variables, H hidden units of a stream, K outputs.

Layer equations (spec "Layer equations"; l = 1..L, r⁰ = x_U, m⁰ = x_M, inputs flipped and grouped):

1. free stream        r^l = ReLU(r^{l-1} W_U^l + b_U^l)
2. confluence         c_S^l = σ_M(r^{l-1} W_cS^l + b_cS^l)            S ∈ {M, C, V} present
3. monotone stream    m^l = σ_M([m^{l-1}, c_M^l] exp(Ŵ_M^l) + b_M^l)
4. convex stream      h_C^l = σ₊(h_C^{l-1} e^{Ŵ} + x_C A_C^l + x_CM e^{Ŵ} + m^l e^{Ŵ} + c_C^l e^{Ŵ} + b_C^l)
5. concave stream     h_V^l = σ₋(h_V^{l-1} e^{Ŵ} + x_V A_V^l + x_VM e^{Ŵ} + m^l e^{Ŵ} + c_V^l e^{Ŵ} + b_V^l)
6. output             y = h_C^L e^{ŵ_C} + h_V^L e^{ŵ_V} + m^L e^{ŵ_M} + r^L w_U
                          + x_C a_C + x_CM e^{â_CM} + x_V a_V + x_VM e^{â_VM} + b

A stream whose groups are all empty is not built (the "partial configuration"): {free, inc/dec}
gives SMNN, {cvx} alone an exp-reparameterised FICNN, {cvx, free} an additive-bias PICNN.

Why the shapes hold (for every parameter value and every input), by induction over layers:
(i) a non-negative combination of nondecreasing functions is nondecreasing; (ii) a nondecreasing
activation of a nondecreasing argument is nondecreasing; (iii) a convex nondecreasing activation of
a convex argument is convex (concave: mirror image); (iv) terms that do not depend on x_j are
constants along the coordinate line of x_j. Hence h_C^l is jointly convex in (x_C, x_CM) and
nondecreasing in (x_CM, x_M); h_V^l is jointly concave in (x_V, x_VM) and nondecreasing in
(x_VM, x_M); m^l is nondecreasing in x_M; r^l and c^l depend on x_U only. The output keeps each
property, and the flip x̃_j = s_j x_j (applied here, in ``__call__``) turns "dec" into "inc".

Limitations: guarantees are per variable (1-D along x_j with the others fixed); joint convexity holds
within the convex group only, never across C and M variables. Convex and concave variables interact
only additively at the output (a unit mixing them would need an activation both convex and concave,
i.e. affine); monotone variables may interact with both. For classification the constraints hold on
the logit: a sigmoid keeps monotonicity of a binary logit but not its curvature.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import chex
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from flax.linen.dtypes import promote_dtype
from jaxtyping import Array, Float

from jaxpapers.comonet import layers
from jaxpapers.comonet.regimes import GroupSpec, parse_regimes
from jaxpapers.core.checks import check_choice, check_range, check_shape
from jaxpapers.core.errors import ConfigError

STREAMS: tuple[str, ...] = ("free", "mono", "convex", "concave", "confluence")
CONTROLS: tuple[str, ...] = ("none", "convex_identity", "confluence_leak")


class COMONet(nn.Module):
    """Shape-constrained network: ``x [B, d] -> y [B, n_out]`` with one regime per input column.

    Attributes:
      regimes: one code per input column (see :mod:`jaxpapers.comonet.regimes`); build from
        column names with ``parse_regimes({"bmi": "inc"}, columns).regimes``.
      hidden: width of every stream, or ``{stream: width}`` for streams ``free``, ``mono``,
        ``convex``, ``concave``, ``confluence`` (unlisted streams take 16).
      depth: hidden layers L per stream.
      act: ``softplus`` (smooth σ₊, β = ``beta``) or ``relu`` for the convex/concave streams.
      n_out: outputs (separate heads on shared streams; each output keeps every shape).
      control: negative controls for the certifier only — ``convex_identity`` replaces exp by the
        identity in the last convex layer, ``confluence_leak`` feeds the first constrained variable
        into the confluence units. Both break the guarantee on purpose.
      dtype: computation dtype (None: promote inputs and params, so float64 params certify in float64).
    """

    regimes: tuple[str, ...]
    hidden: int | Mapping[str, int] = 16
    depth: int = 2
    act: str = "softplus"
    beta: float = 1.0
    n_out: int = 1
    control: str = "none"
    dtype: Any = None
    param_dtype: Any = jnp.float32

    def __post_init__(self):
        spec = self.regimes if isinstance(self.regimes, GroupSpec) else parse_regimes(tuple(self.regimes))
        object.__setattr__(self, "regimes", spec.regimes)
        check_range("depth", self.depth, 1)
        check_range("n_out", self.n_out, 1)
        check_range("beta", self.beta, 0.0, lo_open=True)
        check_choice("act", self.act, layers.ACTS)
        check_choice("control", self.control, CONTROLS)
        self.widths()  # validates hidden
        if self.control == "confluence_leak" and not (spec.group("U") and spec.constrained):
            raise ConfigError("control='confluence_leak' needs at least one free and one constrained variable")
        if self.control == "convex_identity" and not (spec.group("C") or spec.group("CM")):
            raise ConfigError("control='convex_identity' needs a convex variable (cvx, cvx_inc or cvx_dec)")
        super().__post_init__()

    @property
    def spec(self) -> GroupSpec:
        return parse_regimes(self.regimes)

    def widths(self) -> dict[str, int]:
        """Width of each stream (``free``, ``mono``, ``convex``, ``concave``, ``confluence``)."""
        if isinstance(self.hidden, Mapping):
            unknown = sorted(set(self.hidden) - set(STREAMS))
            if unknown:
                raise ConfigError(f"hidden names stream {unknown[0]!r}; allowed streams: {', '.join(STREAMS)}")
            out = {s: int(self.hidden.get(s, 16)) for s in STREAMS}
        else:
            out = {s: int(self.hidden) for s in STREAMS}
        for s, w in out.items():
            check_range(f"hidden[{s!r}]", w, 1)
        return out

    @nn.compact
    def __call__(self, x: Float[Array, "B D"]) -> Float[Array, "B K"]:
        spec = self.spec
        check_shape("x", x.shape, (None, spec.num_features))
        x = jnp.asarray(x)
        if not jnp.issubdtype(x.dtype, jnp.floating):
            x = x.astype(jnp.float32)
        # The flip lives here, not in preprocessing: a saved model fed raw data keeps its shapes.
        x = x * jnp.asarray(spec.flip, x.dtype)
        g = spec.groups
        x_u, x_m, x_c, x_cm, x_v, x_vm = (take_columns(x, g[k]) for k in ("U", "M", "C", "CM", "V", "VM"))
        has_u, has_m = x_u is not None, x_m is not None
        has_c, has_v = bool(g["C"] or g["CM"]), bool(g["V"] or g["VM"])
        w = self.widths()
        kw = dict(dtype=self.dtype, param_dtype=self.param_dtype)
        leak = take_columns(x, spec.constrained[:1]) if self.control == "confluence_leak" else None

        r, m, h_c, h_v = x_u, x_m, None, None
        for l in range(self.depth):
            c_m = c_c = c_v = None
            if has_u:
                src = r if leak is None else jnp.concatenate([r, leak], axis=-1)
                if has_m:
                    c_m = layers.ConfluenceUnit(w["confluence"], name=f"conf_mono_{l}", **kw)(src)
                if has_c:
                    c_c = layers.ConfluenceUnit(w["confluence"], name=f"conf_convex_{l}", **kw)(src)
                if has_v:
                    c_v = layers.ConfluenceUnit(w["confluence"], name=f"conf_concave_{l}", **kw)(src)
                r_next = nn.relu(nn.Dense(w["free"], kernel_init=layers.normal_kernel_init, name=f"free_{l}", **kw)(r))
            if has_m:
                m_in = m if c_m is None else jnp.concatenate([m, c_m.astype(m.dtype)], axis=-1)
                m = layers.MonoUnit(w["mono"], name=f"mono_{l}", **kw)(m_in)
            if has_c:
                positive = not (self.control == "convex_identity" and l == self.depth - 1)
                h_c = layers.ConvexLayer(w["convex"], self.act, self.beta, positive=positive, name=f"convex_{l}", **kw)(
                    h_c, x_c, x_cm, m, c_c
                )
            if has_v:
                h_v = layers.ConcaveLayer(w["concave"], self.act, self.beta, name=f"concave_{l}", **kw)(
                    h_v, x_v, x_vm, m, c_v
                )
            if has_u:
                r = r_next

        n = self.n_out
        terms = []
        for name, value in (("out_convex", h_c), ("out_concave", h_v), ("skip_cm", x_cm), ("skip_vm", x_vm)):
            if value is not None:
                terms.append(layers.PosDense(n, name=name, **kw)(value))
        if m is not None:
            terms.append(layers.PosDense(n, name="out_mono", **kw)(m))
        for name, value in (("out_free", r), ("skip_c", x_c), ("skip_v", x_v)):
            if value is not None:
                dense = nn.Dense(n, use_bias=False, kernel_init=layers.normal_kernel_init, name=name, **kw)
                terms.append(dense(value))
        y = terms[0]
        for t in terms[1:]:
            y = y + t
        bias = self.param("bias", nn.initializers.zeros_init(), (n,), self.param_dtype)
        y = y + promote_dtype(bias, dtype=y.dtype)[0]
        chex.assert_shape(y, (x.shape[0], n))
        return y


def count_params(params: Any) -> int:
    """Number of scalar parameters in a pytree."""
    return int(sum(p.size for p in jax.tree.leaves(params)))


def random_params(template: Any, key: jax.Array, n: int, scale: float) -> Any:
    """``n`` parameter sets with every raw leaf ~ N(0, scale²), stacked on a leading axis (NumPy leaves).

    ``template`` gives the shapes (e.g. ``jax.eval_shape(model.init, ...)["params"]``). One draw of
    all values, split on the host: no per-leaf compilation. The guarantees hold for every parameter
    value, so these (far outside training scale) are what CO1 certifies.
    """
    leaves, treedef = jax.tree.flatten(template)
    sizes = [int(np.prod(leaf.shape)) for leaf in leaves]
    z = scale * np.asarray(jax.random.normal(key, (n, sum(sizes))), np.float32)
    parts = np.split(z, np.cumsum(sizes)[:-1], axis=1)
    return jax.tree.unflatten(treedef, [p.reshape((n, *leaf.shape)) for p, leaf in zip(parts, leaves, strict=True)])


def take_columns(x: Array, idx: tuple[int, ...]) -> Array | None:
    """Columns ``idx`` of ``x [B, D]`` by static slices (cheaper to compile than a gather), or None."""
    if not idx:
        return None
    parts = [x[:, j : j + 1] for j in idx]
    return parts[0] if len(parts) == 1 else jnp.concatenate(parts, axis=1)
