"""Worked example: a tiny causal transformer learns the copy task (claim ``example/X1-copy-learned``).

What is reproduced: training through the shared trainer drives the held-out loss on the copied half of
each sequence from chance (ln 16 ≈ 2.77 nats) to near zero (quick: 0.0058 nats, accuracy 1.0; the
criterion is in ``jaxpapers/example/claims.py``).

    jaxpapers train --config configs/example/copy.py:preset=quick --workdir /tmp/copy   # ~15 s on 2 quiet CPU cores
    jaxpapers train --config configs/example/copy.py:preset=full --workdir /tmp/copy_full  # longer strings, GPU minutes
    jaxpapers verify example

Presets: ``tiny`` (unit tests, 4 steps; the claim is report-only there), ``quick`` (2-core CPU, default),
``full`` (accelerator). Groups: ``model`` -> ``example.config.TinyLMConfig``, ``data`` ->
``example.config.CopyDataConfig``, ``optim`` -> ``core.train.OptimConfig``, ``train`` ->
``core.train.LoopConfig``; ``rules_family`` and ``strategy`` pick the sharding rules under ``jaxpapers train``.
"""

import ml_collections

from jaxpapers.core.config import parse_arg


def get_config(arg: str | None = None) -> ml_collections.ConfigDict:
    a = parse_arg(arg)
    cfg = ml_collections.ConfigDict()
    cfg.preset = a.preset
    cfg.seed = 0
    cfg.rules_family = "transformer"  # launch/rules/transformer.py
    cfg.strategy = "fsdp"  # dp | fsdp | fsdp_tp | fsdp_tp_cp

    cfg.model = ml_collections.ConfigDict(
        dict(
            vocab_size=16,
            dim=64,
            depth=2,
            num_heads=4,
            mlp_dim=128,
            attn_impl="xla",
            scan_layers=False,
            remat=False,
            dtype="float32",
        )
    )
    cfg.data = ml_collections.ConfigDict(dict(half_len=8, num_train=8192, num_eval=512))
    cfg.optim = ml_collections.ConfigDict(
        dict(lr=3e-3, schedule="warmup_cosine", warmup_frac=0.1, weight_decay=1e-4, clip=1.0)
    )
    cfg.train = ml_collections.ConfigDict(dict(steps=400, batch_size=32, log_every=50, eval_every=200, ckpt_every=200))

    if a.preset == "tiny":
        cfg.model.update(dim=32, depth=1, num_heads=2, mlp_dim=64)
        cfg.data.update(half_len=4, num_train=64, num_eval=16)
        cfg.optim.warmup_frac = 0.25
        cfg.train.update(steps=4, batch_size=8, log_every=2, eval_every=2, ckpt_every=2)
    elif a.preset == "full":
        cfg.model.update(vocab_size=256, dim=256, depth=4, num_heads=8, mlp_dim=1024, scan_layers=True)
        cfg.data.update(half_len=128, num_train=200_000, num_eval=2048)
        cfg.optim.update(lr=1e-3, warmup_frac=0.05)
        cfg.train.update(steps=20_000, batch_size=256, log_every=100, eval_every=1000, ckpt_every=1000)
    return cfg
