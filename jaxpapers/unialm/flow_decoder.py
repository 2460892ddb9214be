"""``decoder="flow"``: the reconstruction branch's flow decoder over log-mel plus a mel vocoder (spec §2 recon
step 6: "the target x1 is either the 25 Hz latent of a scalar-quantised AE trained by us, or log-mel with a
vocoder"; we build the log-mel option).

* Target ``x1``: the clip's log-mel at the STFT frame rate (``r_fft``/``r_hop``, ``n_mels`` bins; 4·T_r frames
  at the toy's stride 4), mapped by the fixed affine ``(log-mel − MEL_SHIFT)/MEL_SCALE`` so that noise and
  target have comparable scales (our choice; undone before the vocoder).
* Condition: the decoder input ``q_r + Dense(c)`` (spec §1 "condition = Linear(q_r + Linear(up(q_a)))"),
  repeated ``r_stride`` times along time to the mel frame rate.
* :class:`FlowMelDecoder`: a :class:`~jaxpapers.unialm.flow.FlowDiT` velocity model and a :class:`MelVocoder`
  (Dense → ConvNeXt ×n → the Vocos iSTFT head), trained together by :meth:`FlowMelDecoder.losses`: the flow
  loss on the DiT, and the vocoder on the **true** log-mel (its waveform feeds 15·MSMD + L1 and, with a GAN,
  the discriminators). Decoding (``__call__``) samples log-mel with ``flow_steps`` Euler steps and CFG
  ``flow_cfg`` from seeded noise, then vocodes it.

Letters: B batch, N samples, T_r recon frames, F = r_stride·T_r mel frames, M mel bins, D width.
"""

from __future__ import annotations

import flax.linen as nn
import jax
import jax.numpy as jnp
from jaxtyping import Array, Float

from jaxpapers.unialm import audio
from jaxpapers.unialm.config import CodecConfig
from jaxpapers.unialm.flow import FlowDiT, cfg_velocity, euler_sample, flow_matching_loss
from jaxpapers.unialm.layers import ConvNeXt1D, istft_head

MEL_SHIFT, MEL_SCALE = -5.0, 3.0  # log-mel of the toy worlds spans about [−11.5, 2]


def mel_target(cfg: CodecConfig, x: Float[Array, "b n"]) -> Float[Array, "b f m"]:
    """The flow target: ``(log-mel(x) − MEL_SHIFT)/MEL_SCALE`` at the STFT frame rate (N/r_hop frames)."""
    return (audio.log_mel(x, cfg.sr, cfg.r_fft, cfg.r_hop, cfg.n_mels) - MEL_SHIFT) / MEL_SCALE


class MelVocoder(nn.Module):
    """Normalised log-mel frames ``[B, F, M]`` → waveform ``[B, F·r_hop]``: Dense → ConvNeXt ×n → iSTFT head."""

    cfg: CodecConfig

    @nn.compact
    def __call__(self, m: Float[Array, "b f m"]) -> Float[Array, "b n"]:
        c = self.cfg
        h = nn.Dense(c.r_width, name="in_proj")(m)
        for i in range(c.r_blocks):
            h = ConvNeXt1D(c.r_width, name=f"block_{i}")(h)
        h = nn.LayerNorm(name="out_norm")(h)
        return istft_head(self, h, c.r_fft, c.r_hop, c.logmag_min, c.logmag_max)


class FlowMelDecoder(nn.Module):
    """The flow decoder of ``decoder="flow"``: ``__call__(h, key)`` decodes, ``losses(h, x, key)`` trains."""

    cfg: CodecConfig

    def setup(self):
        c = self.cfg
        self.dit = FlowDiT(c.n_mels, c.flow_width, c.flow_blocks, c.flow_heads)
        self.vocoder = MelVocoder(c)

    def condition(self, h: Float[Array, "b tr d"]) -> Float[Array, "b f d"]:
        return jnp.repeat(h, self.cfg.r_stride, axis=1)

    def losses(
        self, h: Float[Array, "b tr d"], x: Float[Array, "b n"], key: jax.Array
    ) -> tuple[jax.Array, dict[str, jax.Array], Float[Array, "b n"]]:
        """``(L_flow, aux, vocoder(true log-mel))``: the DiT's flow-matching loss and the vocoder's waveform."""
        c = self.cfg
        x1 = mel_target(c, x)
        loss, aux = flow_matching_loss(
            self.dit, x1, self.condition(h), key, sigma_min=c.flow_sigma_min, cond_drop=c.flow_cond_drop
        )
        return loss, aux, self.vocoder(x1)

    def sample_mel(self, h: Float[Array, "b tr d"], key: jax.Array) -> Float[Array, "b f m"]:
        """Normalised log-mel by ``flow_steps`` Euler steps with CFG ``flow_cfg`` from ``N(0, I)`` noise."""
        c = self.cfg
        cond = self.condition(h)
        z = jax.random.normal(key, (*cond.shape[:2], c.n_mels), jnp.float32)
        b = z.shape[0]
        self.dit(z, jnp.zeros((b,)), cond, jnp.zeros((b,), bool))  # creates the params at init; a no-op after
        variables = self.dit.variables
        dit = FlowDiT(c.n_mels, c.flow_width, c.flow_blocks, c.flow_heads, parent=None)  # unbound: a pure apply

        def velocity(y, t, cnd, drop):  # a pure function of the bound params: safe inside the Euler loop
            return dit.apply(variables, y, t, cnd, drop)

        return euler_sample(cfg_velocity(velocity, cond, c.flow_cfg), z, c.flow_steps)

    def __call__(self, h: Float[Array, "b tr d"], key: jax.Array | None = None) -> Float[Array, "b n"]:
        """``x̂ = vocoder(sample)``; ``key`` None: a fixed key (a deterministic decode)."""
        return self.vocoder(self.sample_mel(h, jax.random.key(0) if key is None else key))
