"""A hierarchy theorem for chain-of-thought: Turing machines compiled into CoT transformers, padding inside the
CoT, the reverse-simulation cost and a clocked diagonal language.

Public API::

    import jax
    import jaxpapers.cot_hierarchy as ch
    tm = ch.palindrome_tm()
    with jax.enable_x64(True):
        trace = ch.run_tm(tm.delta, jax.numpy.array([1, 2, 1]), 3, 64)      # lax.while_loop TM simulator
    out = ch.simulate_cot(tm, [[1, 2, 1], [1, 2]])                            # Construction A vs run_tm
    out["trace_match"], out["cot_len"], out["tm_time"]

Modules: ``tm`` (machines, simulator), ``transformer`` (the Linen module, decode), ``vocab``, ``constructions``
(A, B, PadWriter), ``diagonal``, ``padding``, ``cost``, ``api``, ``config``, ``studies``, ``experiments``,
``figures``, ``claims``, ``reference`` (plain-Python/NumPy baselines).
"""

from jaxpapers.cot_hierarchy import experiments, figures
from jaxpapers.cot_hierarchy.api import run_machines, simulate_cot
from jaxpapers.cot_hierarchy.config import CostConfig, DiagConfig, LengthConfig, PadConfig, SimConfig
from jaxpapers.cot_hierarchy.constructions import (
    build_padwriter_params,
    build_tm_params,
    build_universal_params,
    c_constant,
    padwriter_arch,
    tm_arch,
    tm_prompts,
    universal_arch,
    universal_prompts,
)
from jaxpapers.cot_hierarchy.cost import fit_exponent, local_slope, score_evals
from jaxpapers.cot_hierarchy.diagonal import (
    build_diagonal_params,
    clock_value,
    diag_label,
    diagonal_arch,
    diagonal_inputs,
    encode_machine,
    enumerate_family,
)
from jaxpapers.cot_hierarchy.padding import collapse_depth, ladder, pad_input, pad_tm, pad_value
from jaxpapers.cot_hierarchy.tm import (
    TM,
    Trace,
    busy_beaver,
    load_tm_table,
    make_tm,
    pad_machine,
    palindrome_tm,
    parity_tm,
    parse_tm_table,
    random_tm,
    run_tm,
    run_tm_batch,
    stack_tms,
    unary_double_tm,
)
from jaxpapers.cot_hierarchy.transformer import Arch, HardCoTTransformer, LayerSpec, decode, forced_argmax
from jaxpapers.cot_hierarchy.vocab import Vocab, trace_from_tokens, trace_tokens

__all__ = [
    "TM",
    "Arch",
    "CostConfig",
    "DiagConfig",
    "HardCoTTransformer",
    "LayerSpec",
    "LengthConfig",
    "PadConfig",
    "SimConfig",
    "Trace",
    "Vocab",
    "build_diagonal_params",
    "build_padwriter_params",
    "build_tm_params",
    "build_universal_params",
    "busy_beaver",
    "c_constant",
    "clock_value",
    "collapse_depth",
    "decode",
    "diag_label",
    "diagonal_arch",
    "diagonal_inputs",
    "encode_machine",
    "enumerate_family",
    "experiments",
    "figures",
    "fit_exponent",
    "forced_argmax",
    "ladder",
    "load_tm_table",
    "local_slope",
    "make_tm",
    "pad_input",
    "pad_machine",
    "pad_tm",
    "pad_value",
    "padwriter_arch",
    "palindrome_tm",
    "parity_tm",
    "parse_tm_table",
    "random_tm",
    "run_machines",
    "run_tm",
    "run_tm_batch",
    "score_evals",
    "simulate_cot",
    "stack_tms",
    "tm_arch",
    "tm_prompts",
    "trace_from_tokens",
    "trace_tokens",
    "unary_double_tm",
    "universal_arch",
    "universal_prompts",
]
