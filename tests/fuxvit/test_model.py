"""The FuxViT encoder: an independent float64 NumPy ViT for images, impl equivalences, causality,
streaming, packing, padding, param paths and input errors (tiny sizes)."""

import functools

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.fuxvit.config import FuxViTConfig, rope_split
from jaxpapers.fuxvit.model import Block, FuxViT, clip_positions
from jaxpapers.fuxvit.streaming import encode_streaming

CFG = FuxViTConfig.tiny(dim=32, num_heads=2, mlp_dim=64, depth=2, k_frames=1)


@functools.cache
def apply_fn(cfg):
    return jax.jit(FuxViT(cfg).apply)


@functools.cache
def params_of(cfg=CFG, frames=4):
    x = jnp.zeros((1, frames * cfg.tubelet, 16, 16, 3))
    return nn.unbox(jax.jit(FuxViT(cfg).init)(jax.random.key(0), x))


def clip(frames=4, seed=0, batch=1, cfg=CFG):
    return jax.random.uniform(jax.random.key(seed), (batch, frames * cfg.tubelet, 16, 16, 3))


# ---------------------------------------------------------------------------------------------
# An independent float64 NumPy ViT (plain mode, T = 1)
# ---------------------------------------------------------------------------------------------


def np_layer_norm(x, p, eps=1e-6):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * p["scale"] + p["bias"]


def np_rope(x, pos, dims):
    """Rotate channel pairs of consecutive slices (time, row, col) by their own positions."""
    out, start = x.copy(), 0
    for p, d in zip(pos, dims, strict=True):
        inv = 10_000.0 ** (-np.arange(0, d, 2) / d)
        ang = p[:, None] * inv[None]  # [S, d/2]
        a, b = x[..., start : start + d : 2], x[..., start + 1 : start + d : 2]
        c, s = np.cos(ang)[:, None], np.sin(ang)[:, None]
        out[..., start : start + d : 2] = a * c - b * s
        out[..., start + 1 : start + d : 2] = a * s + b * c
        start += d
    return out


def np_vit(params, image, cfg):
    """Float64 ViT on one image [tubelet, H, W, 3]: patchify, 2-D RoPE (t = 0), QK-RMSNorm, GELU MLP."""
    p = jax.tree.map(lambda a: np.asarray(a, np.float64), params["params"])
    t_p, hpx, wpx, ch = image.shape
    rows, cols = hpx // cfg.patch, wpx // cfg.patch
    x = (np.asarray(image, np.float64) * 2 - 1).reshape(t_p, rows, cfg.patch, cols, cfg.patch, ch)
    x = x.transpose(1, 3, 0, 2, 4, 5).reshape(rows * cols, -1)
    x = x @ p["embed"]["kernel"] + p["embed"]["bias"]
    yy, xx = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    pos = (np.zeros(rows * cols), yy.ravel(), xx.ravel())
    dims = rope_split(cfg.head_dim)
    for i in range(cfg.depth):
        blk = p["encoder"][f"layers_{i}"]
        a = blk["attn"]
        h = np_layer_norm(x, blk["ln_attn"])
        q, k, v = (np.einsum("sd,dnh->snh", h, a[n]["kernel"]) for n in ("query", "key", "value"))
        rms = lambda z, s: z / np.sqrt((z**2).mean(-1, keepdims=True) + 1e-6) * s  # noqa: E731
        q, k = rms(q, a["query_norm"]["scale"]), rms(k, a["key_norm"]["scale"])
        q, k = np_rope(q, pos, dims), np_rope(k, pos, dims)
        logits = np.einsum("snh,tnh->nst", q, k) / np.sqrt(cfg.head_dim)
        w = np.exp(logits - logits.max(-1, keepdims=True))
        w /= w.sum(-1, keepdims=True)
        o = np.einsum("nst,tnh->snh", w, v)
        x = x + np.einsum("snh,nhd->sd", o, a["out"]["kernel"])
        h = np_layer_norm(x, blk["ln_mlp"])
        h = h @ blk["mlp"]["wi"]["kernel"] + blk["mlp"]["wi"]["bias"]
        h = 0.5 * h * (1 + np.tanh(np.sqrt(2 / np.pi) * (h + 0.044715 * h**3)))
        x = x + h @ blk["mlp"]["wo"]["kernel"] + blk["mlp"]["wo"]["bias"]
    return np_layer_norm(x, p["ln_final"])


