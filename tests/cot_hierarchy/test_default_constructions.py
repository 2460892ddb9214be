"""One cheap default-suite test per construction (B, the PadWriter, the diagonal decider), the H5 counter at T = 32
and the read-score dtype (spec: float32 and float64 precision tests)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxpapers.cot_hierarchy as ch
from jaxpapers.cot_hierarchy import constructions as cons
from jaxpapers.cot_hierarchy import transformer as tr
from jaxpapers.cot_hierarchy.config import CostConfig, LengthConfig
from jaxpapers.cot_hierarchy.experiments import cost, lengths, simulate
from jaxpapers.cot_hierarchy.reference import python_run_tm


def test_construction_b_runs_bb2_from_the_table_in_its_prompt():
    """Construction B (one machine-independent parameter set) on BB(2): 6 steps, CoT length 7, trace equal."""
    out = ch.simulate_cot(ch.busy_beaver(2), [[]], t_max=16, universal=True)
    assert out["trace_match"].all() and out["cot_len"][0] == 7 and out["tm_time"][0] == 6
    assert python_run_tm(ch.busy_beaver(2).delta, [], 16)["steps"] == 6


def test_params_hash_sees_weights_and_layout():
    """The hash H3 compares is stable across builds and changes with the weights and with a per-machine axis."""
    with jax.enable_x64(True):
        p1 = cons.build_universal_params(4, 3, 100.0)
        p2 = cons.build_universal_params(4, 3, 100.0)
        assert simulate.params_hash(p1) == simulate.params_hash(p2)
        assert simulate.params_hash(p1) != simulate.params_hash(cons.build_universal_params(4, 3, 101.0))
        stacked = jax.tree.map(lambda a: jnp.stack([a, a]), p1)
        assert simulate.params_hash(stacked) != simulate.params_hash(p1)


def test_padwriter_decides_121_with_n2_minus_n_pads():
    """PadWriter on '121' (p(n) = n²): 6 PADs, accepts, c = n² − n + time + 2 with the time of M_pad."""
    with jax.enable_x64(True):
        m_pad = ch.pad_tm(ch.palindrome_tm())
        arch, vocab, _ = cons.padwriter_arch(m_pad.k, m_pad.g)
        params = cons.build_padwriter_params(m_pad, (0, 0, 1), cons.c_constant(64))
        out = ch.decode(params, arch, np.array([[1, 2, 1]]), np.array([3]), 40, cache_len=64)
        toks = np.asarray(out["tokens"])[0]
        time = python_run_tm(m_pad.delta, [1, 2, 1] + [m_pad.g - 1] * 6, 200)["steps"]
        assert int(np.asarray(out["answer"])[0]) == 1
        assert int((toks == vocab.pad).sum()) == 6
        assert time == 10 and int(np.asarray(out["cot_len"])[0]) == 9 - 3 + time + 2


def test_diagonal_decider_labels_a_small_family():
    """The diagonal decider on 3 enumerated machines × inputs of length ≤ 1 against diag_label (its own clock)."""
    with jax.enable_x64(True):
        deltas = ch.enumerate_family(3, jax.random.key(3))
        dx, dn = ch.diagonal_inputs(deltas, 1)
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


def test_score_counter_at_T32_equals_the_brute_force_sum():
    """H5's counter after T generated tokens (T = 8, 32) equals Σ over the generated queries of the visible keys,
    summed over heads, computed here by a plain loop (prompt positions are not counted)."""
    with jax.enable_x64(True):
        r = cost.op_counts(CostConfig(n=4, ts=(8, 32)))
    h_tot = sum(r["heads"])
    brute = [h_tot * sum(i + 1 for i in range(4, 4 + T)) for T in (8, 32)]
    assert r["counted"].tolist() == brute == r["closed"].tolist()


def test_attend_computes_scores_in_the_dtype_asked_for():
    """Hard attention over two keys whose scores differ by 1 at 2^25: float64 tells them apart (one winner),
    float32 rounds both to the same value (a tie, averaged): the float32 path must really be float32."""
    with jax.enable_x64(True):
        kc = jnp.array([[2.0**25 + 2.0], [2.0**25]], jnp.float64)
        vc = jnp.array([[1.0], [0.0]], jnp.float64)
        q = jnp.array([1.0], jnp.float64)
        out64, n64 = tr._attend(q, kc, vc, 1, "hard", "float64")
        out32, _ = tr._attend(q, kc, vc, 1, "hard", "float32")
        assert float(out64[0]) == 1.0 and int(n64) == 2
        assert float(out32[0]) == 0.5


def test_traced_program_uses_the_labelled_score_dtype():
    """score_dot_dtypes: float64 arch has no float32 product, float32 arch has one (what H7 checks)."""
    with jax.enable_x64(True):
        tm = ch.palindrome_tm()
        found = {}
        for d in ("float64", "float32"):
            arch, _, _ = cons.tm_arch(tm.k, tm.g, score_dtype=d)
            params = cons.build_tm_params(tm, cons.c_constant(32))
            found[d] = tr.score_dot_dtypes(params, arch, np.zeros((1, 32), np.int32))
    assert found["float64"] == {"float64"}
    assert "float32" in found["float32"]


@pytest.mark.slow  # two 3456-long teacher-forced scans (≈ 10-20 s on 2 loaded cores)
def test_float32_wrong_at_80_and_float64_exact_at_64():
    """Spec tests: float32 scores give ≥ 1 wrong read on a palindrome at n = 80; float64 gives 0 at n = 64 and 80."""
    with jax.enable_x64(True):
        st = lengths.precision_study(LengthConfig(precision_ns=(64, 80)), jax.random.key(0))
    assert st["float64"].tolist() == [0, 0]
    assert st["float32"][1] >= 1
    assert "float32" in st["dtypes"]["float32"] and "float32" not in st["dtypes"]["float64"]
