"""Plain-Python / NumPy baselines for tests and the benchmark (independent of the JAX paths).

``python_run_tm``: the dict-tape loop a theorist would write. ``numpy_decode``: the same greedy KV-cache decode
as :func:`jaxpapers.cot_hierarchy.transformer.decode`, one sequence at a time in float64 NumPy, reading the same
params pytree (so it also checks the Linen forward pass); it returns the residual stream of every position.
"""

from __future__ import annotations

import numpy as np

from jaxpapers.cot_hierarchy.transformer import Arch


def python_run_tm(delta, x, max_steps: int) -> dict:
    """Runs a machine on x with a dict tape; returns the per-step (q, w, d, h_wr), steps, halted and accept."""
    delta = np.asarray(delta).tolist()
    k = len(delta)
    tape = {i: int(s) for i, s in enumerate(x)}
    q, h, out = 0, 0, {"q": [], "w": [], "d": [], "h_wr": []}
    while q < k - 2 and len(out["q"]) < max_steps:
        s = tape.get(h, 0)
        q2, w, d = delta[q][s]
        tape[h] = w
        out["q"].append(q2), out["w"].append(w), out["d"].append(d), out["h_wr"].append(h)
        h, q = h + d, q2
    return {**out, "steps": len(out["q"]), "halted": q >= k - 2, "accept": q == k - 2}


def numpy_decode(params, arch: Arch, prompt, max_new: int) -> dict:
    """Greedy decode of one prompt in NumPy (hard attention, float64); tokens, cot_len and residuals z[i, D]."""
    P = {k: np.asarray(v, np.float64) for k, v in params.items()}
    acc, rej = arch.answer_ids
    tokens = [int(t) for t in prompt]
    caches = [[([], []) for _ in s.heads] for s in arch.layers]
    generated, residuals = [], []
    i = 0
    while True:
        z = P["embed"][tokens[i]] + i * P["pos"] + i * i * P["pos2"]
        for li, spec in enumerate(arch.layers):
            upd = np.zeros_like(z)
            for hi in range(len(spec.heads)):
                pre = f"L{li}H{hi}_"
                ks, vs = caches[li][hi]
                ks.append(z @ P[pre + "k"])
                vs.append(z @ P[pre + "v"])
                s = np.array(ks) @ (z @ P[pre + "q"])
                w = (s == s.max()).astype(float)
                upd += (w / w.sum()) @ np.array(vs) @ P[pre + "o"]
            z = z + upd
            gate = (z @ P[f"L{li}_wa"]) * (z @ P[f"L{li}_wb"])
            z = z + np.maximum(z @ P[f"L{li}_w1"], 0) @ P[f"L{li}_w2"] + gate @ P[f"L{li}_wg"]
        residuals.append(z)
        if i + 1 >= len(prompt):
            nxt = int(np.argmax(z @ P["unembed"]))
            tokens.append(nxt)
            generated.append(nxt)
            if nxt in (acc, rej) or len(generated) >= max_new:
                break
        i += 1
    return {"tokens": np.array(generated), "cot_len": len(generated), "residuals": np.array(residuals)}
