"""Typed settings of the worked example: frozen, validated dataclasses, and no JAX.

Layout rule: every paper keeps its settings here. Config files (``configs/example/copy.py``) import
only this module and ``jaxpapers.core.config``; code that runs turns a config group into one of these
dataclasses with ``core.config.to_dataclass(TinyLMConfig, cfg.model)`` (unknown keys fail in one line)
and never reads a ConfigDict deeper down. Validation happens in ``__post_init__``, so a bad value fails
when the config is converted, not in the middle of a jitted step. The optimiser (``cfg.optim``) and the
loop (``cfg.train``) use the core's ``OptimConfig`` and ``LoopConfig``: a paper adds only its own groups.

No field restates a claim's threshold: thresholds live in the predicate (``claims.py``).
"""

from __future__ import annotations

import dataclasses

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.errors import ConfigError

# The names ``core.nn.ATTENTION_IMPLS`` registers (spelled out: this module imports no JAX; a test checks
# that the two agree).
ATTN_IMPLS: tuple[str, ...] = ("dot_product", "xla")
DTYPES: tuple[str, ...] = ("bfloat16", "float32")


@dataclasses.dataclass(frozen=True)
class TinyLMConfig:
    """The ``model`` group: hyperparameters of :class:`jaxpapers.example.model.TinyLM`."""

    vocab_size: int = 16
    dim: int = 64
    depth: int = 2
    num_heads: int = 4
    mlp_dim: int = 128
    attn_impl: str = "xla"
    scan_layers: bool = False
    remat: bool = False
    dtype: str = "float32"

    def __post_init__(self):
        check_range("model.vocab_size", self.vocab_size, 2)
        check_range("model.dim", self.dim, 2)
        check_range("model.depth", self.depth, 1)
        check_range("model.num_heads", self.num_heads, 1)
        check_range("model.mlp_dim", self.mlp_dim, 1)
        check_choice("model.attn_impl", self.attn_impl, ATTN_IMPLS)
        check_choice("model.dtype", self.dtype, DTYPES)
        if self.dim % self.num_heads or (self.dim // self.num_heads) % 2:
            raise ConfigError(
                f"model.num_heads={self.num_heads} does not split model.dim={self.dim} into heads of even size "
                "(RoPE); choose a divisor of dim whose quotient is even"
            )

    @property
    def head_dim(self) -> int:
        return self.dim // self.num_heads


@dataclasses.dataclass(frozen=True)
class CopyDataConfig:
    """The ``data`` group: the generated copy task (see :func:`jaxpapers.example.data.copy_task`)."""

    half_len: int = 8  # L: each sequence is L random tokens followed by the same L tokens
    num_train: int = 8192
    num_eval: int = 512  # held out: drawn with seed + 1

    def __post_init__(self):
        check_range("data.half_len", self.half_len, 1)
        check_range("data.num_train", self.num_train, 1)
        check_range("data.num_eval", self.num_eval, 1)

    @property
    def seq_len(self) -> int:
        return 2 * self.half_len
