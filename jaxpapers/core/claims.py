"""Claims: a checkable statement of a paper, the experiment that measures it, and a pass criterion.

A paper registers its claims in ``jaxpapers/<slug>/claims.py`` as a module-level ``CLAIMS`` list::

    Claim(
        id="resource_allocation/RA1-kelly-tight-family",
        statement="Kelly's efficiency on the tight family equals (3n+2)/(4n+2) and tends to 3/4",
        source="Johari & Tsitsiklis 2004, Thm 3",
        kind="closed_form",
        experiment=experiments.kelly_tight_family,   # fn(cfg, key) -> Measurement
        config="resource_allocation/poa",           # configs/resource_allocation/poa.py
        predicate=Close(atol=1e-8),
        budget_s={"quick": 20},
        x64=True,
    )

The experiment measures; the predicate, never the experiment, decides the verdict. ``jaxpapers
verify`` runs every claim's preset through :func:`jaxpapers.core.verify.run_claim`.

Verdicts: ``pass``, ``fail`` (an honest miss), ``error`` (the experiment raised or overran its
budget), ``skipped`` (a requirement is unmet, e.g. no GPU), ``report`` (report-only rows) and
``divergent`` (measured as our reconstruction predicts, while the paper states otherwise) and
``inconclusive`` (a negative control whose positive claim did not pass: e.g. "the static model
fails" says nothing when the model that should succeed failed too).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import numpy as np

Verdict = Literal["pass", "fail", "error", "skipped", "report", "divergent", "inconclusive"]
VERDICTS: tuple[str, ...] = ("pass", "fail", "error", "skipped", "report", "divergent", "inconclusive")
Kind = Literal["closed_form", "ordering", "scaling", "guarantee", "reproduction"]
KINDS: tuple[str, ...] = ("closed_form", "ordering", "scaling", "guarantee", "reproduction")
HARD_BUDGET_S = 60.0  # no quick preset may take longer on 2 CPU cores, compilation included


@dataclasses.dataclass
class Measurement:
    """What an experiment measured.

    ``measured`` and ``predicted`` are scalars, arrays or dicts of them (predicates pick a key with
    ``on=``). ``stderr`` is the standard error of ``measured`` where it is an estimate; ``n`` the
    number of samples or instances behind it. ``figures`` maps a name to a matplotlib Figure; the
    runner saves them as PNG. ``captions`` maps the same names to one or two sentences saying what a
    reader should look for (``report.md`` prints each under its figure; every figure needs one).
    ``details`` holds anything else worth printing or keeping in JSON.
    """

    measured: Any
    predicted: Any = None
    stderr: Any = None
    n: int | None = None
    details: dict[str, Any] = dataclasses.field(default_factory=dict)
    figures: dict[str, Any] = dataclasses.field(default_factory=dict)
    captions: dict[str, str] = dataclasses.field(default_factory=dict)
    preset: str | None = None  # set by the runner before the predicate is evaluated


@dataclasses.dataclass(frozen=True)
class Outcome:
    """A predicate's verdict, its margin (how far inside (+) or outside (-) the criterion) and why."""

    verdict: Verdict
    margin: float | None = None
    reason: str = ""


# ---------------------------------------------------------------------------------------------
# Predicates. Each is a frozen dataclass with ``__call__(m) -> Outcome`` and ``describe()``.
# ---------------------------------------------------------------------------------------------


def _pick(tree: Any, on: str | None, what: str) -> Any:
    if on is None:
        return tree
    if not isinstance(tree, Mapping) or on not in tree:
        keys = ", ".join(tree) if isinstance(tree, Mapping) else type(tree).__name__
        raise KeyError(f"{what} has no entry {on!r} (has: {keys})")
    return tree[on]


def _arr(x: Any) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def _label(on: str | None) -> str:
    return f"{on}: " if on else ""


def _fmt(x: float) -> str:
    return f"{x:.4g}"


class Predicate:
    """Base class: a pass criterion evaluated on a :class:`Measurement`."""

    def __call__(self, m: Measurement) -> Outcome:  # pragma: no cover - interface
        raise NotImplementedError

    def describe(self) -> str:  # pragma: no cover - interface
        raise NotImplementedError


