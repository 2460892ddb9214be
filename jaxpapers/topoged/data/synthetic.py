"""Offline stand-ins: deterministic churn generators emitting timestamped events (spec, Data).

Every generator returns an :class:`EventStream` (one day per snapshot, uniform times inside the day) that goes
through the same snapshot builder as real data. ``pa_churn`` is pinned (its parameters are the prototype's);
the others follow the spec's descriptions with our parameters.
"""

from __future__ import annotations

import numpy as np

from jaxpapers.topoged.config import HubExchangeConfig, PaChurnConfig
from jaxpapers.topoged.data.events import EventStream

DAY = 86400.0


def _emit(per_snapshot: list[list[tuple[int, int]]], rng: np.random.Generator) -> EventStream:
    src, dst, ts = [], [], []
    for t, edges in enumerate(per_snapshot):
        for u, v in edges:
            src.append(u)
            dst.append(v)
            ts.append(t * DAY + rng.uniform(0.0, DAY))
    return EventStream(np.array(src, np.int64), np.array(dst, np.int64), np.array(ts))


def _add(edges: set, u: int, v: int) -> bool:
    if u == v:
        return False
    e = (min(u, v), max(u, v))
    if e in edges:
        return False
    edges.add(e)
    return True


def _choose(rng: np.random.Generator, items: list[int]) -> int:
    return items[int(rng.integers(len(items)))]


def pa_churn(cfg: PaChurnConfig | None = None, seed: int = 0) -> EventStream:
    """Preferential attachment with churn (the spec's pinned parameters).

    Active set A_t: endpoints of G_{t−1} stay w.p. ``stay``; dormant nodes (last seen ≤ ``dormant_window`` ago)
    return w.p. ``return_prob``; Poisson(``arrivals``) fresh nodes arrive, each with one edge (to a uniform
    top-``top_frac`` active node by cumulative degree w.p. ``p_hub``, to another arrival w.p. ``p_arrival``,
    else to a uniform active node). Then edges are added until m_t = round(edge_factor·(|A_t| + arrivals)·
    (1 + ar_scale·a_t)), a_t = ar·a_{t−1} + N(0, 1): w.p. ``p_bank`` a uniform bank edge (last ``bank_window``
    snapshots) with both endpoints active, else an active pair drawn ∝ cumulative degree + 1.
    """
    cfg = cfg or PaChurnConfig()
    rng = np.random.default_rng(seed)
    cum = np.zeros(0, np.int64)
    last_seen: dict[int, int] = {}
    history: list[set] = []
    out: list[list[tuple[int, int]]] = []
    n_total, a = 0, 0.0
    prev_nodes: list[int] = []
    for t in range(cfg.n_snapshots):
        a = cfg.ar * a + rng.normal()
        if t == 0:
            active, arrivals = list(range(cfg.n_init)), []
            n_total = cfg.n_init
        else:
            active = [v for v in prev_nodes if rng.random() < cfg.stay]
            prev = set(prev_nodes)
            dormant = sorted(v for v, s in last_seen.items() if v not in prev and t - s <= cfg.dormant_window)
            active += [v for v in dormant if rng.random() < cfg.return_prob]
            n_arr = int(rng.poisson(cfg.arrivals))
            arrivals = list(range(n_total, n_total + n_arr))
            n_total += n_arr
        cum = np.concatenate([cum, np.zeros(n_total - len(cum), np.int64)])
        edges: set = set()
        if active and arrivals:
            order = sorted(active, key=lambda v: (-cum[v], v))
            top = order[: max(1, int(np.ceil(cfg.top_frac * len(active))))]
            for i, v in enumerate(arrivals):
                r = rng.random()
                if r < cfg.p_hub:
                    _add(edges, v, _choose(rng, top))
                elif r < cfg.p_hub + cfg.p_arrival and len(arrivals) > 1:
                    others = arrivals[:i] + arrivals[i + 1 :]
                    _add(edges, v, _choose(rng, others))
                else:
                    _add(edges, v, _choose(rng, active))
        m_t = int(round(cfg.edge_factor * (len(active) + len(arrivals)) * (1.0 + cfg.ar_scale * a)))
        act_set = set(active)
        bank = sorted({e for h in history[-cfg.bank_window :] for e in h if e[0] in act_set and e[1] in act_set})
        if len(active) >= 2:
            act = np.array(active)
            w = cum[act] + 1.0
            p = w / w.sum()
            tries = 0
            while len(edges) < m_t and tries < 20 * m_t + 100:
                tries += 1
                if bank and rng.random() < cfg.p_bank:
                    _add(edges, *bank[int(rng.integers(len(bank)))])
                else:
                    u, v = rng.choice(act, size=2, p=p)
                    _add(edges, int(u), int(v))
        es = sorted(edges)
        for u, v in es:
            cum[u] += 1
            cum[v] += 1
        nodes = sorted({x for e in es for x in e})
        for v in nodes:
            last_seen[v] = t
        prev_nodes = nodes
        history.append(set(es))
        out.append(es)
    return _emit(out, rng)


