"""A benchmark-mi estimator that runs mibound in process.

    >>> from bmi.benchmark import BENCHMARK_TASKS, run_estimator
    >>> from mibound.bmi import MiboundEstimator
    >>> est = MiboundEstimator("ksg")
    >>> est.estimate(*BENCHMARK_TASKS["1v1-normal-0.75"].sample(5000, seed=0))

:class:`MiboundEstimator` implements benchmark-mi's ``IMutualInformationPointEstimator``
(``estimate``, ``estimate_with_info``, ``parameters``), so bmi's own ``run_estimator`` and
benchmark pipelines call it like any built-in estimator, without bmi's ``ExternalEstimator``
writing the sample to a file and starting ``mibound bmi``. The estimate is the same number
``mibound bmi SAMPLE DIM_X DIM_Y --estimators NAME`` prints for the same rows and seed.

This module needs benchmark-mi (``pip install benchmark-mi==0.1.3 jax==0.4.33 jaxlib==0.4.33``);
the rest of mibound does not.
"""

from __future__ import annotations

import time
from typing import Any, Optional

import pydantic
from bmi.interface import BaseModel, EstimateResult, IMutualInformationPointEstimator

from . import _native
from ._data import message
from .estimator import MutualInformation

__all__ = ["MiboundEstimator", "MiboundParams"]


class MiboundParams(BaseModel):
    """The parameters of a :class:`MiboundEstimator` (as bmi records them with each run)."""

    estimator: str
    seed: int
    settings: dict = pydantic.Field(default_factory=dict)


class MiboundEstimator(IMutualInformationPointEstimator):
    """One mibound estimator (``"infonce"``, ``"smile:5"``, ``"ksg:k=5"``, ``"flow"``, …) as a
    benchmark-mi estimator. ``settings`` are :func:`mibound.estimate`'s (``batch``, ``steps``,
    ``critic``, ``hidden``, ``folds``, ``transform``, …).

    ``estimate`` returns the value in nats; ``estimate_with_info`` adds the wall time and, in
    ``additional_information``, the interval, the kind of number (lower bound, upper bound if
    q(y|x) is exact, estimate), warnings and diagnostics."""

    def __init__(self, estimator: str = "infonce", seed: int = _native.DEFAULT_SEED, **settings: Any) -> None:
        self._estimator = estimator
        self._seed = seed
        self._settings = settings

    def _run(self, x: Any, y: Any) -> MutualInformation:
        # The one estimator alone: no comparison, no permutation test.
        return MutualInformation(self._estimator, self._seed, **self._settings).fit(x, y)

    def estimate(self, x: Any, y: Any) -> float:
        """The estimate of I(X; Y) in nats from rows ``x`` (n × dim_x) and ``y`` (n × dim_y)."""
        return _optional(self._run(x, y).estimate_.value)

    def estimate_with_info(self, x: Any, y: Any) -> EstimateResult:
        """The estimate with its wall time and mibound's interval, kind and diagnostics."""
        started = time.perf_counter()
        m = self._run(x, y)
        elapsed = time.perf_counter() - started
        e = m.estimate_
        info = {
            "estimator": e.estimator,
            "label": e.label,
            "kind": e.kind,
            "interval": dict(e.interval),
            "warnings": [message(w) for w in list(e.diagnostics.get("warnings", [])) + m.notes_],
            "mibound_wall_seconds": e.wall_seconds,
        }
        return EstimateResult(mi_estimate=_optional(e.value), time_in_seconds=elapsed, additional_information=info)

    def parameters(self) -> MiboundParams:
        """The estimator's name, seed and settings."""
        return MiboundParams(estimator=self._estimator, seed=self._seed, settings=dict(self._settings))

    def __repr__(self) -> str:
        extra = "".join(f", {k}={v!r}" for k, v in self._settings.items())
        return f"MiboundEstimator({self._estimator!r}, seed={self._seed}{extra})"


def _optional(v: Optional[float]) -> float:
    """A JSON number, or NaN for the null a non-finite estimate becomes."""
    return float("nan") if v is None else float(v)
