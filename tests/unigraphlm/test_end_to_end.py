"""A tiny forward pass through every module of the pipeline on the generated suite, and one Stage-B step.

The trained stages (LM pretraining, Stage A, supervised encoder) are not assembled yet; this checks the parts
they will join: shapes, the frozen-LM hash, leakage by sample ids, and that one projector step lowers the
Stage-B answer loss (answer tokens only) while the LM's parameters stay bit-identical.
"""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxpapers.core.nn.graph import GraphBatch
from jaxpapers.unigraphlm.config import DataConfig
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
