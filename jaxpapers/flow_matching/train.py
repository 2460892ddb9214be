"""Training the velocity field (spec "Model" and "Experiment recipes").

* :func:`make_triples`: n fixed triples (x₀ ~ N(0,I), x₁ ~ target, t ~ U[0,1]) with x_t and u = x₁ − x₀.
* :func:`gd_train`: full-batch GD on the **summed** loss L̂_n(W) = ½ Σᵢ ‖v_W(x_tⁱ, tᵢ) − uᵢ‖² (Du et al.) on fixed
  triples, one ``lax.scan``, recording every step L̂(k), Δ_max(k) = max_r ‖w_r(k) − w_r(0)‖ and the fraction of
  (i, r) ReLU patterns flipped since initialisation. The gradient is the closed form
  ∇_W L̂ = m^{−1/2} [((f − u) aᵀ) ⊙ 1{zWᵀ > 0}]ᵀ z (tested against ``jax.grad``).
* :func:`make_cfm_loss_fn`: the minibatch CFM loss (fresh x₀, t every step; a different algorithm from the
  fixed-triple GD, used for images only) in the shared trainer's ``loss_fn`` interface.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jaxtyping import Array, Float

from jaxpapers.core.checks import check_range
from jaxpapers.flow_matching.model import features, velocity_z


def make_triples(key: jax.Array, target, n: int) -> dict[str, Array]:
    """``{"x0", "x1", "t", "x", "u"}``: x₀ ~ N(0, I), x₁ ~ target, t ~ U[0, 1], x = (1−t)x₀ + t x₁, u = x₁ − x₀."""
    check_range("n", n, 1)
    k0, k1, kt = jax.random.split(key, 3)
    dtype = jnp.result_type(float)
    x0 = jax.random.normal(k0, (n, target.d), dtype)
    x1 = jnp.asarray(target.sample(k1, n), dtype)
    t = jax.random.uniform(kt, (n,), dtype)
    return {"x0": x0, "x1": x1, "t": t, "x": (1 - t[:, None]) * x0 + t[:, None] * x1, "u": x1 - x0}


def summed_loss(w, a, z: Float[Array, "n p"], u: Float[Array, "n d"], width=None, mask=None) -> Array:
    """L̂_n(W) = ½ Σᵢ ‖v_W(zᵢ) − uᵢ‖²."""
    return 0.5 * jnp.sum((velocity_z(w, a, z, width, mask) - u) ** 2)


CHUNK_ELEMENTS = 1 << 18  # n-chunk × m pre-activations per block (1 MiB in float32: one core's L2 cache)


def chunk_rows(n: int, m: int) -> int:
    """Rows of z per block of the GD step: all n when n·m fits ``CHUNK_ELEMENTS`` twice, else ≈ 2¹⁸/m (≥ 8)."""
    if n * m <= 2 * CHUNK_ELEMENTS:
        return n
    return max(8, CHUNK_ELEMENTS // m)


def _block(w, heads, z, u, scale):
    """Loss, ∇_W and ∇_a of ½ Σᵢ ‖v_W(zᵢ) − uᵢ‖² over one block of rows, in the neuron-major [m, rows] layout.

    The [m, rows] pre-activations W zᵀ make both contractions (over m for the output, over rows for the gradient)
    plain row-major matmuls with no transposed copy of an n×m array. Zero rows (z = 0, u = 0) contribute nothing."""
    pre = w @ z.T
    act = pre > 0
    h = jnp.where(act, pre, 0.0)
    r = (heads.T @ h).T * scale - u
    back = jnp.where(act, heads @ r.T, 0.0) * scale
    return 0.5 * jnp.sum(r**2), back @ z, h @ r * scale


def _loss_and_grads(w, a, z, u, width, mask, scale, chunk: int | None = None):
    """Summed loss L̂_n, ∇_W L̂_n and ∇_a L̂_n; with ``chunk`` < n the rows are processed in blocks of ``chunk``
    (a ``lax.scan``; z and u zero-padded to a multiple of ``chunk``), so each block's [m, chunk] activations stay
    in cache (at n = m = 1024 on a CPU, 4× faster than one [m, n] block)."""
    heads = a if mask is None else a * mask[:, None]
    n = z.shape[0]
    if chunk is None or chunk >= n:
        return _block(w, heads, z, u, scale)
    pad = -n % chunk
    zc = jnp.pad(z, ((0, pad), (0, 0))).reshape(-1, chunk, z.shape[1])
    uc = jnp.pad(u, ((0, pad), (0, 0))).reshape(-1, chunk, u.shape[1])

    def body(acc, zu):
        out = _block(w, heads, zu[0], zu[1], scale)
        return jax.tree.map(jnp.add, acc, out), None

    init = (jnp.zeros((), z.dtype), jnp.zeros_like(w), jnp.zeros_like(a))
    return jax.lax.scan(body, init, (zc, uc))[0]


def gd_train(
    params: dict,
    triples: dict,
    eta,
    steps: int,
    *,
    width=None,
    mask=None,
    z_scale: float = 1.0,
    train_second_layer: bool = False,
    record_every: int = 1,
    chunk: int | None = None,
) -> tuple[dict, dict[str, Array]]:
    """``steps`` GD steps W ← W − η∇L̂_n(W) from ``params = {"W", "a"}`` on fixed ``triples`` (call under jit).

    Returns the final params and a history: ``loss`` (summed L̂(k), k = 0..T, length ``steps + 1``), ``delta_max``
    and ``flips`` (fraction of the n·m (i, r) patterns flipped since k = 0) at k = 0, r, 2r, …, T with
    r = ``record_every`` (length ``steps // r + 1``). ``width``/``mask``: masked max-width net. ``chunk``: rows per
    block of each step (default :func:`chunk_rows`; the result does not depend on it beyond float round-off).
    """
    check_range("steps", steps, 1)
    check_range("record_every", record_every, 1, steps)
    if steps % record_every:
        raise ValueError(f"steps={steps} must be a multiple of record_every={record_every}")
    w0, a0 = params["W"], params["a"]
    z = features(triples["x"], triples["t"], z_scale)
    u = triples["u"]
    m = w0.shape[0] if width is None else width
    scale = 1.0 / jnp.sqrt(jnp.asarray(m, z.dtype))
    chunk = chunk_rows(z.shape[0], w0.shape[0]) if chunk is None else chunk
    check_range("chunk", chunk, 1)
    act0 = w0 @ z.T > 0  # [m, n]
    active = jnp.ones(w0.shape[0], z.dtype) if mask is None else mask
    denom = z.shape[0] * jnp.sum(active)

    def record(w, act):
        delta = jnp.max(jnp.linalg.norm(w - w0, axis=1) * active)
        flips = jnp.sum((act != act0) * active[:, None]) / denom
        return delta, flips

    def step(carry, _):
        w, a = carry
        loss, gw, ga = _loss_and_grads(w, a, z, u, width, mask, scale, chunk)
        a_new = a - eta * ga if train_second_layer else a
        return (w - eta * gw, a_new), loss

    def block(carry, _):
        w, a = carry
        delta, flips = record(w, w @ z.T > 0)
        carry, loss = jax.lax.scan(step, carry, length=record_every)
        return carry, (loss, delta, flips)

    (w, a), (loss, delta, flips) = jax.lax.scan(block, (w0, a0), length=steps // record_every)
    loss_t = _loss_and_grads(w, a, z, u, width, mask, scale, chunk)[0]
    delta_t, flips_t = record(w, w @ z.T > 0)
    hist = {
        "loss": jnp.append(loss.reshape(-1), loss_t),
        "delta_max": jnp.append(delta, delta_t),
        "flips": jnp.append(flips, flips_t),
    }
    return {"W": w, "a": a}, hist


def mean_loss(params: dict, triples: dict, *, z_scale: float = 1.0, width=None, mask=None) -> Array:
    """The reported loss: mean over triples of ½‖v_W(x_t, t) − u‖²."""
    z = features(triples["x"], triples["t"], z_scale)
    return 0.5 * jnp.mean(jnp.sum((velocity_z(params["W"], params["a"], z, width, mask) - triples["u"]) ** 2, -1))


def make_cfm_loss_fn(field):
    """Minibatch CFM loss for the shared trainer (images, FM6): ``batch = {"x1": [B, d]}``, the field
    ``field(params, x, t) -> v`` (an :class:`~jaxpapers.flow_matching.model.ImageField`); x₀ ~ N(0, I) and
    t ~ U[0, 1] are drawn fresh from the step key (a different algorithm from the fixed-triple GD)."""

    def loss_fn(params, batch, key, *, train: bool = True):
        del train
        x1 = batch["x1"]
        k0, kt = jax.random.split(key)
        x0 = jax.random.normal(k0, x1.shape, x1.dtype)
        t = jax.random.uniform(kt, x1.shape[:1], x1.dtype)
        x = (1 - t[:, None]) * x0 + t[:, None] * x1
        loss = 0.5 * jnp.mean(jnp.sum((field(params, x, t) - (x1 - x0)) ** 2, -1))
        return loss, {}

    return loss_fn
