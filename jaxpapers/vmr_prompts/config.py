"""Typed settings of ``vmr_prompts`` (no JAX): SynthVMR, the scripted oracle, the prompt tools, the verifier and the
shared study. Config files (``configs/vmr_prompts/*.py``) import only this module and ``jaxpapers.core.config``."""

from __future__ import annotations

import dataclasses

from jaxpapers.core.checks import check_choice, check_range
from jaxpapers.core.errors import ConfigError

TAGS: tuple[str, ...] = ("none", "boundary_aligned", "small_object", "interrupted")
ACTIONS: tuple[str, ...] = ("moves left", "moves right", "appears", "bounces")
SHAPES: tuple[str, ...] = ("circle", "square", "triangle", "cross")
PROMPTS: tuple[str, ...] = ("es", "od", "km")
VERIFY_MODES: tuple[str, ...] = ("zoom", "clip", "highlight")
SCORES: tuple[str, ...] = ("diff", "renorm", "yes")
FRAME_END: tuple[str, ...] = ("next", "index")


@dataclasses.dataclass(frozen=True)
class SynthConfig:
    """The ``synth`` group: SynthVMR videos (spec §SynthVMR). Frame sizes are in pixels at ``size``; the object
    sizes scale with ``size / 64``."""

    size: int = 64
    min_frames: int = 24
    max_frames: int = 48
    fps: float = 1.0
    min_action: int = 7
    max_action: int = 15

    def __post_init__(self):
        check_range("synth.size", self.size, 32)
        check_range("synth.min_frames", self.min_frames, 24)
        check_range("synth.max_frames", self.max_frames, self.min_frames)
        check_range("synth.fps", self.fps, 0.0, lo_open=True)
        check_range("synth.min_action", self.min_action, 4)
        check_range("synth.max_action", self.max_action, self.min_action, self.min_frames - 6)


@dataclasses.dataclass(frozen=True)
class OracleConfig:
    """The ``oracle`` group: :class:`~jaxpapers.vmr_prompts.adapters.oracle.NoisyOracleVLM` (spec §NoisyOracleVLM)."""

    seed: int = 0
    p_miss: float = 0.10
    p_miss_small: float = 0.45
    p_miss_boxed: float = 0.05
    p_fa: float = 0.03
    p_fa_distractor: float = 0.15
    clutter: float = 0.08
    jitter_sd: float = 1.5
    snap_radius: int = 2
    snap_prob: float = 0.9
    km_bridge: int = 4
    verify_gain: float = 8.0
    verify_noise: float = 0.5
    yes_no_mass: float = 0.95
    format_variants: float = 0.15
    colour_tol: int = 20

    def __post_init__(self):
        for name in ("p_miss", "p_miss_small", "p_miss_boxed", "p_fa", "p_fa_distractor", "clutter", "snap_prob",
                     "yes_no_mass", "format_variants"):
            check_range(f"oracle.{name}", getattr(self, name), 0.0, 1.0)
        check_range("oracle.jitter_sd", self.jitter_sd, 0.0)
        check_range("oracle.verify_noise", self.verify_noise, 0.0)
        check_range("oracle.snap_radius", self.snap_radius, 0)
        check_range("oracle.km_bridge", self.km_bridge, 1)
        check_choice("oracle.colour_tol", self.colour_tol, (20, 40))


@dataclasses.dataclass(frozen=True)
class ToolConfig:
    """The ``tools`` group: the offline prompt tools and overlays (spec §Definitions, §Offline prompt tools)."""

    cut_threshold: float = 0.5
    min_scene: int = 2
    det_min_pixels: int = 6
    det_min_score: float = 0.3
    det_max_per_frame: int = 5
    km_threshold: float = 0.5
    km_quantile: float = 0.7

    def __post_init__(self):
        check_range("tools.cut_threshold", self.cut_threshold, 0.0, 2.0)
        check_range("tools.min_scene", self.min_scene, 1)
        check_range("tools.det_min_pixels", self.det_min_pixels, 1)
        check_range("tools.det_min_score", self.det_min_score, 0.0, 1.0)
        check_range("tools.det_max_per_frame", self.det_max_per_frame, 1)
        check_range("tools.km_threshold", self.km_threshold, 0.0, 1.0)
        check_range("tools.km_quantile", self.km_quantile, 0.0, 1.0)


@dataclasses.dataclass(frozen=True)
class StudyConfig:
    """The shared SynthVMR study (claims V2a–V6): ``seeds`` × ``queries_per_seed`` (one query per video, tags in
    equal shares), the oracle, the tools and the verifier's score rule and margin."""

    seeds: tuple[int, ...] = (0, 1, 2)
    queries_per_seed: int = 200
    bootstrap: int = 2000
    margin: float = 0.0
    score: str = "diff"
    synth: SynthConfig = SynthConfig()
    oracle: OracleConfig = OracleConfig()
    tools: ToolConfig = ToolConfig()

    def __post_init__(self):
        if not self.seeds:
            raise ConfigError("study.seeds=() is empty; give at least one seed")
        check_range("study.queries_per_seed", self.queries_per_seed, 4)
        if self.queries_per_seed % len(TAGS):
            raise ConfigError(f"study.queries_per_seed={self.queries_per_seed} is not a multiple of {len(TAGS)} "
                              "(the tags take equal shares)")
        check_range("study.bootstrap", self.bootstrap, 100)
        check_range("study.margin", self.margin, 0.0)
        check_choice("study.score", self.score, SCORES)
