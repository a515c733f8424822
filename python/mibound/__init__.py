"""mibound: mutual-information estimation in Rust, from Python.

    >>> import mibound
    >>> x, y = mibound.sample("1v1-normal-0.75", 5000, seed=0)
    >>> r = mibound.estimate(x, y, estimators=("infonce", "ksg"), seed=0)
    >>> r.headline.value, r.estimates[1].interval.low

``estimate`` returns what ``mibound estimate --json`` prints, as a :class:`Comparison`: a ``dict``
whose keys are also attributes (``r["estimates"][0]["value"] == r.estimates[0].value``).

Arrays are numpy float64 or float32, 1-D (one column) or 2-D (rows are samples), in any memory
order; anything else numpy can turn into an array (lists, integer arrays, CPU torch tensors) is
converted to float64 first. Errors in the input are ``ValueError`` with the command line's
message; Ctrl-C stops a running estimate with ``KeyboardInterrupt``.

Submodules: :mod:`mibound.bounds` (bounds on a score matrix with their gradients, for critics
trained in PyTorch) and :mod:`mibound.bmi` (an estimator for benchmark-mi).
"""

from __future__ import annotations

from typing import Any, Iterable, Optional, Sequence, Tuple, Union

import numpy as np

from . import _native

__version__: str = _native.__version__

#: Every estimator name with its parameters (``infonce``, ``smile:5``, ``ksg:k=5``, …).
ESTIMATORS: str = _native.ESTIMATORS
#: The tasks ``sample`` draws at a given ``dim`` and ``mi`` (besides the task suite's ids).
PARAMETRIC_TASKS: Tuple[str, ...] = tuple(_native.PARAMETRIC_TASKS)

#: The estimators ``estimate`` runs when none are named.
DEFAULT_ESTIMATORS: Tuple[str, ...] = ("infonce", "smile:5", "ksg")

__all__ = [
    "Comparison",
    "Estimate",
    "Record",
    "estimate",
    "sample",
    "tasks",
    "ESTIMATORS",
    "DEFAULT_ESTIMATORS",
    "PARAMETRIC_TASKS",
]