@dataclasses.dataclass(frozen=True)
class Close(Predicate):
    """Every element satisfies |measured - target| <= atol + rtol·|target|.

    ``target`` defaults to the measurement's ``predicted`` (picked with ``on``).
    """

    atol: float = 0.0
    rtol: float = 0.0
    on: str | None = None
    target: Any = None

    def __call__(self, m: Measurement) -> Outcome:
        x = _arr(_pick(m.measured, self.on, "measured"))
        t = _arr(self.target if self.target is not None else _pick(m.predicted, self.on, "predicted"))
        tol = self.atol + self.rtol * np.abs(t)
        err = np.abs(x - t)
        if not np.all(np.isfinite(x)):
            return Outcome("fail", -math.inf, f"{_label(self.on)}measured value is not finite")
        margin = float(np.min(tol - err))
        worst = float(np.max(err))
        return Outcome("pass" if margin >= 0 else "fail", margin, f"{_label(self.on)}max |err| = {worst:.3g}")

    def describe(self) -> str:
        parts = [f"atol {self.atol:g}"] if self.atol else []
        parts += [f"rtol {self.rtol:g}"] if self.rtol else []
        tgt = "" if self.target is None else f" of {np.round(_arr(self.target), 6).tolist()}"
        return f"{_label(self.on)}within {' + '.join(parts) or 'exact'}{tgt}"


def _z_scores(err: Any, se: Any) -> np.ndarray:
    """err / se, with 0/0 = 0 (an exact value where the spread is zero) and err/0 = inf."""
    err, se = np.broadcast_arrays(np.asarray(err, float), np.asarray(se, float))
    return np.divide(err, se, out=np.where(err > 0, np.inf, 0.0), where=se > 0)


@dataclasses.dataclass(frozen=True)
class WithinCI(Predicate):
    """|measured - predicted| <= z · stderr (a statistical agreement test)."""

    z: float = 3.0
    on: str | None = None

    def __call__(self, m: Measurement) -> Outcome:
        x = _arr(_pick(m.measured, self.on, "measured"))
        t = _arr(_pick(m.predicted, self.on, "predicted"))
        se = _arr(_pick(m.stderr, self.on, "stderr"))
        margin = float(np.min(self.z * se - np.abs(x - t)))
        return Outcome(
            "pass" if margin >= 0 else "fail",
            margin,
            f"{_label(self.on)}|err|/se = {float(np.max(_z_scores(np.abs(x - t), se))):.3g}",
        )

    def describe(self) -> str:
        return f"{_label(self.on)}within {self.z:g} standard errors"


@dataclasses.dataclass(frozen=True)
class Above(Predicate):
    """min(measured) >= threshold (``strict``: >)."""

    threshold: float
    on: str | None = None
    strict: bool = False

    def __call__(self, m: Measurement) -> Outcome:
        x = _arr(_pick(m.measured, self.on, "measured"))
        if x.size == 0 or not np.all(np.isfinite(x)):
            return Outcome("fail", -math.inf, f"{_label(self.on)}measured value is empty or not finite")
        lo = float(np.min(x))
        ok = lo > self.threshold if self.strict else lo >= self.threshold
        return Outcome("pass" if ok else "fail", lo - self.threshold, f"{_label(self.on)}min = {_fmt(lo)}")

    def describe(self) -> str:
        return f"{_label(self.on)}{'>' if self.strict else '≥'} {self.threshold:g}"


@dataclasses.dataclass(frozen=True)
class Below(Predicate):
    """max(measured) <= threshold (``strict``: <)."""

    threshold: float
    on: str | None = None
    strict: bool = False

    def __call__(self, m: Measurement) -> Outcome:
        x = _arr(_pick(m.measured, self.on, "measured"))
        if x.size == 0 or not np.all(np.isfinite(x)):
            return Outcome("fail", -math.inf, f"{_label(self.on)}measured value is empty or not finite")
        hi = float(np.max(x))
        ok = hi < self.threshold if self.strict else hi <= self.threshold
        return Outcome("pass" if ok else "fail", self.threshold - hi, f"{_label(self.on)}max = {_fmt(hi)}")

    def describe(self) -> str:
        return f"{_label(self.on)}{'<' if self.strict else '≤'} {self.threshold:g}"


@dataclasses.dataclass(frozen=True)
class InRange(Predicate):
    """lo <= measured <= hi for every element."""

    lo: float
    hi: float
    on: str | None = None

    def __call__(self, m: Measurement) -> Outcome:
        x = _arr(_pick(m.measured, self.on, "measured"))
        if x.size == 0 or not np.all(np.isfinite(x)):
            return Outcome("fail", -math.inf, f"{_label(self.on)}measured value is empty or not finite")
        margin = float(min(np.min(x) - self.lo, self.hi - np.max(x)))
        return Outcome(
            "pass" if margin >= 0 else "fail",
            margin,
            f"{_label(self.on)}range [{_fmt(float(np.min(x)))}, {_fmt(float(np.max(x)))}]",
        )

    def describe(self) -> str:
        return f"{_label(self.on)}in [{self.lo:g}, {self.hi:g}]"