def hub_exchange(cfg: HubExchangeConfig | None = None, seed: int = 0) -> EventStream:
    """Persistent hubs that arrivals attach to (the ERC20 regime: many old–new edges).

    Hubs 0..n_hubs−1 are active every snapshot; other endpoints of G_{t−1} stay w.p. ``stay``; Poisson(arrivals)
    fresh nodes each send one edge to a uniform hub w.p. ``p_hub``, to an earlier arrival w.p. ``p_arrival``,
    else to a uniform active node; then
    ``extra_edges``·|active| old–old edges: a bank edge (last 5 snapshots) w.p. ``p_bank``, else a uniform
    active node to a uniform hub.
    """
    cfg = cfg or HubExchangeConfig()
    rng = np.random.default_rng(seed)
    hubs = list(range(cfg.n_hubs))
    n_total = cfg.n_hubs + cfg.n_init
    prev_nodes = list(range(n_total))
    history: list[set] = []
    out = []
    for t in range(cfg.n_snapshots):
        others = [v for v in prev_nodes if v >= cfg.n_hubs and (t == 0 or rng.random() < cfg.stay)]
        active = hubs + others
        n_arr = int(rng.poisson(cfg.arrivals)) if t else 0
        arrivals = list(range(n_total, n_total + n_arr))
        n_total += n_arr
        edges: set = set()
        for i, v in enumerate(arrivals):
            r = rng.random()
            if r < cfg.p_hub:
                _add(edges, v, _choose(rng, hubs))
            elif r < cfg.p_hub + cfg.p_arrival and i:
                _add(edges, v, _choose(rng, arrivals[:i]))
            else:
                _add(edges, v, _choose(rng, active))
        if t == 0:
            for v in others:
                _add(edges, v, _choose(rng, hubs))
        act_set = set(active)
        bank = sorted({e for h in history[-5:] for e in h if e[0] in act_set and e[1] in act_set})
        for _ in range(int(round(cfg.extra_edges * len(active)))):
            if bank and rng.random() < cfg.p_bank:
                _add(edges, *bank[int(rng.integers(len(bank)))])
            else:
                _add(edges, _choose(rng, others or hubs), _choose(rng, hubs))
        es = sorted(edges)
        prev_nodes = sorted({x for e in es for x in e})
        history.append(set(es))
        out.append(es)
    return _emit(out, rng)


def sbm_drift(n_snapshots: int = 40, seed: int = 0, *, n_blocks: int = 4, block_size: int = 40) -> EventStream:
    """Four-block SBM with drifting block sizes and p_in(t) = 0.08(1 + 0.3 sin(2πt/30)), p_out = 0.01, under the
    churn process of ``pa_churn`` (members stay w.p. 0.7, fresh members replace the others)."""
    rng = np.random.default_rng(seed)
    members = [list(range(b * block_size, (b + 1) * block_size)) for b in range(n_blocks)]
    n_total = n_blocks * block_size
    out = []
    for t in range(n_snapshots):
        p_in = 0.08 * (1 + 0.3 * np.sin(2 * np.pi * t / 30))
        if t:
            for b in range(n_blocks):
                size = max(4, int(round(block_size * (1 + 0.3 * np.sin(2 * np.pi * (t + 7 * b) / 40)))))
                kept = [v for v in members[b] if rng.random() < 0.7]
                n_new = max(0, size - len(kept))
                members[b] = kept + list(range(n_total, n_total + n_new))
                n_total += n_new
        nodes = [(v, b) for b in range(n_blocks) for v in members[b]]
        ids = np.array([v for v, _ in nodes])
        blk = np.array([b for _, b in nodes])
        p = np.where(blk[:, None] == blk[None, :], p_in, 0.01)
        hit = np.triu(rng.random(p.shape) < p, 1)
        iu, iv = np.nonzero(hit)
        out.append(sorted(zip(ids[iu].tolist(), ids[iv].tolist(), strict=True)))
    return _emit(out, rng)


def forest_fire_churn(n_snapshots: int = 40, seed: int = 0, *, arrivals: float = 30.0, burn: float = 0.35,
                      inactive_after: int = 3) -> EventStream:
    """Forest-fire growth (forward burning probability ``burn``) with deletion of nodes inactive for more than
    ``inactive_after`` snapshots; each snapshot holds the edges created that day plus a re-activation of 30% of
    the previous day's edges."""
    rng = np.random.default_rng(seed)
    adj: dict[int, set] = {0: {1}, 1: {0}}
    last: dict[int, int] = {0: 0, 1: 0}
    n_total, prev = 2, [(0, 1)]
    out = []
    for t in range(n_snapshots):
        edges: set = {e for e in prev if rng.random() < 0.3}
        for _ in range(int(rng.poisson(arrivals))):
            v = n_total
            n_total += 1
            alive = sorted(adj)
            amb = _choose(rng, alive)
            burned, frontier = {amb}, [amb]
            while frontier and len(burned) < 20:
                w = frontier.pop()
                nbrs = sorted(adj[w] - burned)
                k = min(len(nbrs), int(rng.geometric(1 - burn)) - 1)
                for x in (rng.choice(nbrs, size=k, replace=False).tolist() if k > 0 else []):
                    burned.add(x)
                    frontier.append(x)
            adj[v] = set()
            for x in sorted(burned):
                if _add(edges, v, x):
                    adj[v].add(x)
                    adj[x].add(v)
        for u, v in edges:
            last[u] = last[v] = t
        for v in [v for v in list(adj) if t - last.get(v, t) > inactive_after]:
            for x in adj.pop(v):
                if x in adj:
                    adj[x].discard(v)
        prev = sorted(edges)
        out.append(prev)
    return _emit(out, rng)
