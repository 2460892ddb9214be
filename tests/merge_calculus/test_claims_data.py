"""Fits, data loaders, configs, the claim experiments on a synthetic study, the registry, the public API."""

import ast
import pathlib

import jax
import numpy as np
import pytest

import jaxpapers.merge_calculus as mc
from jaxpapers.core import config, memo, registry
from jaxpapers.core.errors import ConfigError
from jaxpapers.core.verify import run_claim
from jaxpapers.merge_calculus import studies
from jaxpapers.merge_calculus.config import DiagnosticConfig, GraphsConfig, SweepConfig, WidthConfig
from jaxpapers.merge_calculus.experiments import identities, laws
from jaxpapers.merge_calculus.sweep import SweepResult
from tests.cifar_files import write_cifar10

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPEC_IDS = [
    "MC1-chain-depth-law",
    "MC2-coefficient-law",
    "MC3-depth-insufficient",
    "MC4-equal-depth",
    "MC5-zero-shot-transfer",
    "MC6-mup-width-transfer",
    "MC7-one-step-diagnostic",
    "MC8-analytic-identities",
]


def test_power_law_fit_and_errors():
    x = np.array([2.0, 3, 5, 8, 13])
    fit = mc.power_law_fit(x, 3 * x**-0.5)
    assert fit.slope == pytest.approx(-0.5) and fit.r2 == pytest.approx(1.0) and fit.ci[0] == pytest.approx(-0.5)
    y = 3 * x**-0.5 * np.exp(np.random.default_rng(0).normal(0, 0.1, 5))
    fit = mc.power_law_fit(x, y)
    slope, icpt = np.polyfit(np.log(x), np.log(y), 1)
    assert fit.slope == pytest.approx(slope) and fit.intercept == pytest.approx(icpt)
    assert fit.ci[0] <= fit.slope <= fit.ci[1]
    assert mc.geometric_error(np.array([1.0, 4.0]), np.array([2.0, 2.0])) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="positive, finite"):
        mc.power_law_fit(np.array([1.0, -2.0]), np.array([1.0, 2.0]))


def test_digits_matches_sklearn():
    from sklearn.datasets import load_digits

    d, ref = mc.digits(), load_digits()
    np.testing.assert_array_equal(d["y"], ref.target)
    x = 2 * ref.data / 16.0 - 1
    x = x - x.mean(0)
    np.testing.assert_allclose(d["x"], x / x.std(), rtol=1e-5, atol=1e-6)


def test_cifar_loader_reads_the_binary_archive_in_planar_order(tmp_path):
    root = tmp_path / "cifar-10-batches-bin"
    labels, pix = write_cifar10(root, 4, np.random.default_rng(0))
    d = mc.cifar10(str(root))
    assert d["x"].shape == (20, 3072) and d["y"].dtype == np.int32
    np.testing.assert_array_equal(d["y"], labels)
    x = 2 * (pix / 255.0) - 1
    x = x - x.mean(0)
    np.testing.assert_allclose(d["x"], x / x.std(), rtol=1e-5, atol=1e-5)
    head = mc.cifar10(str(root), limit=7)
    np.testing.assert_array_equal(head["y"], labels[:7])
    with pytest.raises(ConfigError, match="is not a directory"):
        mc.cifar10(str(tmp_path / "nope"))
    (root / "data_batch_3.bin").write_bytes(b"\x00" * 100)
    with pytest.raises(ConfigError, match="3073-byte record"):
        mc.cifar10(str(root))


def test_cifar_pickle_folder_is_refused(tmp_path):
    (tmp_path / "cifar-10-batches-py").mkdir()
    (tmp_path / "cifar-10-batches-py" / "data_batch_1").write_bytes(b"\x80\x04not a pickle to open")
    with pytest.raises(ConfigError, match="cifar-10-binary"):
        mc.cifar10(str(tmp_path / "cifar-10-batches-py"))


@pytest.mark.parametrize("name", ["sweep", "diagnostic", "width", "identities"])
@pytest.mark.parametrize("preset", ["tiny", "quick", "full"])
def test_configs_load(name, preset):
    cfg = config.load(f"merge_calculus/{name}", f"preset={preset}")
    if "graphs" in cfg:
        g = config.to_dataclass(GraphsConfig, cfg.graphs)
        assert g.base not in g.mc2
    for group, cls in (("sweep", SweepConfig), ("diagnostic", DiagnosticConfig), ("width", WidthConfig)):
        if group in cfg and group != "sweep" or (group == "sweep" and name in ("sweep", "width")):
            config.to_dataclass(cls, cfg[group])


def test_config_errors():
    with pytest.raises(ConfigError, match="sweep.score='last' is not allowed"):
        SweepConfig(score="last")
    with pytest.raises(ConfigError, match="sweep.lr_hi=0.01 is out of range"):
        SweepConfig(lr_lo=0.1, lr_hi=0.01)
    with pytest.raises(ConfigError, match="graphs.base='chain:2' is one of graphs.mc2"):
        GraphsConfig(base="chain:2")
    with pytest.raises(ConfigError, match="graph name 'loop:1' is not allowed"):
        GraphsConfig(mc4=("loop:1", "res:2"))
    with pytest.raises(ConfigError, match="has no field 'bogus'"):
        config.to_dataclass(SweepConfig, {"bogus": 1})


