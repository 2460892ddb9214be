"""A tiny forward pass through every module of the pipeline and one Stage-B step (shapes, the frozen-LM hash,
leakage by sample ids, one projector step lowers the answer loss); then the whole trained pipeline at the
``tiny`` preset, every stage for a few steps, and each trained claim's measured value against the raw study."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxpapers.core.config import to_dataclass
from jaxpapers.core.nn.graph import GraphBatch
from jaxpapers.unigraphlm.config import DataConfig, StudyConfig
from jaxpapers.unigraphlm.data.synthetic import make_tag_suite, stage_a_pairs
from jaxpapers.unigraphlm.losses import answer_nll
from jaxpapers.unigraphlm.models.glm import UniGraphLM
from jaxpapers.unigraphlm.models.gnn import GraphEncoder
from jaxpapers.unigraphlm.models.lm import TinyDecoderLM, param_hash
from jaxpapers.unigraphlm.models.projector import GraphTokenProjector

CFG = DataConfig(n_citation=20, n_pretrain=20, n_social=20, n_molecules=20, links_per_dataset=20, corpus_size=50)


def _graph(f):
    n = f["node_mask"].shape[0]
    return GraphBatch(nodes=f["nodes"], senders=f["senders"], receivers=f["receivers"], node_mask=f["node_mask"],
                      edge_mask=f["edge_mask"], node_graph=jnp.zeros(n, jnp.int32), graph_mask=jnp.ones(1, bool))


@pytest.mark.slow  # 75 s at load 15 on 2 cores: compiles the encoder, the LM and a Stage-B step
def test_every_module_joins_and_one_stage_b_step_lowers_the_loss():
    suite = make_tag_suite(CFG, 0)
    inst = suite.instructions
    sel = np.flatnonzero(inst.split == 0)[:16]
    assert not any(str(i).startswith("c2/") for i in inst.ids[sel])
    assert not any(str(i).startswith("c2/") for i in stage_a_pairs(suite, "strict").ids)
    fields = {k: jnp.asarray(v[sel]) for k, v in inst.graph.items()}
    enc = GraphEncoder(d_g=16, layers=2)
    one = {k: v[0] for k, v in fields.items()}
    theta = enc.init(jax.random.key(0), _graph(one), one["role"], one["noi"], one["ring"])
    z = jax.jit(jax.vmap(lambda f: enc.apply(theta, _graph(f), f["role"], f["noi"], f["ring"])))(fields)
    assert z.shape == (16, 3, 16) and bool(jnp.all(jnp.isfinite(z)))

    lm = TinyDecoderLM(len(suite.vocab), 16, layers=1, heads=2, context=CFG.context)
    lm_params = lm.init(jax.random.key(1), jnp.zeros((1, CFG.context, 16)), jnp.ones((1, CFG.context), bool))
    emb = np.asarray(lm_params["params"]["embed"]["embedding"])
    proj = GraphTokenProjector(4, 16, float(np.median(np.linalg.norm(emb, axis=1))))
    phi = proj.init(jax.random.key(2), z)
    glm = UniGraphLM(lm, lm_params, proj)
    before = param_hash(lm_params)

    tokens = jnp.asarray(inst.tokens[sel])
    pos = jnp.asarray(inst.extra["answer_pos"][sel])
    answer = jnp.asarray(inst.extra["answer"][sel])
    targets = jnp.roll(tokens, -1, axis=1)  # logits[:, j] predicts tokens[:, j + 1]
    mask = jnp.arange(CFG.context)[None] == pos[:, None]  # answer tokens only
    assert bool(jnp.all(jnp.take_along_axis(targets, pos[:, None], 1)[:, 0] == answer))

    def loss(p):
        return answer_nll(glm.logits(p, tokens, z), targets, mask)[0]

    opt = optax.adamw(3e-2)

    @jax.jit
    def step(p, s):
        val, g = jax.value_and_grad(loss)(p)
        u, s = opt.update(g, s, p)
        return optax.apply_updates(p, u), s, val

    p, s, l0 = step(phi, opt.init(phi))
    l1 = loss(p)
    assert float(l1) < float(l0)
    assert param_hash(glm.lm_params) == before
    scores = glm.score_candidates(p, tokens, z, pos, jnp.asarray(inst.extra["cands"][sel]))
    assert scores.shape == (16, 5) and bool(jnp.all(jnp.isfinite(scores.max(1))))


@pytest.mark.slow  # every stage at the tiny preset: ≈ 150 s at load 7 on 2 cores (compilation)
def test_tiny_pipeline_runs_every_stage_and_each_claim_measures():
    from jaxpapers.core import config, memo
    from jaxpapers.unigraphlm.experiments import pipeline as P

    memo.clear()
    cfg = config.load("unigraphlm/pipeline", "preset=tiny")
    r = P.study(cfg, 0)
    runs = P.stage_b_runs(to_dataclass(StudyConfig, cfg.study))
    assert r["correct"].shape[0] == len(runs) and r["correct"].shape[1] == len(r["test_bucket"])
    assert r["served"].shape == (len(runs), 6)
    np.testing.assert_array_equal(r["served"].sum(1), cfg.align.steps * cfg.align.batch)  # same sample count
    assert r["losses"]["stage_b"].shape == (len(runs), cfg.align.steps)
    assert all(np.isfinite(v).all() for v in r["losses"].values())
    assert set(r["distinct_texts"].values()) == {cfg.study.retrieval_candidates}
    m1 = P.measure_u1(cfg, None)
    c2 = r["test_bucket"] == P.C2
    a, b = (P.run_index(runs, e, "curriculum", 0) for e in (0, 1))
    assert m1.measured["gap"] == pytest.approx(r["correct"][a, c2].mean() - r["correct"][b, c2].mean())
    assert m1.measured["gap_ci_low"] <= m1.measured["gap"] + 1e-12
    m5 = P.measure_u5(cfg, None)
    assert set(m5.measured) == {"min_drop", "max_shuffled_abs_minus_chance"}
    for fn in (P.measure_u2, P.measure_u3, P.measure_u6):
        m = fn(cfg, None)
        assert all(np.isfinite(v) for v in m.measured.values()), (fn.__name__, m.measured)
    assert memo.shared("unigraphlm/pipeline", *P.configs(cfg), 0, fn=lambda: None) is r  # one study per seed
