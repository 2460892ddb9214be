"""Construction A/B, the PadWriter and the diagonal decider against run_tm; the spec's pitfalls as tests."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxpapers.cot_hierarchy as ch
from jaxpapers.core.errors import ConfigError, PrecisionError
from jaxpapers.cot_hierarchy import constructions as cons
from jaxpapers.cot_hierarchy.api import compare, reference_tokens
from jaxpapers.cot_hierarchy.reference import numpy_decode, python_run_tm

_LR = np.zeros((5, 3, 3), np.int64)
_LR[..., 0] = 4
_LR[0, :] = (1, 1, 1)
_LR[1, :] = (2, 2, -1)
_LR[2, 1] = (3, 1, 0)
LR = ch.make_tm(_LR)
# LR on "22": writes 1 and moves right, writes 2 and moves LEFT, then reads its own write at cell 0 and accepts
# (a head b that returns only the last move reads cell −1, a blank, and rejects)


def _decode_tm(tm, xs, ns, t_max, params_of=None, attention="hard", score_dtype="float64"):
    arch, vocab, _ = cons.tm_arch(tm.k, tm.g, attention, score_dtype)
    prompts, lens = cons.tm_prompts(np.asarray(xs), np.asarray(ns), vocab)
    L = ch.transformer.cache_bucket(prompts.shape[-1] + t_max + 1)
    params = cons.build_tm_params(params_of or tm, cons.c_constant(L))
    out = ch.decode(params, arch, prompts, lens, t_max + 1, cache_len=L)
    tr = ch.run_tm_batch(tm.delta[None], np.asarray(xs)[None], np.asarray(ns)[None], t_max)
    return out, reference_tokens(tr, vocab)[0], params, arch, prompts, vocab


@pytest.mark.slow  # several decode programs compile (≈ 10-30 s on 2 loaded cores)
def test_construction_a_matches_trace_on_named_machines():
    with jax.enable_x64(True):
        for tm in (ch.busy_beaver(3), ch.busy_beaver(4)):
            out, ref, *_ = _decode_tm(tm, np.zeros((1, 1), np.int32), np.zeros(1, np.int32), 128)
            assert compare(np.asarray(out["tokens"]), ref).all()
        out, ref, *_ = _decode_tm(ch.unary_double_tm(), np.ones((2, 4), np.int32), np.array([3, 4]), 128)
        assert compare(np.asarray(out["tokens"]), ref).all()
        assert np.all(np.asarray(out["cot_len"]) == np.asarray(ref >= 0).sum(1))


def test_numpy_forward_and_integer_head_positions():
    """Linen decode = NumPy decode; layer-1 outputs h_in, h_in² are the integer head position and its square."""
    with jax.enable_x64(True):
        tm = ch.busy_beaver(3)
        out, ref, params, arch, prompts, vocab = _decode_tm(tm, np.zeros((1, 1), np.int32), np.zeros(1, np.int32), 30)
        npd = numpy_decode(params, arch, prompts[0, :1], 31)
        np.testing.assert_array_equal(npd["tokens"], np.asarray(out["tokens"])[0, : npd["cot_len"]])
        _, _, sl = cons.tm_arch(tm.k, tm.g)
        run = python_run_tm(tm.delta, [], 30)
        heads = np.concatenate([[0], np.cumsum(run["d"])])
        z = npd["residuals"]
        np.testing.assert_allclose(z[:, sl("h_in")], heads[: len(z)], atol=1e-9)
        np.testing.assert_allclose(z[:, sl("hin2")], heads[: len(z)] ** 2, atol=1e-9)
        assert len(arch.layers) == 3 and arch.heads_total == 4


def test_head_b_must_average():
    """A 'last position wins' head b returns only the last move: the left/right machine then reads a wrong cell."""
    with jax.enable_x64(True):
        xs, ns = np.array([[2, 2]]), np.array([2])
        out, ref, params, arch, prompts, _ = _decode_tm(LR, xs, ns, 8)
        assert python_run_tm(LR.delta, [2, 2], 8)["accept"]
        assert compare(np.asarray(out["tokens"]), ref).all()
        _, _, sl = cons.tm_arch(LR.k, LR.g)
        bad = dict(params)
        bad["L0H1_k"] = params["L0H1_k"].at[sl("pos"), 0].set(1.0)
        out2 = ch.decode(bad, arch, prompts, np.array([3]), 9)
        assert not compare(np.asarray(out2["tokens"]), ref).all()


def test_most_recent_write_wins_bb3():
    """A 'first write wins' read score (−j) passes right-moving machines but fails BB(3)."""
    with jax.enable_x64(True):
        tm = ch.busy_beaver(3)
        out, ref, params, arch, prompts, _ = _decode_tm(tm, np.zeros((1, 1), np.int32), np.zeros(1, np.int32), 30)
        _, _, sl = cons.tm_arch(tm.k, tm.g)
        bad = dict(params)
        bad["L2H0_k"] = params["L2H0_k"].at[sl("pos"), 3].set(-1.0)
        out2 = ch.decode(bad, arch, prompts, np.array([1]), 31)
        assert not compare(np.asarray(out2["tokens"]), ref).all()


def test_params_are_the_only_channel():
    """Prompts of machine A decoded with the params of machine B reproduce run_tm(B)."""
    with jax.enable_x64(True):
        a, b = ch.stack_tms([ch.parity_tm(), ch.palindrome_tm()]), None
        pal = ch.pad_machine(ch.palindrome_tm(), a.k, a.g)
        par = ch.pad_machine(ch.parity_tm(), a.k, a.g)
        xs, ns = np.array([[1, 2, 1, 0]]), np.array([3])
        out, ref_pal, *_ = _decode_tm(pal, xs, ns, 40, params_of=pal)
        out_b, ref_b, *_ = _decode_tm(par, xs, ns, 40, params_of=pal)
        np.testing.assert_array_equal(np.asarray(out_b["tokens"]), np.asarray(out["tokens"]))
        assert compare(np.asarray(out_b["tokens"]), ref_pal).all() and b is None


@pytest.mark.slow  # several decode programs compile (≈ 10-30 s on 2 loaded cores)
def test_saturated_attention_gives_identical_tokens():
    with jax.enable_x64(True):
        xs, ns = np.array([[1, 2, 2, 1], [2, 1, 1, 0]]), np.array([4, 3])
        hard, ref, *_ = _decode_tm(ch.palindrome_tm(), xs, ns, 20)
        sat, *_ = _decode_tm(ch.palindrome_tm(), xs, ns, 20, attention="saturated")
        np.testing.assert_array_equal(np.asarray(hard["tokens"]), np.asarray(sat["tokens"]))
        assert compare(np.asarray(sat["tokens"]), ref).all()


@pytest.mark.slow  # several decode programs compile (≈ 10-30 s on 2 loaded cores)
def test_universal_and_simulate_cot():
    out = ch.simulate_cot(ch.busy_beaver(2), [[]], t_max=16, universal=True)
    assert out["trace_match"].all() and out["cot_len"][0] == 7 and out["tm_time"][0] == 6
    out = ch.simulate_cot(ch.parity_tm(), [[1, 2, 1], [1]], t_max=16)
    assert out["trace_match"].all() and list(out["cot_len"]) == [5, 3]
    with pytest.raises(ConfigError, match="input alphabet"):
        ch.simulate_cot(ch.parity_tm(), [[1, 3]])


def test_x64_is_required():
    with pytest.raises(PrecisionError):
        cons.build_tm_params(ch.parity_tm(), 100.0)
    with jax.enable_x64(True):
        arch, vocab, _ = cons.tm_arch(4, 3)
        p = cons.build_tm_params(ch.parity_tm(), 100.0)
    with pytest.raises(PrecisionError):
        ch.decode(p, arch, np.array([[vocab.start]]), np.array([1]), 4)


def test_decode_bad_inputs():
    with jax.enable_x64(True):
        arch, vocab, _ = cons.tm_arch(4, 3)
        p = cons.build_tm_params(ch.parity_tm(), 100.0)
        with pytest.raises(ConfigError, match="expected \\(b, p\\)"):
            ch.decode(p, arch, np.array([vocab.start]), np.array([1]), 4)
        with pytest.raises(ConfigError, match="prompt_lens"):
            ch.decode(p, arch, np.array([[vocab.start]]), np.array([2]), 4)
        with pytest.raises(ConfigError, match="not a parameter"):
            ch.decode(p, arch, np.array([[vocab.start]]), np.array([1]), 4, batched=("nope",))
        with pytest.raises(ConfigError, match="attention"):
            cons.tm_arch(4, 3, attention="sparse")


def _copies_in_loop(hlo: str, shape: str) -> int:
    """Copies of arrays of ``shape`` outside the ENTRY computation (i.e. inside the while body / its fusions)."""
    cur, n = None, 0
    for ln in hlo.splitlines():
        if ln and not ln.startswith(" ") and "{" in ln:
            cur = "ENTRY" if ln.startswith("ENTRY") else ln.split()[0]
        n += cur != "ENTRY" and " copy(" in ln and shape in ln
    return n


def test_decode_loop_updates_cache_in_place():
    """The compiled while loop writes the caches with dynamic-update-slice and never copies them inside the loop
    (a copying loop was 3-4x slower), for shared params and for per-machine (batched) lookup rows."""
    with jax.enable_x64(True):
        arch, vocab, _ = cons.tm_arch(4, 3)
        p = cons.build_tm_params(ch.parity_tm(), 100.0)
        f = ch.transformer._decode_batch
        args = (jnp.zeros((4, 4), jnp.int32), jnp.ones(4, jnp.int32), arch, 8, 96)
        hlo = f.lower(p, *args, ()).compile().as_text()
        assert "dynamic-update-slice" in hlo
        assert _copies_in_loop(hlo, "f64[4,96,") == 0
        stacked = cons.build_tm_params(ch.stack_tms([ch.parity_tm(), ch.parity_tm()]), 100.0)
        hlo = f.lower(stacked, *args, cons.MACHINE_PARAMS).compile().as_text()
        assert _copies_in_loop(hlo, "f64[2,2,96,") == 0


@pytest.mark.slow  # several decode programs compile (≈ 10-30 s on 2 loaded cores)
def test_padwriter_and_diagonal_tiny():
    with jax.enable_x64(True):
        m_pad = ch.pad_tm(ch.palindrome_tm())
        arch, vocab, _ = cons.padwriter_arch(m_pad.k, m_pad.g)
        params = cons.build_padwriter_params(m_pad, (0, 0, 1), cons.c_constant(96))
        xs, ns = np.array([[1, 2, 1], [1, 2, 0], [2, 0, 0]]), np.array([3, 2, 1])
        out = ch.decode(params, arch, xs, ns, 60, cache_len=96)
        toks = np.asarray(out["tokens"])
        assert list(np.asarray(out["answer"])) == [1, 0, 1]
        assert list((toks == vocab.pad).sum(1)) == [6, 2, 0]
        times = [
            python_run_tm(m_pad.delta, list(x[:n]) + [m_pad.g - 1] * (n * n - n), 200)["steps"]
            for x, n in zip(xs, ns, strict=True)
        ]
        assert times[0] == 10  # the palindrome 121: (n+1)(n+2)/2 steps, '#' read as blank
        assert list(np.asarray(out["cot_len"])) == [n * n - n + t + 2 for n, t in zip(ns, times, strict=True)]
        with pytest.raises(ConfigError, match="pad_poly"):
            cons.build_padwriter_params(m_pad, (0, 0.5, 1), 100.0)
        deltas = ch.enumerate_family(6, jax.random.key(3))
        dx, dn = ch.diagonal_inputs(deltas, 2)
        truth = ch.diag_label(deltas, dx, dn, "n")
        darch, dvocab, _ = ch.diagonal_arch(38, "n")
        prompts, lens = cons.tm_prompts(dx, dn, dvocab)
        dout = ch.decode(
            ch.build_diagonal_params(38, "n", cons.c_constant(96)),
            darch,
            prompts.reshape(-1, prompts.shape[-1]),
            lens.ravel(),
            39,
            cache_len=96,
        )
        np.testing.assert_array_equal(np.asarray(dout["answer"]).reshape(dn.shape), truth["label"])
        np.testing.assert_array_equal(np.asarray(dout["cot_len"]).reshape(dn.shape), truth["steps"] + 1)
