"""The deep models of the full preset (spec, "What to build" and C6): a CIFAR ResNet-32 and a ViT with
DualPrompt prefix prompts, as Flax Linen modules.

* :class:`ResNet32` (He et al. 2016, CIFAR variant, as in the LDAM-DRW code): a 3x3 convolution to 16
  channels, three stages of ``blocks`` basic blocks with 16 / 32 / 64 channels (stride 2 at the start of the
  second and third stage), global average pooling and a linear classifier. Shortcuts are "option A" (stride-2
  subsampling and zero-padded channels, no parameters), so ResNet-32 on 10 classes has exactly 464,154
  parameters (:func:`resnet_param_count`).
* :class:`PromptedViT` (Dosovitskiy et al. 2021; DualPrompt, Wang et al. 2022, as in google-research/l2p's
  ``cifar100_dualprompt`` config): pre-LayerNorm Transformer on patch tokens plus a [CLS] token. Prompts enter
  by prefix tuning: at the G-prompt layers (default {0, 1}) a shared prompt, at the E-prompt layers (default
  {2, 3, 4}) the prompt of the selected pool entry, each ``length`` key and ``length`` value vectors prepended
  to that layer's attention keys and values. The E-prompt pool has one entry per task (partition) and one
  learnable key each; at test time the entry is chosen by cosine similarity between the keys and the query,
  the [CLS] output of the same backbone without prompts (:meth:`PromptedViT.query`); at train time the task's
  own entry is used and the pull loss ``1 - cos(q, k_task)`` (:func:`pull_loss`) draws its key to the query.
  The classifier reads the prompted [CLS]. Parameters under ``"backbone"`` are the frozen (CLIP) tower; only
  the prompts, their keys and the head are trained (:func:`prompt_optimizer`).
"""

from __future__ import annotations

from collections.abc import Sequence

import flax.linen as nn
import jax
import jax.numpy as jnp
import optax
from jaxtyping import Array, Float, Int

from jaxpapers.core.errors import ConfigError

# ---------------------------------------------------------------------------------------------- ResNet-32


