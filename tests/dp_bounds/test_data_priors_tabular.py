"""Procedural data, loaders (good and malformed files), priors/κ against brute force, marginals and sensitivities."""

import itertools
import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxpapers.core.errors import ConfigError
from jaxpapers.dp_bounds import attack_tabular, data_tabular, data_text, marginals, priors


def test_records_and_encoding():
    cands = data_text.password_candidates(256, 0)
    assert len(set(cands)) == 256 and max(len(c) for c in cands) <= 10
    rng = np.random.default_rng(0)
    pri = data_text.make_priors(256, 1.0, rng)
    np.testing.assert_allclose(pri.sum(1), 1.0)
    assert pri[0].max() == pytest.approx(1 / sum(1 / np.arange(1, 257)))  # κ_exact = 1/H_K
    pub = data_text.draw_population(40, cands, pri, rng)
    priv = data_text.draw_population(20, cands, pri, rng, taken=set(pub.names))
    assert not set(pub.names) & set(priv.names) and len(set(priv.names)) == 20
    assert priv.group.tolist() == [0] * 10 + [1] * 10
    texts = [data_text.record_text(n, cands[s]) for n, s in zip(priv.names, priv.secret, strict=True)]
    assert max(len(t) for t in texts) <= 42
    x, y, m = data_text.encode(texts, 44)
    assert x[0, 0] == data_text.BOS and bytes(y[0, : m[0].sum()].astype(np.uint8)).decode() == texts[0]
    assert (x[:, 1:] == y[:, :-1]).all()
    src = data_text.RecordSource(texts, 44)
    assert len(src) == 20 and set(src[3]) == {"x", "y", "mask"}
    with pytest.raises(ConfigError, match="texts\\[0\\] has 50 bytes"):
        data_text.encode(["a" * 50], 44)


def test_pii_jsonl_loader(tmp_path):
    good = tmp_path / "c.jsonl"
    good.write_text(json.dumps({"text": "call 415-372-9081", "pii": [{"type": "phone", "start": 5, "end": 17}]}) + "\n")
    assert load(good)[0]["pii"][0]["type"] == "phone"
    bad = tmp_path / "b.jsonl"
    for line, msg in [
        ("{not json", "not valid JSON"),
        (json.dumps({"txt": "x"}), 'field "text"'),
        (json.dumps({"text": "ab", "pii": [{"type": "phone", "start": 0, "end": 9}]}), "out of range"),
        (json.dumps({"text": "ab", "pii": [{"type": "ssn", "start": 0, "end": 1}]}), "type='ssn'"),
    ]:
        bad.write_text(line + "\n")
        with pytest.raises(ConfigError, match=msg):
            load(bad)
    with pytest.raises(ConfigError, match="does not exist"):
        load(tmp_path / "missing.jsonl")


def load(p):
    return data_text.load_pii_jsonl(p)


def test_csv_loader(tmp_path):
    schema = {
        "columns": {
            "sex": {"domain": ["F", "M"], "role": "public"},
            "age": {"domain": ["a", "b", "c"], "role": "public"},
            "inc": {"domain": ["lo", "hi"], "role": "secret"},
        }
    }
    (tmp_path / "s.json").write_text(json.dumps(schema))
    (tmp_path / "t.csv").write_text("sex,age,inc\nF,b,hi\nM,c,lo\n")
    pub, sec, names = data_tabular.load_csv_table(tmp_path / "t.csv", tmp_path / "s.json")
    np.testing.assert_array_equal(pub, [[0, 0, 1, 0], [1, 0, 0, 1]])
    np.testing.assert_array_equal(sec, [[1], [0]])
    assert names[0] == "sex=M"
    (tmp_path / "t.csv").write_text("sex,age,inc\nF,z,hi\n")
    with pytest.raises(ConfigError, match="column 'age' has value 'z'"):
        data_tabular.load_csv_table(tmp_path / "t.csv", tmp_path / "s.json")
    schema["columns"]["inc"]["role"] = "hidden"
    (tmp_path / "s.json").write_text(json.dumps(schema))
    with pytest.raises(ConfigError, match="role"):
        data_tabular.load_csv_table(tmp_path / "t.csv", tmp_path / "s.json")


