"""Each claim experiment at a tiny size, its measured value checked against an independent computation
(float64 brute force, plain Python loops, a separately computed accuracy), not only that it runs."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core import config as config_lib
from jaxpapers.fuxvit import attention, routing, studies
from jaxpapers.fuxvit.config import AttentionShapes, FuxViTConfig
from jaxpapers.fuxvit.experiments import equivalence, exactness, needle, scaling
from jaxpapers.fuxvit.kernels.fsa.reference import fsa_fine_reference
from jaxpapers.fuxvit.model import FuxViT
from jaxpapers.fuxvit.train import classifier


def fsa_cfg():
    return config_lib.load("fuxvit/fsa", "preset=tiny")


def frame_causal_f64(q, k, v, p):
    """Dense frame-causal attention in float64 with an explicit frame mask (no jax.nn attention)."""
    n = q.shape[1]
    frame = jnp.arange(n) // p
    s = jnp.einsum("bqnh,bknh->bnqk", q, k) / jnp.sqrt(q.shape[-1])
    s = jnp.where(frame[None, None, None, :] <= frame[None, None, :, None], s, -jnp.inf)
    return jnp.einsum("bnqk,bknh->bqnh", jax.nn.softmax(s, axis=-1), v)


def test_f1_measures_the_reference_against_a_float64_frame_causal_attention():
    cfg = fsa_cfg()
    s = config_lib.to_dataclass(AttentionShapes, cfg.exactness)
    key = jax.random.key(3)
    m = exactness.measure_full_history(cfg, key)
    kq, kg = jax.random.split(key)
    q, k, v = exactness.random_qkv(kq, s)
    cot = jax.random.normal(kg, q.shape)
    out = jax.jit(exactness.fsa_and_dense, static_argnames=("P", "chunk"))(
        q, k, v, cot, P=s.tokens_per_frame, chunk=s.chunk
    )

    @jax.jit
    def reference(q, k, v, cot):
        ref, vjp = jax.vjp(lambda *a: frame_causal_f64(*a, s.tokens_per_frame), q, k, v)
        return ref, vjp(cot)

    with jax.enable_x64(True):
        ref, grads = reference(*(jnp.asarray(np.asarray(x), jnp.float64) for x in (q, k, v, cot)))
    np.testing.assert_allclose(out["fsa"], ref, atol=1e-5)
    np.testing.assert_allclose(out["dense"], ref, atol=1e-5)
    for g, r in zip(out["grad_fsa"], grads, strict=True):
        assert exactness.rel_error(g, r) < 1e-5
    assert m.measured["fwd_max_abs"] == pytest.approx(float(np.max(np.abs(out["fsa"] - out["dense"]))))
    want = max(exactness.rel_error(a, b) for a, b in zip(out["grad_fsa"], out["grad_dense"], strict=True))
    assert m.measured["grad_rel"] == pytest.approx(want)
    assert m.details["selection_is_full_history"]


def test_rel_error_is_the_global_norm_ratio():
    a = {"x": np.array([1.0, 2.0]), "y": np.array([[3.0]])}
    b = {"x": np.array([1.0, 0.0]), "y": np.array([[1.0]])}
    assert exactness.rel_error(a, b) == pytest.approx(np.sqrt(4 + 4) / np.sqrt(1 + 1))


def test_f4_diffs_equal_a_plain_loop_over_overwritten_frames():
    s = AttentionShapes(batch=1, heads=2, frames=4, tokens_per_frame=4, head_dim=8, k=1)
    q, k, v = exactness.random_qkv(jax.random.key(0), s)
    nk, nv = jax.random.normal(jax.random.key(1), (2, 1, 4, 2, 8))
    diff, member = exactness.overwrite_diffs(q, k, v, nk, nv, P=4, k_frames=1)
    sel, _ = routing.select_frames(routing.routing_logits(q, k, 4), 1)
    sel = np.asarray(sel)
    fine = jax.jit(lambda q, k, v, sel: fsa_fine_reference(q, k, v, sel, 4))
    base = np.asarray(fine(q, k, v, jnp.asarray(sel)))
    for j in range(s.frames):
        kj, vj = np.array(k), np.array(v)
        kj[:, j * 4 : (j + 1) * 4], vj[:, j * 4 : (j + 1) * 4] = nk, nv
        out = np.asarray(fine(q, jnp.asarray(kj), jnp.asarray(vj), jnp.asarray(sel)))
        for i in range(s.frames):
            for h in range(s.heads):
                want = np.max(np.abs(out[0, i * 4 : (i + 1) * 4, h] - base[0, i * 4 : (i + 1) * 4, h]))
                assert float(diff[j, 0, h, i]) == pytest.approx(want, rel=1e-5, abs=1e-6)
                assert bool(member[j, 0, h, i]) == (j in set(sel[0, h, i].tolist()))
    m = exactness.measure_inert(fsa_cfg(), jax.random.key(0))
    assert m.measured["unselected_max_diff"] == 0.0 and m.measured["selected_min_diff"] > 0


def test_f2_measures_the_difference_of_separately_run_models():
    base = FuxViTConfig.tiny(k_frames=2, fsa_mode="gated", dim=32, depth=1, num_heads=2, mlp_dim=64)
    clips = jax.random.uniform(jax.random.key(1), (2, base.tubelet, 16, 16, 3))
    params = jax.jit(FuxViT(base).init)(jax.random.key(2), clips)
    out = jax.jit(equivalence.fsa_vs_dense_full, static_argnums=2)(params, clips, base)
    for mode in ("plain", "gated"):
        a = jax.jit(FuxViT(base.replace(fsa_mode=mode)).apply)(params, clips)
        d = jax.jit(FuxViT(base.replace(fsa_mode=mode, attn_impl="dense_full")).apply)(params, clips)
        want = max(np.max(np.abs(a["tokens"] - d["tokens"])), np.max(np.abs(a["pooled"] - d["pooled"])))
        assert float(out[mode]) == pytest.approx(float(want), abs=1e-7)
        assert float(out[mode]) <= 1e-5
    assert np.all(np.asarray(out["plain_sel"])[..., 0] == 0)  # an image selects only its own frame


def test_f3_causal_diffs_equal_a_plain_loop_over_cut_frames():
    mc = FuxViTConfig.tiny(k_frames=1, dim=32, depth=1, num_heads=2, mlp_dim=64)
    t, tp = 4, mc.tubelet
    clip = jax.random.uniform(jax.random.key(0), (1, t * tp, 16, 16, 3))
    noise = jax.random.uniform(jax.random.key(1), (t - 1, t * tp, 16, 16, 3))
    model = FuxViT(mc)
    params = jax.jit(model.init)(jax.random.key(2), clip)
    apply = jax.jit(model.apply)
    batch = equivalence.future_perturbations(clip, noise, tp)
    causal_max, future_min = equivalence.causal_diffs(apply(params, batch)["tokens"])
    original = np.asarray(apply(params, clip)["tokens"][0])
    worst_past, least_future = 0.0, np.inf
    for r in range(t - 1):  # keep frames ≤ r, replace the rest
        x = np.array(noise[r : r + 1])
        x[:, : (r + 1) * tp] = np.asarray(clip[:, : (r + 1) * tp])
        tok = np.asarray(apply(params, jnp.asarray(x))["tokens"][0])
        d = np.max(np.abs(tok - original), axis=(1, 2))
        worst_past, least_future = max(worst_past, d[: r + 1].max()), min(least_future, d[r + 1 :].min())
    assert float(causal_max) == pytest.approx(worst_past, abs=1e-6)
    assert float(future_min) == pytest.approx(least_future, rel=1e-4)
    assert least_future > 1e-3  # the perturbation reached the later frames


def test_f6_f11_slopes_are_least_squares_fits_of_the_compiled_numbers():
    cfg = fsa_cfg()
    for measure, quantity in ((scaling.measure_flops, "flops"), (scaling.measure_memory, "temp_bytes")):
        m = measure(cfg, jax.random.key(0))
        x = np.log(m.details["frames"])
        for kind in ("fsa", "dense"):
            slope = np.polyfit(x, np.log(m.details[f"{kind}_{quantity}"]), 1)[0]
            assert m.measured[f"{kind}_slope"] == pytest.approx(slope, rel=1e-9)
    m = scaling.measure_flops(cfg, jax.random.key(0))
    s = cfg.scaling
    dim, p = s.heads * s.head_dim, s.tokens_per_frame
    for t, flops, ratio in zip(s.frames, m.details["fsa_flops"], m.details["fsa_compiled_over_analytic"], strict=True):
        useful = 4 * p * p * dim * sum(1 + min(i, s.k) for i in range(t)) + 4 * t * t * dim  # fine + routing/coarse
        assert ratio == pytest.approx(flops / (useful * s.batch)) and ratio >= 1.0


def test_closing_the_coarse_gate_equals_a_model_whose_coarse_branch_is_zero(monkeypatch):
    cfg = FuxViTConfig.tiny(k_frames=1, dim=32, depth=2, num_heads=2, mlp_dim=64)
    clips = jax.random.uniform(jax.random.key(0), (2, 8, 32, 32, 3))
    model = FuxViT(cfg)
    params = jax.jit(model.init)(jax.random.key(1), clips)["params"]
    apply = jax.jit(lambda p, x: model.apply({"params": p}, x)["tokens"])
    with_coarse = apply(params, clips)
    closed = apply(needle.without_coarse_branch(params), clips)
    monkeypatch.setattr(attention, "coarse_branch", lambda logits, vbar: jnp.zeros(vbar.shape, jnp.float32))
    zeroed = jax.jit(lambda p, x: model.apply({"params": p}, x)["tokens"])(params, clips)  # traced anew
    np.testing.assert_allclose(closed, zeroed, atol=1e-6)
    assert float(jnp.max(jnp.abs(with_coarse - zeroed))) > 1e-3  # the coarse branch did contribute
    assert np.all(np.isfinite(np.asarray(closed)))


def test_recall_counts_the_needle_in_the_last_frames_selection_by_brute_force():
    rng = np.random.default_rng(0)
    sel = rng.integers(-1, 6, (2, 5, 3, 6, 2))  # [L, B, N, T, K]
    needle_frame = rng.integers(0, 5, 5)
    rec = needle.recall(sel, needle_frame, k_frames=2, heads=3)
    for layer in range(2):
        hits = [any(needle_frame[b] in sel[layer, b, h, -1].tolist() for h in range(3)) for b in range(5)]
        assert rec["recall_per_layer"][layer] == pytest.approx(np.mean(hits))
    assert rec["chance_recall"] == pytest.approx(1 - (1 - 2 / 5) ** 3)


def test_recall_metrics_in_one_program_equal_the_per_layer_loop():
    rng = np.random.default_rng(1)
    sel = np.sort(rng.integers(-1, 6, (3, 5, 2, 6, 2)), axis=-1).astype(np.int32)  # [L, B, N, T, K], −1 padded
    needle_frame = rng.integers(0, 5, 5)
    rec = needle.recall(sel, needle_frame, k_frames=2, heads=2)
    for layer in range(3):
        assert rec["recall_per_layer"][layer] == float(routing.routing_recall(sel[layer], jnp.asarray(needle_frame)))
        assert rec["entropy_per_layer"][layer] == pytest.approx(float(routing.routing_entropy(sel[layer], 6)), rel=1e-6)


@pytest.mark.slow
def test_f7a_accuracies_equal_a_separate_evaluation(monkeypatch):
    cfg = config_lib.load("fuxvit/needle", "preset=tiny")
    m = needle.measure_routing(cfg, jax.random.key(0))
    fsa, data = studies.trained(cfg, cfg.model.attn_impl), studies.task(cfg)
    x = jnp.asarray(data["eval_set"]["pixels"], jnp.float32) / 255.0
    labels = data["eval_set"]["label"]
    model = classifier(cfg)
    acc_on = np.mean(np.argmax(jax.jit(model.apply)({"params": fsa["params"]}, x)[0], -1) == labels)
    monkeypatch.setattr(attention, "coarse_branch", lambda logits, vbar: jnp.zeros(vbar.shape, jnp.float32))
    acc_off = np.mean(np.argmax(jax.jit(model.apply)({"params": fsa["params"]}, x)[0], -1) == labels)
    assert m.measured["acc_fsa"] == pytest.approx(acc_on)
    assert m.measured["acc_coarse_off"] == pytest.approx(acc_off)
    assert m.predicted["routing_recall_last_layer"] == pytest.approx(1 - (1 - 2 / 7) ** cfg.model.num_heads)