def np_block(p, x, pos, cfg):
    """One FuxViT block in float64 NumPy on [T, P, D]: frame-causal dense attention over T·P tokens, the
    fine gate (``gated``; no coarse branch without routing), GELU MLP."""
    t, n_p, d = x.shape
    x = x.reshape(t * n_p, d)
    frame = np.repeat(np.arange(t), n_p)
    a = p["attn"]
    h = np_layer_norm(x, p["ln_attn"])
    q, k, v = (np.einsum("sd,dnh->snh", h, a[n]["kernel"]) for n in ("query", "key", "value"))
    rms = lambda z, s: z / np.sqrt((z**2).mean(-1, keepdims=True) + 1e-6) * s  # noqa: E731
    q, k = rms(q, a["query_norm"]["scale"]), rms(k, a["key_norm"]["scale"])
    dims = rope_split(cfg.head_dim)
    q, k = np_rope(q, pos, dims), np_rope(k, pos, dims)
    logits = np.einsum("snh,tnh->nst", q, k) / np.sqrt(cfg.head_dim)
    logits = np.where(frame[None, None, :] <= frame[None, :, None], logits, -np.inf)  # key frame ≤ query frame
    w = np.exp(logits - logits.max(-1, keepdims=True))
    o = np.einsum("nst,tnh->snh", w / w.sum(-1, keepdims=True), v)
    if cfg.fsa_mode == "gated":
        g = 1 / (1 + np.exp(-(np.einsum("sd,dng->sng", h, a["gate"]["kernel"]) + a["gate"]["bias"])))
        o = g[..., 0:1] * o
    x = x + np.einsum("snh,nhd->sd", o, a["out"]["kernel"])
    h = np_layer_norm(x, p["ln_mlp"]) @ p["mlp"]["wi"]["kernel"] + p["mlp"]["wi"]["bias"]
    h = 0.5 * h * (1 + np.tanh(np.sqrt(2 / np.pi) * (h + 0.044715 * h**3)))
    return (x + h @ p["mlp"]["wo"]["kernel"] + p["mlp"]["wo"]["bias"]).reshape(t, n_p, d)


@pytest.mark.parametrize("impl,mode", [("dense_causal", "gated"), ("reference", "plain")])
def test_block_from_core_parts_is_a_float64_numpy_block(impl, mode):
    """``model.Block`` (core Einsum projections, core MlpBlock on [B, T, P, D]) on random inputs and
    randomly perturbed params equals the block written out in NumPy; ``reference`` routes every query
    frame to its whole history (k = T − 1), so it is the same dense frame-causal attention."""
    cfg = CFG.replace(attn_impl=impl, fsa_mode=mode, k_frames=3)
    b, t, rows, cols = 2, 4, 2, 2
    x = jax.random.normal(jax.random.key(20), (b, t, rows * cols, cfg.dim))
    pos = clip_positions(b, t, rows, cols)
    frames = jnp.broadcast_to(jnp.arange(t, dtype=jnp.int32), (b, t))
    seg, valid = jnp.zeros((b, t), jnp.int32), jnp.ones((b, t), bool)
    args = (pos, frames, seg, seg, valid)
    params = nn.unbox(Block(cfg).init(jax.random.key(0), x, *args))["params"]
    leaves, tree = jax.tree.flatten(params)
    keys = jax.random.split(jax.random.key(21), len(leaves))
    params = tree.unflatten([a + 0.2 * jax.random.normal(kk, a.shape) for a, kk in zip(leaves, keys, strict=True)])
    got, sel, _ = jax.jit(Block(cfg).apply)({"params": params}, x, *args)
    p64 = jax.tree.map(lambda a: np.asarray(a, np.float64), params)
    for i in range(b):
        pos_i = tuple(np.asarray(a[i]).reshape(-1) for a in pos)
        want = np_block(p64, np.asarray(x[i], np.float64), pos_i, cfg)
        np.testing.assert_allclose(got[i], want, atol=1e-4, rtol=1e-4)
    if impl == "reference":  # every earlier frame (and the own one) is selected
        np.testing.assert_array_equal(np.sort(np.asarray(sel[0, 0, 3])), [0, 1, 2, 3])


