"""Spectral-contrastive embeddings of diffusion similarity (HaoChen, Wei, Gaidon & Ma 2021, on the walk kernel).

Positive pairs x ~ π, x⁺ ~ P_L^t(x, ·) (a t-step lazy walk); negatives are independent draws from π (the other
pairs of the batch). The spectral contrastive loss of f: V → ℝ^k is

    ℒ(f) = −2·E_{(x, x⁺)}[f(x)ᵀ f(x⁺)] + E_{x, x′ ~ π}[(f(x)ᵀ f(x′))²].

Closed form: with F [n, k] the embedding table and G = D_π^{1/2} F,
E[f(x)ᵀf(x⁺)] = Σ_{u,v} π(u) P_L^t(u, v) f(u)ᵀf(v) = tr(Gᵀ N_t G) and E[(f(x)ᵀf(x′))²] = ‖GᵀG‖_F², so

    ℒ = ‖G Gᵀ − N_t‖_F² − ‖N_t‖_F²,      N_t = D_π^{1/2} P_L^t D_π^{−1/2}  (symmetric PSD, eigenvalues μ_i),

minimised by the rank-k Eckart–Young truncation: f(u)ᵀf(v) = [S_t^{(k)}](u, v), ℒ* = −Σ_{i≤k} μ_i², and the
error ‖G Gᵀ − N_t‖_F ≥ (Σ_{i>k} μ_i²)^{1/2}.

Minibatch estimator (B pairs, in-batch negatives (x_i, x⁺_j), i ≠ j; x⁺_j ~ π by stationarity):

    ℒ̂ = −(2/B) Σ_i f_iᵀ g_i + [⟨FᵀF, GᵀG⟩_F − Σ_i (f_iᵀ g_i)²] / (B(B − 1)),

with F, G the B × k embeddings of x and x⁺: Σ_{i,j} (f_iᵀ g_j)² = ⟨FᵀF, GᵀG⟩_F costs O(Bk²), not the O(B²k)
Gram (it is not ‖FᵀG‖_F²). x ~ π is the owner of a uniformly random edge stub (one ``randint``).

Several runs (graphs, dimensions) train in ONE program: every table has ``k_max`` columns and a run of
dimension k masks the columns past k (their gradient is 0, so Adam never moves them).
"""

from __future__ import annotations

import functools

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float, Int
from threadpoolctl import threadpool_limits

from jaxpapers.core import sim
from jaxpapers.core.checks import check_range
from jaxpapers.core.errors import ConfigError
from jaxpapers.core.train import OptimConfig, make_optimizer, make_seed_trainer
from jaxpapers.selfplay_proving.diffusion import GraphLike, stationary, walk_kernel
from jaxpapers.selfplay_proving.graphs import Graph, pad


class EmbedNet(nn.Module):
    """f: V → ℝ^k as an embedding table (``nn.Embed(n, k)``), init N(0, 1) (scaled by the caller: N(0, s²/k))."""

    n: int
    k: int

    @nn.compact
    def __call__(self, x: Int[Array, " b"]) -> Float[Array, "b k"]:
        return nn.Embed(self.n, self.k, embedding_init=nn.initializers.normal(1.0), name="table")(x)


def stub_owners(g: Graph, length: int | None = None) -> tuple[np.ndarray, int]:
    """The owner of every edge stub (node v repeated deg(v) times, 2|E| entries), padded to ``length``."""
    deg = np.asarray(g.deg)
    src = np.repeat(np.arange(deg.size, dtype=np.int32), deg)
    length = src.size if length is None else int(length)
    if length < src.size:
        raise ConfigError(f"length={length} is below the {src.size} edge stubs")
    return np.concatenate([src, np.zeros(length - src.size, np.int32)]), int(src.size)


def lazy_walk_jax(nbr, deg, x: Int[Array, " b"], key: jax.Array, t: int) -> Int[Array, " b"]:
    """t lazy-walk steps from every x (stay with probability ½, else a uniform neighbour)."""
    for i in range(t):
        kc, kn = jax.random.split(jax.random.fold_in(key, i))
        stay = jax.random.uniform(kc, x.shape) < 0.5
        d = deg[x]
        j = jnp.clip(jnp.floor(jax.random.uniform(kn, x.shape) * d).astype(jnp.int32), 0, jnp.maximum(d - 1, 0))
        x = jnp.where(stay, x, nbr[x, j])
    return x


def sample_pairs(key: jax.Array, data: dict, t: int, batch: int) -> tuple[Int[Array, " b"], Int[Array, " b"]]:
    """``batch`` positive pairs: x ~ π (the owner of a uniform edge stub), x⁺ = a t-step lazy walk from x.
    ``data``: ``nbr``, ``deg``, ``src`` (stub owners) and ``stubs`` (their number)."""
    k1, k2 = jax.random.split(key)
    x = data["src"][jax.random.randint(k1, (batch,), 0, data["stubs"])]
    return x, lazy_walk_jax(data["nbr"], data["deg"], x, k2, t)


def estimator(F: Float[Array, "b k"], G: Float[Array, "b k"]) -> Float[Array, ""]:
    """The O(Bk²) minibatch spectral contrastive loss ℒ̂ of embeddings F = f(x), G = f(x⁺) (module docstring)."""
    b = F.shape[0]
    pos = jnp.sum(F * G, axis=1)
    cross = jnp.sum((F.T @ F) * (G.T @ G)) - jnp.sum(pos**2)
    return -2.0 * jnp.mean(pos) + cross / (b * (b - 1))


