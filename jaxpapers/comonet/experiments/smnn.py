"""CO3: a {inc, free} COMONet is SMNN — the independently written ``baselines.SMNN`` with copied
parameters gives the same outputs (:func:`smnn_differences`, measured in float64)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np

from jaxpapers.comonet.baselines import SMNN, smnn_params_from_comonet
from jaxpapers.comonet.model import COMONet
from jaxpapers.comonet.regimes import parse_regimes
from jaxpapers.core import sim
from jaxpapers.core.claims import Measurement


def smnn_differences(
    regimes: tuple[str, ...], hidden: int, depth: int, keys: jax.Array, x: jax.Array
) -> dict[str, np.ndarray]:
    """Per init key: max |COMONet(x) − SMNN(x)| with float32 parameters, evaluated on ``x`` in its own
    dtype (``f64``) and in float32 (``f32``), and max |COMONet(x)| (``scale_*``). One jitted vmap."""
    spec = parse_regimes(tuple(regimes))
    if set(spec.regimes) - {"free", "inc", "dec"}:
        raise ValueError(f"regimes {regimes!r}: the SMNN reduction needs free, inc and dec only")
    model = COMONet(spec.regimes, hidden=hidden, depth=depth)
    mono = spec.group("M")
    smnn = SMNN(mono, tuple(spec.flip[j] for j in mono), hidden, hidden, hidden, depth)

    def diff(k: jax.Array) -> dict[str, jax.Array]:
        params = model.init(k, x[:1].astype(jnp.float32))["params"]  # float32 parameters
        mapped = smnn_params_from_comonet(params, spec, depth)
        out = {}
        for name, xx in (("f64", x), ("f32", x.astype(jnp.float32))):
            a = model.apply({"params": params}, xx)
            b = smnn.apply({"params": mapped}, xx)
            out[name] = jnp.max(jnp.abs(a - b)).astype(x.dtype)
            out[f"scale_{name}"] = jnp.max(jnp.abs(a)).astype(x.dtype)
        return out

    res = jax.jit(jax.vmap(diff), compiler_options=sim.fast_compile_options(level=1))(keys)
    return {k: np.asarray(v) for k, v in jax.device_get(res).items()}


def measure(cfg: ml_collections.ConfigDict, key: jax.Array) -> Measurement:
    """CO3 (run under ``x64=True``): float64 roundoff (~1e-15) cannot hide a structural difference;
    the float32 difference, a few ulps of outputs of size ~10, is reported too."""
    k_init, k_x = jax.random.split(key)
    x = cfg.input_scale * jax.random.normal(k_x, (cfg.n_points, len(cfg.regimes)), jnp.float64)
    res = smnn_differences(tuple(cfg.regimes), cfg.hidden, cfg.depth, jax.random.split(k_init, cfg.n_inits), x)
    return Measurement(
        measured={"max_abs_diff": float(np.max(res["f64"]))},
        predicted={"max_abs_diff": 0.0},  # the same function, written twice
        n=cfg.n_inits * cfg.n_points,
        details={
            "float64_per_init": res["f64"].tolist(),
            "float32_max_abs_diff": float(np.max(res["f32"])),
            "float32_relative_diff": float(np.max(res["f32"] / (1.0 + res["scale_f32"]))),
            "max_abs_output": float(np.max(res["scale_f64"])),
        },
    )