def test_image_through_fuxvit_is_a_float64_numpy_vit():
    cfg = CFG.replace(fsa_mode="plain")
    params = params_of(cfg, 1)
    images = clip(1, seed=3, batch=2)
    got = apply_fn(cfg)(params, images)
    for b in range(2):
        want = np_vit(params, np.asarray(images[b]), cfg)
        np.testing.assert_allclose(got["tokens"][b, 0], want, atol=1e-4, rtol=1e-4)
    assert got["sel"].shape[-1] == 1 and bool(jnp.all(got["sel"] == 0))  # S_0 = {0}


@pytest.mark.parametrize("mode", ["plain", "gated"])
def test_image_reference_equals_dense_full(mode):
    cfg = CFG.replace(fsa_mode=mode)
    params = params_of(CFG, 1)
    images = clip(1, seed=4, batch=2)
    a = apply_fn(cfg)(params, images)["tokens"]
    b = apply_fn(cfg.replace(attn_impl="dense_full"))(params, images)["tokens"]
    np.testing.assert_allclose(a, b, atol=1e-5)


def test_gates_start_favouring_the_fine_branch():
    bias = params_of()["params"]["encoder"]["layers_0"]["attn"]["gate"]["bias"]
    np.testing.assert_array_equal(np.asarray(bias), np.broadcast_to([2.0, -2.0], bias.shape))


def test_full_history_reference_equals_dense_causal_model():
    cfg = CFG.replace(fsa_mode="plain", k_frames=3)
    x = clip(4, seed=5)
    a = apply_fn(cfg)(params_of(), x)["tokens"]
    b = apply_fn(cfg.replace(attn_impl="dense_causal"))(params_of(), x)["tokens"]
    np.testing.assert_allclose(a, b, atol=2e-5)


def test_static_model_sees_no_absolute_time():
    """Pitfall: the static baseline must not know when a frame occurs; with RoPE only it equals
    encoding every frame as its own image."""
    cfg = CFG.replace(attn_impl="static", k_frames=0)
    x = clip(4, seed=6)
    whole = apply_fn(cfg)(params_of(), x)["tokens"][0]
    frames = x.reshape(4, cfg.tubelet, 16, 16, 3)
    alone = apply_fn(cfg)(params_of(), frames)["tokens"][:, 0]
    np.testing.assert_allclose(whole, alone, atol=2e-5)


@pytest.mark.parametrize("impl", ["reference", "dense_causal", "static"])
def test_frame_level_causality(impl):
    cfg = CFG.replace(attn_impl=impl)
    x = clip(4, seed=7)
    changed = x.at[:, 2 * cfg.tubelet :].set(jax.random.uniform(jax.random.key(1), x[:, 2 * cfg.tubelet :].shape))
    both = apply_fn(cfg)(params_of(), jnp.concatenate([x, changed]))["tokens"]
    assert float(jnp.max(jnp.abs(both[0, :2] - both[1, :2]))) == 0.0
    if impl != "static":
        assert float(jnp.max(jnp.abs(both[0, 2:] - both[1, 2:]))) > 1e-3