def _fake_study(eta_of):
    """A Study whose η* is a known function of the graph: the claim maths can be checked exactly."""
    cfg = config.load("merge_calculus/sweep", "preset=quick")
    names = config.to_dataclass(GraphsConfig, cfg.graphs).all
    lrs = np.geomspace(0.03, 3, 16)
    results = {}
    for n in names:
        eta = eta_of(mc.from_name(n))
        score = ((np.log(lrs) - np.log(eta)) ** 2)[None]
        results[n] = SweepResult(lrs, np.zeros((1, 16, 3)), score, eta, eta, False)
    return cfg, studies.Study(results, {n: 0.0 for n in names}, ())


def test_law_measurements_on_an_exact_study(monkeypatch):
    cfg, study = _fake_study(lambda g: 0.9 * (mc.merge_coefficient(g) / 9.0) ** -0.5)
    monkeypatch.setattr(studies, "study", lambda _: study)
    key = jax.random.key(0)
    m2 = laws.measure_coefficient_law(cfg, key)
    assert m2.measured["slope"] == pytest.approx(-0.5) and m2.measured["r2"] == pytest.approx(1.0)
    m3 = laws.measure_depth_insufficient(cfg, key)
    assert m3.measured["r2_C"] == pytest.approx(1.0) and m3.measured["r2_margin"] > 0.1
    m4 = laws.measure_equal_depth(cfg, key)
    c16, d16 = mc.merge_coefficient(mc.residual(16)), mc.merge_coefficient(mc.residual(16, kind="depth_mup"))
    assert m4.measured["ratio"] == pytest.approx((c16 / d16) ** 0.5) and m4.measured["order_ok"].all()
    assert m4.measured["ratio_error_factor"] == pytest.approx(1.0)
    m5 = laws.measure_transfer(cfg, key)
    assert m5.measured["err_merge"] == pytest.approx(1.0) and m5.measured["depth_minus_merge"] > 0
    cfg2, study2 = _fake_study(lambda g: 0.9 * (mc.merge_coefficient(g) / 9.0) ** -0.25)  # half the exponent
    monkeypatch.setattr(studies, "study", lambda _: study2)
    m4b = laws.measure_equal_depth(cfg2, key)
    assert m4b.measured["ratio_error_factor"] == pytest.approx((c16 / d16) ** 0.25)
    cfg, study = _fake_study(lambda g: 2.0 * mc.nominal_depth(g) ** -1.5)
    monkeypatch.setattr(studies, "study", lambda _: study)
    m1 = laws.measure_depth_law(cfg, key)
    assert m1.measured["slope"] == pytest.approx(-1.5) and m1.measured["edge_minima"] == 0
    assert laws.measure_transfer(cfg, key).measured["err_depth"] == pytest.approx(1.0)


def test_identities_claim_and_registry():
    m = identities.measure_identities(None, None)
    assert all(v <= 1e-9 for v in m.measured.values())
    claims = registry.claims_of("merge_calculus")
    assert [c.name for c in claims] == SPEC_IDS
    assert all(c.budget_s["quick"] <= 60 for c in claims)


@pytest.mark.slow
def test_study_regrids_an_edge_minimum():
    memo.clear()
    sweep = SweepConfig(width=8, batch=16, steps=6, lr_lo=1e-4, lr_hi=1e-3, n_lrs=4, seeds=(0,))
    st = studies.run_sweeps(sweep, ("chain:1",))  # η* lies far above 1e-3: the grid's top edge
    ratio = 10 ** (1 / 3)
    assert st.shifted == ("chain:1",)
    assert st.results["chain:1"].lrs[0] == pytest.approx(1e-4 * ratio**2)  # shifted up by half the grid


EXPECTED_TINY = {
    "MC1-chain-depth-law": "fail",
    "MC2-coefficient-law": "fail",
    "MC3-depth-insufficient": "fail",
    "MC4-equal-depth": "fail",
    "MC5-zero-shot-transfer": "fail",
    "MC6-mup-width-transfer": "skipped",
    "MC7-one-step-diagnostic": "report",
    "MC8-analytic-identities": "pass",
}


@pytest.mark.claims
@pytest.mark.slow
@pytest.mark.parametrize("name", SPEC_IDS)
def test_claim_runs_at_tiny(name, tmp_path):
    """Smoke: every claim runs at tiny size (width 16, 12 steps: a smoke run whose verdicts say nothing)."""
    (claim,) = [c for c in registry.claims_of("merge_calculus") if c.name == name]
    res = run_claim(claim, "tiny", out_dir=tmp_path)
    assert res.verdict == EXPECTED_TINY[name], res.reason + (res.error or "")


def test_public_api_and_notebook_imports():
    for name in mc.__all__:
        assert getattr(mc, name) is not None
    for path in (ROOT / "jaxpapers" / "merge_calculus").rglob("*.py"):
        assert len(path.read_text().splitlines()) <= 500, path
    for user in (ROOT / "notebooks" / "merge_calculus.py", ROOT / "benchmarks" / "merge_calculus.py"):
        tree = ast.parse(user.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("jaxpapers.merge_calculus"):
                module = __import__(node.module, fromlist=["_"])
                for alias in node.names:
                    assert not alias.name.startswith("_") and hasattr(module, alias.name), (user, alias.name)


def test_readme_api_section_lists_exactly_all():
    """The README's ``## API`` bullets (one name in backticks per line) are ``__all__``, in order."""
    import importlib
    import pathlib
    import re

    pkg = importlib.import_module("jaxpapers.merge_calculus")
    text = (pathlib.Path(pkg.__file__).parent / "README.md").read_text()
    section = re.search(r"^## API\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert section, "README.md needs a '## API' section"
    listed = re.findall(r"^- `([^`]+)`$", section.group(1), re.M)
    assert listed == list(pkg.__all__)
    assert all(hasattr(pkg, name) for name in listed)