class BasicBlock(nn.Module):
    """conv3x3-BN-ReLU-conv3x3-BN plus the option-A shortcut, then ReLU."""

    features: int
    stride: int = 1

    @nn.compact
    def __call__(self, x: Float[Array, "B H W Cin"], train: bool) -> Float[Array, "B h w C"]:
        norm = lambda: nn.BatchNorm(use_running_average=not train, momentum=0.9, epsilon=1e-5)  # noqa: E731
        y = nn.Conv(self.features, (3, 3), (self.stride, self.stride), padding=1, use_bias=False)(x)
        y = nn.relu(norm()(y))
        y = nn.Conv(self.features, (3, 3), padding=1, use_bias=False)(y)
        y = norm()(y)
        short = x
        if self.stride != 1 or x.shape[-1] != self.features:
            short = x[:, :: self.stride, :: self.stride, :]
            extra = self.features - x.shape[-1]
            short = jnp.pad(short, ((0, 0), (0, 0), (0, 0), (extra // 2, extra - extra // 2)))
        return nn.relu(y + short)


class ResNet32(nn.Module):
    """CIFAR ResNet-(6 ``blocks`` + 2); ``blocks = 5`` is ResNet-32. Input NHWC float images."""

    num_classes: int
    blocks: int = 5
    widths: Sequence[int] = (16, 32, 64)

    @nn.compact
    def __call__(self, x: Float[Array, "B H W 3"], train: bool = False) -> Float[Array, "B K"]:
        y = nn.Conv(self.widths[0], (3, 3), padding=1, use_bias=False)(x)
        y = nn.relu(nn.BatchNorm(use_running_average=not train, momentum=0.9, epsilon=1e-5)(y))
        for s, width in enumerate(self.widths):
            for b in range(self.blocks):
                y = BasicBlock(width, stride=2 if (s > 0 and b == 0) else 1)(y, train)
        return nn.Dense(self.num_classes)(jnp.mean(y, axis=(1, 2)))


def resnet_param_count(num_classes: int, blocks: int = 5, widths: Sequence[int] = (16, 32, 64)) -> int:
    """Closed-form number of parameters of :class:`ResNet32` (convolutions without bias, BatchNorm scale and
    bias, option-A shortcuts without parameters, linear classifier)."""
    total = 9 * 3 * widths[0] + 2 * widths[0]
    c_in = widths[0]
    for w in widths:
        for _ in range(blocks):
            total += 9 * c_in * w + 9 * w * w + 4 * w
            c_in = w
    return total + widths[-1] * num_classes + num_classes


# ------------------------------------------------------------------------------------------ prompted ViT


class PrefixAttention(nn.Module):
    """Multi-head self-attention whose keys and values can be extended by prompt prefixes
    ``[B, L, heads, head_dim]`` (prefix tuning)."""

    heads: int

    @nn.compact
    def __call__(self, x: Float[Array, "B S D"], prefix_k=None, prefix_v=None) -> Float[Array, "B S D"]:
        b, s, d = x.shape
        hd = d // self.heads
        q, k, v = (nn.DenseGeneral((self.heads, hd), name=n)(x) for n in ("query", "key", "value"))
        if prefix_k is not None:
            k = jnp.concatenate([prefix_k, k], axis=1)
            v = jnp.concatenate([prefix_v, v], axis=1)
        att = jax.nn.softmax(jnp.einsum("bqhd,bkhd->bhqk", q, k) / jnp.sqrt(hd).astype(x.dtype), axis=-1)
        out = jnp.einsum("bhqk,bkhd->bqhd", att, v)
        return nn.DenseGeneral(d, axis=(-2, -1), name="out")(out)


class ViTBlock(nn.Module):
    heads: int
    mlp_dim: int

    @nn.compact
    def __call__(self, x, prefix_k=None, prefix_v=None):
        x = x + PrefixAttention(self.heads, name="attn")(nn.LayerNorm(name="ln1")(x), prefix_k, prefix_v)
        h = nn.Dense(self.mlp_dim, name="fc1")(nn.LayerNorm(name="ln2")(x))
        return x + nn.Dense(x.shape[-1], name="fc2")(nn.gelu(h))


class Backbone(nn.Module):
    """Patch embedding, [CLS] + position embeddings, ``depth`` pre-LN blocks, final LayerNorm."""

    patch: int
    width: int
    depth: int
    heads: int
    mlp_dim: int

    @nn.compact
    def __call__(self, images: Float[Array, "B H W 3"], prefixes: dict | None = None) -> Float[Array, "B D"]:
        x = nn.Conv(self.width, (self.patch, self.patch), (self.patch, self.patch), name="patch")(images)
        b = x.shape[0]
        x = x.reshape(b, -1, self.width)
        cls = self.param("cls", nn.initializers.zeros, (1, 1, self.width))
        x = jnp.concatenate([jnp.broadcast_to(cls, (b, 1, self.width)), x], axis=1)
        x = x + self.param("pos", nn.initializers.normal(0.02), (1, x.shape[1], self.width))
        for i in range(self.depth):
            pk, pv = (prefixes or {}).get(i, (None, None))
            x = ViTBlock(self.heads, self.mlp_dim, name=f"block{i}")(x, pk, pv)
        return nn.LayerNorm(name="ln")(x[:, 0])


class PromptedViT(nn.Module):
    """A ViT backbone with DualPrompt G- and E-prompts (prefix tuning) and a linear head; see the module
    docstring. ``__call__(images, task)`` uses E-prompt ``task`` (an int array ``[B]``; ``None``: chosen by key
    matching) and returns ``(logits, query)``."""

    num_classes: int
    patch: int = 16
    width: int = 768
    depth: int = 12
    heads: int = 12
    mlp_dim: int = 3072
    pool_size: int = 2
    g_layers: Sequence[int] = (0, 1)
    g_length: int = 5
    e_layers: Sequence[int] = (2, 3, 4)
    e_length: int = 5

    def setup(self):
        if self.width % self.heads:
            raise ConfigError(f"width={self.width} must be divisible by heads={self.heads}")
        for name, layers in (("g_layers", self.g_layers), ("e_layers", self.e_layers)):
            bad = [i for i in layers if not 0 <= i < self.depth]
            if bad:
                raise ConfigError(f"{name}={tuple(layers)} has layers {bad} outside 0..{self.depth - 1}")
        if set(self.g_layers) & set(self.e_layers):
            raise ConfigError(f"g_layers={tuple(self.g_layers)} and e_layers={tuple(self.e_layers)} overlap")
        self.backbone = Backbone(self.patch, self.width, self.depth, self.heads, self.mlp_dim)
        hd = self.width // self.heads
        init = nn.initializers.uniform(1.0)  # the l2p config's uniform prompt and key init
        self.g_prompt = self.param("g_prompt", init, (len(self.g_layers), 2, self.g_length, self.heads, hd))
        self.e_prompt = self.param(
            "e_prompt", init, (len(self.e_layers), self.pool_size, 2, self.e_length, self.heads, hd)
        )
        self.e_key = self.param("e_key", init, (self.pool_size, self.width))
        self.head = nn.Dense(self.num_classes)

    def query(self, images: Float[Array, "B H W 3"]) -> Float[Array, "B D"]:
        """The [CLS] output of the backbone without prompts (the key-matching query), gradient stopped."""
        return jax.lax.stop_gradient(self.backbone(images))

    def select(self, q: Float[Array, "B D"]) -> Int[Array, " B"]:
        """Top-1 E-prompt by cosine similarity between ``q`` and the prompt keys."""
        return jnp.argmax(_cosine(q, self.e_key), axis=-1)

    def __call__(self, images: Float[Array, "B H W 3"], task: Int[Array, " B"] | None = None):
        q = self.query(images)
        if task is None:
            task = self.select(q)
        g, e = self.g_prompt, self.e_prompt
        b = images.shape[0]
        prefixes = {}
        for j, layer in enumerate(self.g_layers):
            prefixes[layer] = tuple(jnp.broadcast_to(g[j, kv], (b, *g.shape[2:])) for kv in (0, 1))
        for j, layer in enumerate(self.e_layers):
            sel = e[j][task]  # [B, 2, L, heads, hd]
            prefixes[layer] = (sel[:, 0], sel[:, 1])
        return self.head(self.backbone(images, prefixes)), q


def _cosine(a: Float[Array, "B D"], b: Float[Array, "K D"]) -> Float[Array, "B K"]:
    a = a / (jnp.linalg.norm(a, axis=-1, keepdims=True) + 1e-12)
    b = b / (jnp.linalg.norm(b, axis=-1, keepdims=True) + 1e-12)
    return a @ b.T


def pull_loss(query: Float[Array, "B D"], keys: Float[Array, "K D"], task: Int[Array, " B"]) -> Float[Array, ""]:
    """DualPrompt's key-query matching loss ``mean_i (1 - cos(q_i, k_{task_i}))``."""
    return jnp.mean(1.0 - jnp.take_along_axis(_cosine(query, keys), task[:, None], axis=1)[:, 0])


def trainable_mask(params: dict) -> dict:
    """``True`` for the prompt, key and head parameters, ``False`` for the frozen backbone."""
    return {k: jax.tree.map(lambda _, keep=(k != "backbone"): keep, v) for k, v in params.items()}


def prompt_optimizer(tx: optax.GradientTransformation, params: dict) -> optax.GradientTransformation:
    """``tx`` on the trainable parameters, zero updates on the frozen backbone (``optax.masked`` alone would
    pass the backbone's raw gradients through as updates)."""
    labels = jax.tree.map(lambda keep: "train" if keep else "frozen", trainable_mask(params))
    return optax.multi_transform({"train": tx, "frozen": optax.set_to_zero()}, labels)