@pytest.mark.parametrize("impl,pool", [("reference", "mean"), ("reference", "mean+max"), ("dense_causal", "mean")])
def test_streaming_equals_encoding_at_once(impl, pool):
    """Also with ``router_pool="mean+max"`` (pitfall: mean-pooled keys lose routing SNR at large P)."""
    cfg = CFG.replace(attn_impl=impl, force_first=True, router_pool=pool)
    x = clip(4, seed=8)
    full = apply_fn(cfg)(params_of(), x)["tokens"]
    t = cfg.tubelet
    streamed = encode_streaming(FuxViT(cfg), params_of(), [x[:, : 3 * t], x[:, 3 * t :]], max_frames=6)
    np.testing.assert_allclose(streamed["tokens"], full, atol=1e-5)


def test_streaming_errors():
    model = FuxViT(CFG)
    with pytest.raises(ConfigError, match="more than max_frames=2"):
        encode_streaming(model, params_of(), [clip(2), clip(2)], max_frames=2)
    with pytest.raises(ConfigError, match="cannot be streamed"):
        encode_streaming(FuxViT(CFG.replace(attn_impl="dense_full")), params_of(), [clip(2)], max_frames=2)


def test_packed_segments_equal_separate_clips():
    """Pitfall: routing, attention and the coarse branch must mask other packed segments."""
    cfg = CFG.replace(k_frames=2, force_first=True)
    a, b = clip(2, seed=9), clip(3, seed=10)
    packed = jnp.concatenate([a, b], axis=1)
    seg = jnp.array([[0, 0, 1, 1, 1]])
    out = apply_fn(cfg)(params_of(), packed, None, seg)["tokens"]
    np.testing.assert_allclose(out[:, :2], apply_fn(cfg)(params_of(), a)["tokens"], atol=3e-5)
    np.testing.assert_allclose(out[:, 2:], apply_fn(cfg)(params_of(), b)["tokens"], atol=3e-5)


def test_padding_frames_do_not_affect_valid_frames():
    cfg = CFG.replace(k_frames=3)
    x = clip(4, seed=11)
    valid = jnp.array([[True, False, True, True]])
    noise = x.at[:, cfg.tubelet : 2 * cfg.tubelet].set(0.0)
    both = apply_fn(cfg)(params_of(), jnp.concatenate([x, noise]), jnp.concatenate([valid, valid]))
    tok = both["tokens"]
    np.testing.assert_allclose(tok[0, jnp.array([0, 2, 3])], tok[1, jnp.array([0, 2, 3])], atol=1e-6)
    np.testing.assert_allclose(both["pooled"][0], both["pooled"][1], atol=1e-6)
    sel = np.asarray(both["sel"])
    assert not np.any(sel[:, :, :, 2:, :] == 1)  # the padding frame is never routed to


def test_all_visible_positions_equal_no_mask():
    x = clip(2, seed=12)
    visible = jnp.arange(4)[None]  # 16 px / patch 8 → P = 4
    a = apply_fn(CFG)(params_of(), x)["tokens"]
    b = apply_fn(CFG)(params_of(), x, None, None, visible)["tokens"]
    np.testing.assert_allclose(a, b, atol=1e-6)


def test_scan_and_remat_match_the_layer_loop():
    x = clip(3, seed=13)
    params = params_of()
    base = apply_fn(CFG)(params, x)["tokens"]
    np.testing.assert_allclose(apply_fn(CFG.replace(remat=True))(params, x)["tokens"], base, atol=1e-6)
    enc = params["params"]["encoder"]
    stacked = jax.tree.map(lambda *a: jnp.stack(a), *[enc[f"layers_{i}"] for i in range(CFG.depth)])
    scan_params = {"params": {**params["params"], "encoder": {"layers": stacked}}}
    got = apply_fn(CFG.replace(scan_layers=True))(scan_params, x)
    np.testing.assert_allclose(got["tokens"], base, atol=1e-5)
    assert got["sel"].shape[0] == CFG.depth
    np.testing.assert_array_equal(got["sel"], apply_fn(CFG)(params, x)["sel"])
    both = CFG.replace(scan_layers=True, remat=True)
    np.testing.assert_allclose(apply_fn(both)(scan_params, x)["tokens"], base, atol=1e-5)
    # the scanned stack streams too (caches carry a leading layer axis in both layouts)
    t = CFG.tubelet
    streamed = encode_streaming(FuxViT(both), scan_params, [x[:, : 2 * t], x[:, 2 * t :]], max_frames=4)
    np.testing.assert_allclose(streamed["tokens"], base, atol=1e-5)