@dataclasses.dataclass(frozen=True)
class SlopeIn(InRange):
    """A fitted (log-log) exponent lies in [lo, hi]; the fit's CI is reported in the details."""

    def describe(self) -> str:
        return f"{_label(self.on)}slope in [{self.lo:g}, {self.hi:g}]"


@dataclasses.dataclass(frozen=True)
class Ordered(Predicate):
    """The measured sequence is increasing or decreasing (``strict``: no ties)."""

    direction: Literal["increasing", "decreasing"] = "increasing"
    strict: bool = True
    on: str | None = None

    def __call__(self, m: Measurement) -> Outcome:
        x = _arr(_pick(m.measured, self.on, "measured")).ravel()
        d = np.diff(x) if self.direction == "increasing" else -np.diff(x)
        if d.size == 0:
            return Outcome("fail", None, "fewer than two values to order")
        margin = float(np.min(d))
        ok = margin > 0 if self.strict else margin >= 0
        return Outcome("pass" if ok else "fail", margin, f"{_label(self.on)}min step = {margin:.3g}")

    def describe(self) -> str:
        return f"{_label(self.on)}{'strictly ' if self.strict else ''}{self.direction}"


@dataclasses.dataclass(frozen=True)
class AllHold(Predicate):
    """A by-construction guarantee: ``measured`` is a count of violations (or booleans that must all hold)."""

    on: str | None = None

    def __call__(self, m: Measurement) -> Outcome:
        x = np.asarray(_pick(m.measured, self.on, "measured"))
        violations = int(np.sum(~x)) if x.dtype == bool else int(np.sum(x))
        n = f" of {m.n}" if m.n else ""
        return Outcome(
            "pass" if violations == 0 else "fail", float(-violations), f"{_label(self.on)}{violations} violations{n}"
        )

    def describe(self) -> str:
        return f"{_label(self.on)}no violations"


@dataclasses.dataclass(frozen=True)
class AllOf(Predicate):
    """Every sub-predicate passes; the verdict names the first that does not."""

    parts: tuple[Predicate, ...]

    def __init__(self, *parts: Predicate):
        object.__setattr__(self, "parts", tuple(parts))

    def __call__(self, m: Measurement) -> Outcome:
        outcomes = [p(m) for p in self.parts]
        failed = [o for o in outcomes if o.verdict != "pass"]
        margins = [o.margin for o in outcomes if o.margin is not None]
        reason = "; ".join(o.reason for o in (failed or outcomes) if o.reason)
        return Outcome("fail" if failed else "pass", min(margins) if margins else None, reason)

    def describe(self) -> str:
        return " AND ".join(p.describe() for p in self.parts)


@dataclasses.dataclass(frozen=True)
class Divergent(Predicate):
    """Our reconstruction predicts something the paper contradicts.

    If ``ours`` passes, the verdict is ``divergent`` (we reproduce our own numbers, which disagree with
    the paper's statement ``paper``); if it does not, ``fail``.
    """

    ours: Predicate
    paper: str

    def __call__(self, m: Measurement) -> Outcome:
        o = self.ours(m)
        if o.verdict == "pass":
            return Outcome("divergent", o.margin, f"{o.reason}; paper: {self.paper}")
        return o

    def describe(self) -> str:
        return f"{self.ours.describe()} (ours; paper: {self.paper})"


@dataclasses.dataclass(frozen=True)
class ByPreset(Predicate):
    """A different criterion per preset (e.g. report-only in ``quick``, checked in ``full``).

    ``default`` applies to presets not listed in ``presets`` (a mapping preset -> predicate). The
    runner tells the measurement which preset produced it (``Measurement.preset``).
    """

    default: Predicate
    presets: tuple[tuple[str, Predicate], ...]

    def __init__(self, default: Predicate, **presets: Predicate):
        object.__setattr__(self, "default", default)
        object.__setattr__(self, "presets", tuple(presets.items()))

    def pick(self, preset: str | None) -> Predicate:
        return dict(self.presets).get(preset, self.default)

    def __call__(self, m: Measurement) -> Outcome:
        return self.pick(m.preset)(m)

    def describe(self) -> str:
        parts = [f"{name}: {p.describe()}" for name, p in self.presets]
        return "; ".join(parts + [f"otherwise: {self.default.describe()}"])