def test_baseline_kappa_against_brute_force():
    p = priors.zipf_prior(50, 1.0, np.random.default_rng(0))
    assert priors.baseline_kappa(p, "exact") == pytest.approx(p.max())
    assert priors.baseline_kappa(p, "topk", k=10) == pytest.approx(np.sort(p)[-10:].sum())
    sup = ["abc", "abd", "xyz", "abx"]
    q = np.array([0.3, 0.3, 0.3, 0.1])
    assert priors.baseline_kappa(q, "edit", radius=1, support=sup) == pytest.approx(0.7)
    bits = np.array([0.9, 0.2, 0.6, 0.5, 0.05, 0.7])
    best = np.maximum(bits, 1 - bits)
    for t in (6, 5, 3):
        ref = sum(np.prod(np.where(b, best, 1 - best)) for b in itertools.product([0, 1], repeat=6) if sum(b) >= t)
        assert priors.baseline_kappa(bits, "bits", t=t) == pytest.approx(ref, abs=1e-12)
        # guessing the mode is optimal: brute force over every guess
        brute = max(
            sum(
                np.prod(np.where(np.array(z), bits, 1 - bits))
                for z in itertools.product([0, 1], repeat=6)
                if sum(np.array(z) == np.array(g)) >= t
            )
            for g in itertools.product([0, 1], repeat=6)
        )
        assert ref == pytest.approx(brute, abs=1e-12)
    with pytest.raises(ConfigError, match="predicate='regex'"):
        priors.baseline_kappa(p, "regex")
    with pytest.raises(ConfigError, match="sums to"):
        priors.baseline_kappa(np.array([0.5, 0.6]))


def test_marginals_count_and_sensitivities():
    t = data_tabular.synthetic_table(10, 4, 2, 0)
    full = np.concatenate([t.public, t.secret], 1)
    tri = marginals.triples(6)
    m = np.asarray(marginals.marginals(full, tri))
    for j, (a, b, c) in enumerate(tri):
        for u, v, w in itertools.product([0, 1], repeat=3):
            assert m[j, u, v, w] == np.sum((full[:, a] == u) & (full[:, b] == v) & (full[:, c] == w))
    s_add, s_rep = marginals.sensitivities(4, 2)
    m_minus = np.asarray(marginals.marginals(full[1:], tri))
    assert np.linalg.norm(m - m_minus) == pytest.approx(s_add)
    worst = 0.0
    for sec in itertools.product([0.0, 1.0], repeat=2):  # replace row 0's secret by every alternative
        f2 = full.copy()
        f2[0, 4:] = sec
        worst = max(worst, np.linalg.norm(m - np.asarray(marginals.marginals(f2, tri))))
    assert worst <= s_rep + 1e-9 and s_rep > s_add


def test_reconstruct_noiseless_beats_prior():
    t = data_tabular.synthetic_table(16, 5, 2, 1)
    tri = marginals.secret_triples(5, 2)
    full = np.concatenate([t.public, t.secret], 1).astype(np.float32)
    noisy = jnp.asarray(marginals.marginals(full, tri))[None]
    init = jnp.asarray(np.random.default_rng(0).standard_normal((1, 2, 16, 2)), jnp.float32)
    guess, objs = attack_tabular.reconstruct(
        init,
        jnp.asarray(t.public, jnp.float32),
        jnp.asarray(t.prior, jnp.float32),
        noisy,
        jnp.asarray(tri),
        jnp.zeros(1),
        steps=150,
    )
    ex, _ = attack_tabular.row_success(guess[0], jnp.asarray(t.secret, jnp.float32), 1)
    mode_ex, _ = attack_tabular.row_success(
        jnp.asarray(t.prior > 0.5, jnp.float32), jnp.asarray(t.secret, jnp.float32), 1
    )
    assert float(ex.mean()) > float(mode_ex.mean()) and objs.shape == (1, 2)
    jax.block_until_ready(guess)