def test_param_paths_are_pinned():
    """Param paths are the checkpoint format."""
    paths = sorted(
        "/".join(str(getattr(k, "key", k)) for k in path)
        for path, _ in jax.tree_util.tree_flatten_with_path(params_of()["params"])[0]
    )
    block = [
        "attn/gate/bias", "attn/gate/kernel", "attn/key/kernel", "attn/key_norm/scale", "attn/out/kernel",
        "attn/query/kernel", "attn/query_norm/scale", "attn/value/kernel", "ln_attn/bias", "ln_attn/scale",
        "ln_mlp/bias", "ln_mlp/scale", "mlp/wi/bias", "mlp/wi/kernel", "mlp/wo/bias", "mlp/wo/kernel",
    ]  # fmt: skip
    want = ["embed/bias", "embed/kernel"]
    want += [f"encoder/layers_{i}/{p}" for i in range(2) for p in block] + ["ln_final/bias", "ln_final/scale"]
    assert paths == sorted(want)


@pytest.mark.slow
def test_pallas_impl_equals_reference_in_interpret_mode():
    """attn_impl="pallas" (the GPU kernel, interpreted on the CPU) gives the reference model's output.
    The kernel needs P a multiple of 16: 32 px frames at patch 8."""
    cfg = CFG.replace(depth=1)
    x = jax.random.uniform(jax.random.key(3), (1, 3 * cfg.tubelet, 32, 32, 3))
    params = nn.unbox(jax.jit(FuxViT(cfg).init)(jax.random.key(0), x))
    want = jax.jit(FuxViT(cfg).apply)(params, x)
    got = jax.jit(FuxViT(cfg.replace(attn_impl="pallas")).apply)(params, x)
    np.testing.assert_allclose(got["tokens"], want["tokens"], atol=1e-5)
    np.testing.assert_array_equal(got["sel"], want["sel"])


def test_bad_inputs_raise_clear_errors():
    model = FuxViT(CFG)
    with pytest.raises(ConfigError, match="not a multiple of tubelet=2"):
        model.init(jax.random.key(0), jnp.zeros((1, 3, 16, 16, 3)))
    with pytest.raises(ConfigError, match="not divisible by patch=8"):
        model.init(jax.random.key(0), jnp.zeros((1, 2, 12, 16, 3)))
    # the model's own check, or the shape hint first when the jaxtyping hook is on
    with pytest.raises(
        (ConfigError, TypeError), match="expected \\(batch, frames, height, width, channels\\)|parameter 'pixels'"
    ):
        model.init(jax.random.key(0), jnp.zeros((2, 16, 16, 3)))
    with pytest.raises(ConfigError, match="the model expects 3"):
        model.init(jax.random.key(0), jnp.zeros((1, 2, 16, 16, 1)))
    with pytest.raises(ConfigError, match="frame_valid has shape"):
        model.init(jax.random.key(0), jnp.zeros((1, 4, 16, 16, 3)), jnp.ones((1, 3), bool))


def test_bfloat16_compute_stays_close_to_float32():
    cfg = CFG.replace(dtype="bfloat16")
    x = clip(2, seed=14)
    lo = apply_fn(cfg)(params_of(), x)["tokens"]
    hi = apply_fn(CFG)(params_of(), x)["tokens"]
    assert lo.dtype == jnp.float32  # the final LayerNorm computes in float32
    err = float(jnp.max(jnp.abs(lo - hi)))
    assert 0 < err < 0.15 and bool(jnp.all(jnp.isfinite(lo)))  # bfloat16 is really used, and stays close
