"""Experiments of ``vmr_prompts``, one module per claim group: ``metrics_parity`` (V1), ``synth_study`` (V2a–V6,
on the shared study of :mod:`jaxpapers.vmr_prompts.studies`), ``training_free`` (V7), ``real_data`` (V8, not built)."""

from jaxpapers.vmr_prompts.experiments import metrics_parity, real_data, synth_study, training_free

__all__ = ["metrics_parity", "real_data", "synth_study", "training_free"]