def naive_estimator(F: Float[Array, "b k"], G: Float[Array, "b k"]) -> Float[Array, ""]:
    """The same estimator through the B × B Gram (O(B²k); the reference the tests compare with)."""
    b = F.shape[0]
    gram = F @ G.T
    off = ~jnp.eye(b, dtype=bool)
    return -2.0 * jnp.mean(jnp.diag(gram)) + jnp.sum(jnp.where(off, gram**2, 0.0)) / (b * (b - 1))


def spectral_contrastive_loss(params, x: Int[Array, " b"], x_pos: Int[Array, " b"], mask: Float[Array, " k"]):
    """ℒ̂ of the table ``params`` on pairs (x, x⁺) with in-batch negatives; ``mask`` zeroes unused columns."""
    table = params["table"]["embedding"] * mask[None, :]
    return estimator(table[x], table[x_pos])


def population_loss(F: Float[ArrayLike, "n k"], A: GraphLike, t: int) -> float:
    """The exact population loss ℒ(F) = ‖G Gᵀ − N_t‖_F² − ‖N_t‖_F², G = D_π^{1/2}F (dense, float64)."""
    F = np.asarray(F, np.float64)
    n_t = walk_kernel(A, t)
    G = np.sqrt(stationary(A))[:, None] * F
    with threadpool_limits(1):
        gram = G.T @ G
        return float(np.sum(gram**2) - 2.0 * np.trace(G.T @ n_t @ G))


def embedding_error(F: Float[ArrayLike, "n k"], A: GraphLike, t: int) -> float:
    """‖D_π^{1/2}(F Fᵀ − S_t) D_π^{1/2}‖_F = ‖G Gᵀ − N_t‖_F."""
    F = np.asarray(F, np.float64)
    G = np.sqrt(stationary(A))[:, None] * F
    return float(np.linalg.norm(G @ G.T - walk_kernel(A, t)))


def closed_form_embedding(A: GraphLike, t: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The rank-k minimiser F = D_π^{−1/2} U_k diag(μ_k)^{1/2} and the full spectrum μ (decreasing) of N_t."""
    n_t = walk_kernel(A, t)
    check_range("k", k, 1, n_t.shape[0])
    with threadpool_limits(1):
        mu, U = np.linalg.eigh(n_t)
    mu, U = np.clip(mu[::-1], 0.0, None), U[:, ::-1]
    F = U[:, :k] * np.sqrt(mu[:k])[None, :] / np.sqrt(stationary(A))[:, None]
    return F, mu


@functools.cache
def _trainer(n: int, k_max: int, t: int, batch: int, steps: int, lr: float, chunk: int | None):
    net = EmbedNet(n, k_max)
    tx = make_optimizer(OptimConfig(lr=lr, schedule="cosine"), steps)

    def init_params(key, data):
        p = net.init(key, jnp.zeros((1,), jnp.int32))["params"]
        return jax.tree.map(lambda w: w * data["scale"], p)

    def loss_fn(params, batch_, key, *, train):
        del key, train
        return spectral_contrastive_loss(params, batch_["x"], batch_["x_pos"], batch_["mask"]), {}

    def sample(key, data):
        x, xp = sample_pairs(key, data, t, batch)
        return {"x": x, "x_pos": xp, "mask": data["mask"]}

    return make_seed_trainer(
        init_params, loss_fn, tx, sample, steps=steps, chunk_size=chunk, compiler_options=sim.fast_compile_options(1)
    )


def train(
    graphs: list[Graph],
    ks: list[int],
    *,
    t: int,
    steps: int,
    batch: int = 1024,
    lr: float = 1e-2,
    init_scale: float = 0.1,
    seed: int = 0,
    k_max: int | None = None,
) -> tuple[list[np.ndarray], np.ndarray]:
    """Trains one embedding per (graph, k) in one compiled program (vmapped runs, each a ``lax.scan`` of Adam
    steps, cosine decay). Returns the tables ``[n_i, k_i]`` and the per-step minibatch losses ``[runs, steps]``.
    Graphs are padded to a common shape; pass ``k_max`` to share the program across calls."""
    if len(graphs) != len(ks) or not graphs:
        raise ConfigError(f"train: {len(graphs)} graphs for {len(ks)} dimensions; need one k per graph")
    k_max = max(ks) if k_max is None else int(k_max)
    check_range("ks", list(ks), 1, k_max)
    check_range("steps", steps, 1)
    check_range("batch", batch, 2)
    n = max(g.n for g in graphs)
    d = max(np.shape(g.nbr)[1] for g in graphs)
    stubs_len = max(int(np.sum(g.deg)) for g in graphs)
    rows = []
    for g, k in zip(graphs, ks, strict=True):
        p = pad(g, n, d)
        src, stubs = stub_owners(g, stubs_len)
        rows.append(
            dict(
                nbr=p.nbr,
                deg=p.deg,
                src=src,
                stubs=np.int32(stubs),
                mask=(np.arange(k_max) < k).astype(np.float32),
                scale=np.float32(init_scale / np.sqrt(k)),
            )
        )
    data = {key: jnp.asarray(np.stack([r[key] for r in rows])) for key in rows[0]}
    keys = jax.random.split(jax.random.key(seed), len(graphs))
    run = _trainer(n, k_max, int(t), int(batch), int(steps), float(lr), None)
    res = run(keys, data)
    tables = np.asarray(res.params["table"]["embedding"], np.float64)
    out = [tables[i, : g.n, :k] for i, (g, k) in enumerate(zip(graphs, ks, strict=True))]
    return out, np.asarray(res.losses)