@dataclasses.dataclass(frozen=True)
class Report(Predicate):
    """Report-only: prints the measurement, never passes or fails."""

    note: str = "report only"

    def __call__(self, m: Measurement) -> Outcome:
        return Outcome("report", None, self.note)

    def describe(self) -> str:
        return self.note


# ---------------------------------------------------------------------------------------------
# The claim itself
# ---------------------------------------------------------------------------------------------

Experiment = Callable[[Any, Any], Measurement]  # fn(cfg: ConfigDict, key: PRNGKey) -> Measurement


@dataclasses.dataclass(frozen=True)
class Claim:
    """One checkable statement of a paper.

    Attributes:
      id: ``<slug>/<spec id>-<short name>``.
      statement: the statement in plain words.
      source: where it comes from (paper section/equation, or "our derivation").
      kind: closed_form | ordering | scaling | guarantee | reproduction.
      experiment: ``fn(cfg, key) -> Measurement``, or where to find it,
        ``"<module>:<function>"`` (a leading ``.`` is relative to the paper's package, e.g.
        ``".experiments.copy_task:measure"``). A string keeps ``claims.py`` free of heavy imports, so
        that ``jaxpapers list`` and ``describe`` answer without importing JAX.
      config: ``<slug>/<experiment>`` naming ``configs/<slug>/<experiment>.py``.
      predicate: decides the verdict from the Measurement.
      budget_s: seconds allowed per preset on the reference machine (quick: 2 CPU cores, compile
        included; at most 60).
      presets: the presets this claim can run; others are reported as ``skipped``.
      requires: ``"gpu"`` marks claims that are skipped on a CPU.
      x64: run the experiment inside ``jax.enable_x64(True)``.
      control_of: the id of the positive claim this claim is a negative control of. The runner
        runs the positive claim too, and the control's verdict is ``inconclusive`` unless the
        positive claim passes.
      predicted_text: how to print a prediction that is not a number (a formula, "chance") —
        never a criterion: thresholds live only in ``predicate``.
    """

    id: str
    statement: str
    source: str
    kind: str  # one of KINDS (checked in __post_init__ with a message naming the claim)
    experiment: Experiment | str
    config: str
    predicate: Predicate
    budget_s: Mapping[str, float] = dataclasses.field(default_factory=lambda: {"quick": 20.0})
    presets: Sequence[str] = ("tiny", "quick", "full")
    requires: Sequence[str] = ()
    x64: bool = False
    control_of: str | None = None
    predicted_text: str | None = None

    def __post_init__(self):
        slug, sep, name = self.id.partition("/")
        if not sep or not slug or not name:
            raise ValueError(f"claim id {self.id!r} must look like '<paper>/<name>'")
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.id}: kind={self.kind!r} not in {KINDS}")
        from jaxpapers.core.budgets import OVER_HARD_LIMIT

        limit = OVER_HARD_LIMIT.get(self.id, (HARD_BUDGET_S, ""))[0]
        if self.budget_s.get("quick", 0) > limit:
            raise ValueError(
                f"claim {self.id}: quick budget {self.budget_s['quick']} s exceeds {limit:g} s "
                "(exceptions are listed, with their reason, in jaxpapers/core/budgets.py)"
            )
        if self.control_of is not None and self.control_of.split("/", 1)[0] != self.paper:
            raise ValueError(f"claim {self.id}: control_of={self.control_of!r} must name a claim of {self.paper}")
        if self.control_of == self.id:
            raise ValueError(f"claim {self.id} cannot be a control of itself")
        unknown = set(self.requires) - {"gpu"}
        if unknown:
            raise ValueError(f"claim {self.id}: unknown requirement(s) {sorted(unknown)}; allowed: 'gpu'")

    @property
    def paper(self) -> str:
        return self.id.split("/", 1)[0]

    def resolve_experiment(self) -> Experiment:
        """The experiment function (imported on first use when given as ``"<module>:<function>"``)."""
        if callable(self.experiment):
            return self.experiment
        import importlib

        module_name, sep, function = self.experiment.partition(":")
        if not sep or not function:
            raise ValueError(f"claim {self.id}: experiment={self.experiment!r} must look like 'module:function'")
        if module_name.startswith("."):
            module_name = f"jaxpapers.{self.paper}{module_name}"
        fn = getattr(importlib.import_module(module_name), function, None)
        if not callable(fn):
            raise ValueError(f"claim {self.id}: {module_name} has no function {function!r}")
        return fn

    @property
    def name(self) -> str:
        return self.id.split("/", 1)[1]
