"""The Python results are the Rust library's: the same numbers as `mibound estimate --json` and
`mibound sample` for the same data and seed, to the bit."""

import numpy as np
import pytest

import mibound
from conftest import cli_json, run_cli

# A short neural run keeps the test quick; the numbers must still match to the bit.
NEURAL = ("--hidden", "64", "--embed", "16", "--batch", "64", "--steps", "150")
NEURAL_KW = dict(hidden=64, embed=16, batch=64, steps=150)


RULES = {"notes", "x_columns", "y_columns"}


def without_wall(d):
    """The JSON without wall times (the only field that differs between two runs) and without
    what Python adds to the command line's JSON (the data rules' notes, the columns used)."""
    d = {k: v for k, v in d.items() if k not in RULES}
    d["estimates"] = [{k: v for k, v in e.items() if k != "wall_seconds"} for e in d["estimates"]]
    return d


@pytest.mark.training
def test_two_estimators_match_the_command_line_to_the_bit(cli, tmp_path):
    x, y = mibound.sample("multinormal-dense-2-2-0.5", 800, 3)
    for seed in (0, 5):
        ours = mibound.estimate(x, y, estimators=("infonce", "ksg"), seed=seed, **NEURAL_KW)
        ref = cli_json(cli, x, y, tmp_path, "--estimators", "infonce,ksg", "--seed", seed, *NEURAL)
        assert without_wall(ours.to_dict()) == without_wall(ref)
        # Not vacuous: the two estimators gave distinct, finite numbers.
        v = [e.value for e in ours.estimates]
        assert all(np.isfinite(v)) and v[0] != v[1]


@pytest.mark.training
def test_seed_changes_the_neural_estimate_and_the_same_seed_repeats_it(gaussian):
    x, y = gaussian
    a = mibound.estimate(x, y, estimators="infonce", seed=1, **NEURAL_KW)
    b = mibound.estimate(x, y, estimators="infonce", seed=1, **NEURAL_KW)
    c = mibound.estimate(x, y, estimators="infonce", seed=2, **NEURAL_KW)
    assert a.estimates[0].value == b.estimates[0].value
    assert a.estimates[0].value != c.estimates[0].value


def test_result_has_the_json_fields_and_attribute_access(cli, tmp_path, gaussian):
    x, y = gaussian
    r = mibound.estimate(x, y, estimators=["ksg", "gaussian"], unit="bits")
    ref = cli_json(cli, x, y, tmp_path, "--estimators", "ksg,gaussian", "--unit", "bits")
    assert set(r.keys()) == set(ref.keys()) | RULES
    assert r.x_columns == ["0", "1"] and r.notes == []
    assert set(r.estimates[0].keys()) == set(ref["estimates"][0].keys())
    assert r.unit == "bits" and r["unit"] == "bits"
    e = r["ksg:k=5"]
    assert e is r.estimates[0] and e.estimator == "ksg:k=5"
    assert np.isclose(e.in_unit.value, e.value / np.log(2))
    assert e.interval.low <= e.value <= e.interval.high
    assert r.headline is r.estimates[0]
    assert "Comparison(600 samples" in repr(r)


def test_the_repr_shows_every_warning_the_command_line_prints(cli, tmp_path):
    # y a monotone function of x: the default (KSG on normal scores in 1 + 1 dimensions) reads
    # the most 600 rows can show, and says so; x and y have the same normal scores, so every
    # half-sample reads the same value too, and there is no interval, said so.
    x = np.random.default_rng(3).normal(size=(600, 1))
    y = np.exp(x)
    r = mibound.estimate(x, y)
    ws = r.estimates[0].diagnostics.warnings
    assert [w["code"] for w in ws] == ["at-ceiling", "no-interval"]
    w = ws[0]
    ref = cli_json(cli, x, y, tmp_path)
    assert ref["estimates"][0]["diagnostics"]["warnings"] == [dict(v) for v in ws]
    assert "  warning: " + w["message"] in repr(r).splitlines()[2]
    # Where only a number is returned, the same sentences are Python warnings.
    with pytest.warns(mibound.EstimateWarning) as caught:
        mi = mibound.MutualInformation().fit(x, y)
    assert [str(c.message) for c in caught] == [v["message"] for v in ws] and mi.value_ == r.headline.value


def test_sample_matches_the_command_line(cli, tmp_path):
    for task, extra in (("multinormal-sparse-3-3-2-2.0", ()), ("gaussian", ("--dim", 3, "--mi", 1.0))):
        kw = dict(dim=3, mi=1.0) if extra else {}
        x, y = mibound.sample(task, 50, 9, **kw)
        run_cli(cli, "sample", task, "--n", 50, "--seed", 9, "--out", tmp_path / task, *extra)
        assert np.array_equal(x, np.load(tmp_path / task / "x.npy"))
        assert np.array_equal(y, np.load(tmp_path / task / "y.npy"))
        assert x.dtype == np.float64 and x.flags.c_contiguous and x.shape[0] == 50


def test_tasks_match_the_command_line(cli):
    import json

    _, out, _ = run_cli(cli, "tasks", "--json")
    suite = [t for t in json.loads(out) if t["id"] not in mibound.PARAMETRIC_TASKS]
    ours = mibound.tasks()
    assert ours == suite and len(ours) >= 40
    assert ours[0].id == ours[0]["id"]


def test_the_library_time_inside_a_call_is_recorded(gaussian):
    import time

    x, y = gaussian
    started = time.perf_counter()
    mibound.estimate(x, y, estimators="ksg")
    total = time.perf_counter() - started
    assert 0 < mibound._native._last_compare_seconds() <= total


@pytest.mark.training
def test_one_estimator_alone_gives_the_comparisons_number(gaussian):
    # MutualInformation runs the estimator alone (no permutation test): the same number.
    x, y = gaussian
    for name, kw in (("infonce", NEURAL_KW), ("ksg:k=3", {})):
        ref = mibound.estimate(x, y, estimators=name, seed=3, **kw).estimates[0]
        mi = mibound.MutualInformation(name, seed=3, **kw).fit(x, y)
        assert mi.value_ == ref.value and mi.interval_ == (ref.interval.low, ref.interval.high)
        assert mi.estimate_.estimator == ref.estimator and mi.kind_ == ref.kind


def test_selfcheck_matches_the_command_line_and_flags_a_non_invariant_estimator(cli, tmp_path):
    x, y = mibound.sample("multinormal-dense-2-2-0.5", 800, 3)
    ours = mibound.estimate(x, y, selfcheck=True)
    ref = cli_json(cli, x, y, tmp_path, "--selfcheck")
    assert without_wall(ours.to_dict()) == without_wall(ref)
    sc = ours.selfcheck
    # The default in 2 + 2 dimensions: KSG on normal scores, which ranks make exactly invariant.
    assert sc.estimator == "ksg:k=3:margins=normal" and sc.mapped == sc.value
    assert sc.failures == [] and not any(w["code"] == "self-check" for w in ours.warnings)
    # The Gaussian (CCA) estimate sees only linear dependence: sinh of every coordinate moves
    # it, and the check says so in `failures` and in the warnings.
    g = mibound.estimate(x, y, estimators="gaussian", selfcheck=True)
    assert any(f.startswith("invariance:") for f in g.selfcheck.failures)
    # Warnings are objects: a stable code, the sentence and the numbers behind it.
    assert any(w["code"] == "self-check" and w["message"].startswith("self-check of") for w in g.warnings)
    assert "selfcheck" not in mibound.estimate(x, y, estimators="ksg")
