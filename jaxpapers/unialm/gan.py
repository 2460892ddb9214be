"""The phase-2 GAN training step: reconstruction losses + ``1·L_adv + 2·L_fm`` with alternating updates
(spec §2 recon step 5, "small/paper: … Discriminators … LSGAN or hinge"; the DAC recipe, arXiv 2306.06546).

The shared trainer (``core.train``) carries one ``TrainState`` with one optimizer state. The generator
(the reconstruction branch) keeps ``state.params``/``state.opt_state``, so the dead-code restart wrapper,
the checkpoint fingerprint and every plain-path helper see the same tree as without a GAN; the
discriminator's params and its own optimizer state live in ``state.extras["disc"]`` and are
checkpointed (orbax) and restored with the rest of the state.

One step, in DAC's order (every step, after ``GanConfig.start`` warm-up steps):

1. generator forward once: ``(L_rec, x̂)`` and its VJP (``jax.vjp``), no second forward pass;
2. discriminator update on ``(x, sg(x̂))`` with its optimizer (``L_D``: LSGAN or hinge);
3. generator gradient: ``∂L_rec/∂θ + VJP(∂(adv·L_adv + fm·L_fm)/∂x̂)`` where the adversarial terms use the
   **updated** discriminator (its params held constant), then the generator's optimizer update.

During warm-up (``step < start``) the adversarial cotangent is zero and the discriminator state is kept,
so the generator follows the reconstruction losses alone. The step key is ``fold_in(state.key, step)`` as in
``core.train.make_train_step``, so a resumed run draws the same randomness as an uninterrupted one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import optax

from jaxpapers.core.train import TrainState
from jaxpapers.unialm.config import GanConfig
from jaxpapers.unialm.discriminators import MultiDiscriminator, discriminator_objective, generator_terms

DISC_KEY = "disc"

# ``terms_fn(params, batch, key) -> (reconstruction loss, aux, x̂ [B, N])``; the real waveform is batch["audio"].
TermsFn = Callable[[Any, Any, jax.Array], tuple[jax.Array, dict[str, jax.Array], jax.Array]]


def make_discriminator(gan: GanConfig) -> MultiDiscriminator:
    """The multi-period + multi-band multi-resolution STFT discriminator of ``gan``."""
    return MultiDiscriminator(
        periods=gan.periods,
        ffts=gan.ffts,
        period_channels=gan.period_channels,
        stft_channels=gan.stft_channels,
        bands=gan.bands,
        stft_layers=gan.stft_layers,
    )


def disc_extras(disc: MultiDiscriminator, tx_d: optax.GradientTransformation, key: jax.Array, n_samples: int) -> dict:
    """``state.extras["disc"]``: the discriminator's params for clips of ``n_samples`` and its optimizer state."""
    params = disc.init(key, jnp.zeros((1, n_samples), jnp.float32))["params"]
    return {"params": params, "opt_state": tx_d.init(params)}


def _select(on: jax.Array, new: Any, old: Any) -> Any:
    return jax.tree.map(lambda a, b: jnp.where(on, a, b), new, old)


def make_gan_step(
    terms_fn: TermsFn,
    disc: MultiDiscriminator,
    tx_g: optax.GradientTransformation,
    tx_d: optax.GradientTransformation,
    gan: GanConfig,
) -> Callable[[TrainState, Any], tuple[TrainState, dict[str, jax.Array]]]:
    """Returns ``step(state, batch) -> (state, metrics)`` for ``core.train.fit`` (pure, jit-ready).

    Metrics: ``loss`` (``L_rec + adv·L_adv + fm·L_fm``, the adversarial part 0 in warm-up), ``loss_rec``,
    ``adv``, ``fm``, ``d_loss`` (before this step's discriminator update), ``grad_norm``, ``d_grad_norm``
    and the reconstruction terms' aux.
    """

    def step(state: TrainState, batch: Any) -> tuple[TrainState, dict[str, jax.Array]]:
        key = jax.random.fold_in(state.key, state.step)
        x = batch["audio"]

        def gen(p):
            loss_rec, aux, x_hat = terms_fn(p, batch, key)
            return (loss_rec, x_hat), aux

        (loss_rec, x_hat), vjp, aux = jax.vjp(gen, state.params, has_aux=True)
        on = state.step >= gan.start
        d = state.extras[DISC_KEY]
        d_loss, d_grads = jax.value_and_grad(lambda pd: discriminator_objective(disc, pd, x, x_hat, gan.kind))(
            d["params"]
        )
        d_upd, d_opt = tx_d.update(d_grads, d["opt_state"], d["params"])
        d_params = _select(on, optax.apply_updates(d["params"], d_upd), d["params"])
        d_opt = _select(on, d_opt, d["opt_state"])

        def adversarial(y):
            t = generator_terms(disc, d_params, x, y, gan.kind)
            return gan.adv * t["adv"] + gan.fm * t["fm"], t

        (adv_total, terms), g_xhat = jax.value_and_grad(adversarial, has_aux=True)(x_hat)
        # selects, not 0·x products: a non-finite adversarial term during warm-up must not leak (0·NaN = NaN)
        (grads,) = vjp((jnp.ones_like(loss_rec), jnp.where(on, g_xhat, 0.0).astype(x_hat.dtype)))
        updates, opt_state = tx_g.update(grads, state.opt_state, state.params)
        params = optax.apply_updates(state.params, updates)
        metrics = {
            "loss": loss_rec + jnp.where(on, adv_total, 0.0),
            "loss_rec": loss_rec,
            "adv": terms["adv"],
            "fm": terms["fm"],
            "d_loss": d_loss,
            "grad_norm": optax.tree.norm(grads),
            "d_grad_norm": optax.tree.norm(d_grads),
            **aux,
        }
        extras = {**state.extras, DISC_KEY: {"params": d_params, "opt_state": d_opt}}
        return state.replace(step=state.step + 1, params=params, opt_state=opt_state, extras=extras), metrics

    return step
