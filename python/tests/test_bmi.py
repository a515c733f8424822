"""The benchmark-mi adapter: bmi's own `run_estimator` runs mibound in process and gets the
number `mibound bmi` (bmi's ExternalEstimator protocol) prints for the same sample."""

import pytest

bmi = pytest.importorskip(
    "bmi",
    reason="benchmark-mi is not installed (pip install benchmark-mi==0.1.3 jax==0.4.33 jaxlib==0.4.33): the adapter tests are skipped",
)

import numpy as np  # noqa: E402
from bmi.benchmark import BENCHMARK_TASKS, run_estimator  # noqa: E402
from bmi.interface import BaseModel, EstimateResult, IMutualInformationPointEstimator  # noqa: E402

from mibound.bmi import MiboundEstimator  # noqa: E402
from conftest import run_cli  # noqa: E402

TASKS = ("1v1-normal-0.75", "multinormal-dense-2-2-0.5")
NEURAL = dict(hidden=64, embed=16, batch=64, steps=150)


@pytest.mark.parametrize("task_id", TASKS)
@pytest.mark.parametrize("name, settings", [("ksg", {}), ("infonce", NEURAL)])
def test_bmi_runs_mibound_in_process(cli, tmp_path, task_id, name, settings):
    task = BENCHMARK_TASKS[task_id]
    path = tmp_path / "sample.csv"
    task.save_sample(path, 2000, 0)
    est = MiboundEstimator(name, seed=0, **settings)
    result = run_estimator(est, f"mibound-{name}", path, task_id, seed=0)
    assert result.success, result.additional_information
    # The command line on the same file, with the same estimator and settings.
    flags = [a for k, v in settings.items() for a in (f"--{k}", v)]
    _, out, _ = run_cli(cli, "bmi", path, task.dim_x, task.dim_y, "--estimators", name, *flags)
    # The CSV is read by pandas here and by mibound there: the same numbers to rounding.
    assert result.mi_estimate == pytest.approx(float(out), abs=1e-9)
    assert abs(result.mi_estimate - task.mutual_information) < 0.2
    info = result.additional_information
    assert info["estimator"].startswith(name) and info["interval"]["low"] <= result.mi_estimate
    assert result.time_in_seconds > 0


def test_the_interface():
    task = BENCHMARK_TASKS[TASKS[0]]
    x, y = task.sample(500, 1)
    est = MiboundEstimator("ksg:k=3", seed=2)
    assert IMutualInformationPointEstimator in type(est).__mro__  # a Protocol: subclassed, not checkable
    v = est.estimate(x, y)
    assert isinstance(v, float) and np.isfinite(v)
    r = est.estimate_with_info(np.asarray(x), np.asarray(y))
    assert isinstance(r, EstimateResult) and r.mi_estimate == v and r.time_in_seconds > 0
    assert r.additional_information["kind"] == "estimate"
    p = est.parameters()
    assert isinstance(p, BaseModel) and p.estimator == "ksg:k=3" and p.seed == 2
    assert MiboundEstimator("infonce", batch=64).parameters().settings == {"batch": 64}
    assert "MiboundEstimator('ksg:k=3', seed=2)" == repr(est)
