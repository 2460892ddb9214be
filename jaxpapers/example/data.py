"""The copy task: a random token string followed by itself; the model must reproduce the second half.

A sequence is ``x_1..x_L, x_1..x_L`` with ``x_i`` uniform over ``{0..V-1}``. Next-token prediction on
the second half needs attention at a fixed relative offset (L), which RoPE makes easy to express;
the first half is unpredictable, so its tokens carry no loss.

Layout rule: data generators are plain, seeded NumPy functions of explicit arguments (no config object),
so tests and notebooks can call them directly; ``train.py`` wraps them in a grain source.
"""

from __future__ import annotations

import numpy as np

from jaxpapers.core.checks import check_range


def copy_task(num_examples: int, *, half_len: int, vocab_size: int, seed: int) -> dict[str, np.ndarray]:
    """Returns ``{"tokens": int32 [n, 2L], "loss_mask": float32 [n, 2L-1]}``.

    ``loss_mask[:, t]`` weights the prediction of ``tokens[:, t+1]`` from ``tokens[:, :t+1]``: 1 for
    targets in the second half, 0 elsewhere.
    """
    check_range("num_examples", num_examples, 1)
    check_range("half_len", half_len, 1)
    check_range("vocab_size", vocab_size, 2)
    rng = np.random.default_rng(seed)
    first = rng.integers(0, vocab_size, size=(num_examples, half_len), dtype=np.int32)
    tokens = np.concatenate([first, first], axis=1)
    mask = np.zeros((num_examples, 2 * half_len - 1), np.float32)
    mask[:, half_len - 1 :] = 1.0
    return {"tokens": tokens, "loss_mask": np.broadcast_to(mask, mask.shape).copy()}