class Record(dict):
    """A ``dict`` whose keys are also read as attributes (nested dicts too)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no field '{name}'") from None

    def __dir__(self) -> Iterable[str]:
        return list(super().__dir__()) + list(self.keys())

    @classmethod
    def _wrap(cls, v: Any) -> Any:
        if isinstance(v, dict):
            return Record({k: Record._wrap(x) for k, x in v.items()})
        if isinstance(v, list):
            return [Record._wrap(x) for x in v]
        return v


class Estimate(Record):
    """One estimator's result: ``estimator``, ``label``, ``value`` (nats), ``interval``
    (``low``, ``high``, ``level``, ``method``), ``kind`` (``lower``, ``upper-if-exact``,
    ``estimate``), ``n_samples``, ``dim_x``, ``dim_y``, ``settings``, ``diagnostics``,
    ``wall_seconds`` and ``in_unit`` (``value``, ``low``, ``high`` in the unit asked for)."""

    def __repr__(self) -> str:
        i = self["interval"]
        return f"Estimate({self['estimator']}: {_num(self['value'])} [{_num(i['low'])}, {_num(i['high'])}] nats, {self['kind']})"


class Comparison(Record):
    """The result of :func:`estimate`, with the fields of ``mibound estimate --json``:
    ``n_samples``, ``dim_x``, ``dim_y``, ``estimates`` (a list of :class:`Estimate`),
    ``significant``, ``dependence_test``, ``warnings`` and ``unit``."""

    def __init__(self, data: dict):
        super().__init__({k: Record._wrap(v) for k, v in data.items()})
        self["estimates"] = [Estimate(e) for e in self["estimates"]]

    @property
    def headline(self) -> Optional[Estimate]:
        """The first lower bound, else the first estimate (the command line's headline)."""
        lower = [e for e in self["estimates"] if e["kind"] == "lower"]
        return (lower or self["estimates"] or [None])[0]

    def __getitem__(self, key: Any) -> Any:
        """A field by name, or with an estimator's name the :class:`Estimate` of it
        (``r["ksg:k=5"]``)."""
        if isinstance(key, str) and not dict.__contains__(self, key):
            for e in dict.__getitem__(self, "estimates"):
                if e["estimator"] == key:
                    return e
        return dict.__getitem__(self, key)

    def to_dict(self) -> dict:
        """A plain ``dict`` (as ``json.loads`` of ``mibound estimate --json`` gives)."""
        return _plain(self)

    def __repr__(self) -> str:
        lines = [f"Comparison({self['n_samples']} samples, x in R^{self['dim_x']}, y in R^{self['dim_y']})"]
        lines += [f"  {e!r}" for e in self["estimates"]]
        lines += [f"  warning: {w}" for w in self["warnings"]]
        return "\n".join(lines)


def _num(v: Optional[float]) -> str:
    return "nan" if v is None else f"{v:.3f}"


def _plain(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


def _array(a: Any, what: str) -> np.ndarray:
    """float64 or float32 arrays pass as they are (no copy); anything else becomes float64."""
    if isinstance(a, np.ndarray) and a.dtype in (np.float64, np.float32):
        return a
    try:
        return np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{what}: expected an array of numbers ({e})") from None


def estimate(
    x: Any,
    y: Any,
    estimators: Union[str, Sequence[str]] = DEFAULT_ESTIMATORS,
    seed: int = 0,
    *,
    unit: str = "nats",
    critic: Optional[str] = None,
    hidden: Union[int, Sequence[int], None] = None,
    embed: Optional[int] = None,
    batch: Optional[int] = None,
    steps: Optional[int] = None,
    lr: Optional[float] = None,
    weight_decay: Optional[float] = None,
    folds: Optional[int] = None,
    transform: Optional[str] = None,
) -> Comparison:
    """Estimates the mutual information I(X; Y) in nats with each of ``estimators``.

    ``x`` (n × dim_x) and ``y`` (n × dim_y) hold one joint sample per row (a 1-D array is one
    column). ``estimators`` is a sequence of names or one comma-separated string (see
    :data:`ESTIMATORS`): neural bounds (``infonce``, ``smile:5``, ``nwj``, ``js``, ``l1out``,
    ``club``, …), classical estimators (``ksg``, ``ksg:k=3``, ``gaussian``, ``copula``,
    ``binned``) and ``flow``. The same seed gives the same numbers as the Rust library and the
    command line.

    The settings are those of ``mibound estimate`` (defaults in brackets): ``critic`` [auto:
    each fold trains the separable critic of ``hidden``, ``embed`` and ``weight_decay`` and two
    more (hidden 256, 256, embed 32, weight decay 0.01; ReLU and softplus units) and keeps the
    one that validates highest; or one critic alone: separable, concat, cpc, bilinear,
    cosine], ``hidden`` widths [512], ``embed`` [32],
    ``batch`` [256], ``steps`` [3000], ``lr`` [5e-4], ``weight_decay`` [0], ``folds`` [5],
    ``transform`` [copula; also standardize, none]; ``unit`` (nats or bits) sets each estimate's
    ``in_unit``.

    Raises ``ValueError`` for bad input or settings (the command line's message, with options
    named as here), ``TypeError`` for inputs that are not arrays of numbers and
    ``KeyboardInterrupt`` on Ctrl-C (the estimate stops within a training step).
    """
    if isinstance(hidden, (int, np.integer)):
        hidden = [int(hidden)]
    elif hidden is not None:
        hidden = [int(h) for h in hidden]
    data = _native.estimate(
        _array(x, "x"),
        _array(y, "y"),
        estimators,
        seed,
        unit,
        critic=critic,
        hidden=hidden,
        embed=embed,
        batch=batch,
        steps=steps,
        lr=lr,
        weight_decay=weight_decay,
        folds=folds,
        transform=transform,
    )
    return Comparison(data)


def tasks() -> list:
    """The task suite (benchmark-mi's 40 tasks and mibound's harder ones), as
    ``mibound tasks --json`` lists them: dicts with ``id``, ``name``, ``family``,
    ``description``, ``dim_x``, ``dim_y``, ``true_mi``, ``suggested_n``, ``source`` and
    ``has_optimal_critic``. The parametric tasks (:data:`PARAMETRIC_TASKS`) are drawn by
    :func:`sample` at any ``dim`` and ``mi``."""
    return [Record(t) for t in _native.tasks()]


def sample(task_id: str, n: int, seed: int = 0, *, dim: int = 20, mi: float = 2.0) -> Tuple[np.ndarray, np.ndarray]:
    """``n`` joint samples ``(x, y)`` of a task (float64, rows are samples), the same rows as
    ``mibound sample TASK --n N --seed S``. ``task_id`` is a task-suite id (see :func:`tasks`)
    or a parametric task (``gaussian``, ``cubic``, ``asinh-cubic``) drawn at ``dim`` and
    ``mi`` nats."""
    return _native.sample(task_id, n, seed, dim, mi)


from . import bounds  # noqa: E402  (submodule, imported for `mibound.bounds.infonce`)
