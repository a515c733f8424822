"""mibound: mutual-information estimation in Rust, from Python.

    >>> import mibound
    >>> x, y = mibound.sample("1v1-normal-0.75", 5000, seed=0)
    >>> r = mibound.estimate(x, y, estimators=("infonce", "ksg"), seed=0)
    >>> r.headline.value, r.estimates[1].interval.low

``estimate`` returns what ``mibound estimate --json`` prints, as a :class:`Comparison`: a ``dict``
whose keys are also attributes (``r["estimates"][0]["value"] == r.estimates[0].value``), with
``to_frame()`` (a tidy pandas DataFrame) and ``plot()`` (matplotlib). :class:`MutualInformation`
is one estimator with scikit-learn's conventions (``fit``, ``value_``, ``interval_``,
``get_params``/``set_params``).

Arrays are numpy float64 or float32, 1-D (one column) or 2-D (rows are samples), in any memory
order, or pandas DataFrames/Series (their column names name the columns in messages and
results); anything else numpy can turn into an array (lists, integer arrays, CPU torch tensors)
is converted to float64 first. Bad data is refused with the command line's sentence (a
``ValueError``); the notes of the data rules are :class:`DataWarning` warnings. Every default is
the library's (:data:`DEFAULTS`). Ctrl-C stops a running estimate with ``KeyboardInterrupt``.

Per-feature MI with scikit-learn's signatures and return type: :func:`mutual_info_regression`
and :func:`mutual_info_classif` (the same numbers as scikit-learn's for the same
``random_state``), :func:`mi_matrix` (all pairs), :func:`conditional_mi` and
:func:`conditional_test` (I(X; Y | Z) and a test of conditional independence).

Submodules: :mod:`mibound.bounds` (bounds on a score matrix with their gradients, for critics
trained in PyTorch) and :mod:`mibound.bmi` (an estimator for benchmark-mi).
"""

from __future__ import annotations

import types
from typing import Any, Iterable, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _native
from ._data import (DataWarning, EstimateWarning, column_positions, levels, message, read, refuse_text, seed_value,
                    warn_each)
from .progress import callback as _progress_callback
from .progress import finish as _progress_finish

__version__: str = _native.__version__

#: Every estimator name with its parameters (``infonce``, ``smile:5``, ``ksg:k=5``, …).
ESTIMATORS: str = _native.ESTIMATORS
#: The tasks ``sample`` draws at a given ``dim`` and ``mi`` (besides the task suite's ids).
PARAMETRIC_TASKS: Tuple[str, ...] = tuple(_native.PARAMETRIC_TASKS)

#: The library's default of every option of :func:`estimate` (read from the native module,
#: never written in Python): the command line's defaults.
DEFAULTS: Mapping[str, Any] = types.MappingProxyType(
    {k: tuple(v) if isinstance(v, list) else v for k, v in _native.defaults().items()}
)

#: The estimators ``estimate`` runs when none are named (the library's).
DEFAULT_ESTIMATORS: Tuple[str, ...] = DEFAULTS["estimators"]

__all__ = [
    "mutual_info_regression",
    "mutual_info_classif",
    "mi_matrix",
    "conditional_mi",
    "conditional_test",
    "Comparison",
    "DataWarning",
    "EstimateWarning",
    "Estimate",
    "MutualInformation",
    "Record",
    "estimate",
    "sample",
    "tasks",
    "DEFAULTS",
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
    ``significant``, ``dependence_test``, ``warnings`` (each ``{"code", "message", "values"}``:
    a stable code such as ``cross-check``, the sentence and the numbers behind it), ``unit``
    and, with ``selfcheck=True``,
    ``selfcheck``; and from the data rules
    ``notes`` (each ``{"code", "message"}``, also given as warnings), ``x_columns`` and
    ``y_columns`` (the names of the columns used)."""

    def __init__(self, data: dict):
        super().__init__({k: Record._wrap(v) for k, v in data.items()})
        self["estimates"] = [Estimate(e) for e in self["estimates"]]

    @property
    def headline(self) -> Optional[Estimate]:
        """The headline estimate: the first lower bound, else the first estimate, as the library
        chooses it for every surface (``headline``, its index)."""
        i = self.get("headline")
        return None if i is None else self["estimates"][i]

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
        given = f", given z in R^{self['dim_z']}" if self.get("dim_z") is not None else ""
        lines = [f"Comparison({self['n_samples']} samples, x in R^{self['dim_x']}, y in R^{self['dim_y']}{given})"]
        lines += [f"  {e!r}" for e in self["estimates"]]
        # Each estimate's own warnings, then the comparison's, as the command line prints them.
        lines += [f"  warning: {message(w)}" for e in self["estimates"] for w in e["diagnostics"]["warnings"]]
        lines += [f"  warning: {message(w)}" for w in self["warnings"]]
        return "\n".join(lines)

    def to_frame(self) -> Any:
        """A tidy pandas DataFrame, one row per estimator: ``estimator``, ``label``, ``value``,
        ``low``, ``high`` (in the result's ``unit``), ``unit``, ``kind``, ``seconds`` (wall
        time) and ``warnings`` (the estimate's warnings joined by ``"; "``). Needs pandas."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("Comparison.to_frame() needs pandas: pip install pandas") from None
        rows = []
        for e in self["estimates"]:
            u = e["in_unit"]
            rows.append(
                {
                    "estimator": e["estimator"],
                    "label": e["label"],
                    "value": _float(u["value"]),
                    "low": _float(u["low"]),
                    "high": _float(u["high"]),
                    "unit": self["unit"],
                    "kind": e["kind"],
                    "seconds": e["wall_seconds"],
                    "warnings": "; ".join(message(w) for w in e["diagnostics"].get("warnings", [])),
                }
            )
        columns = ["estimator", "label", "value", "low", "high", "unit", "kind", "seconds", "warnings"]
        return pd.DataFrame(rows, columns=columns)

    def plot(self, ax: Any = None, true_mi: Optional[float] = None) -> Any:
        """Each estimate as a point with its 95 % interval, one row per estimator, coloured by
        kind (lower bound, estimate, upper bound if exact), in the result's ``unit``; ``true_mi``
        (same unit) draws a reference line. Returns the matplotlib Axes. Needs matplotlib."""
        try:
            import matplotlib.pyplot as plt
        except ImportError:
            raise ImportError("Comparison.plot() needs matplotlib: pip install matplotlib") from None
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 0.5 + 0.45 * len(self["estimates"])))
        colours = {"lower": "tab:blue", "estimate": "tab:green", "upper-if-exact": "tab:orange"}
        seen = set()
        for k, e in enumerate(self["estimates"]):
            u = e["in_unit"]
            v, lo, hi = _float(u["value"]), _float(u["low"]), _float(u["high"])
            label = e["kind"] if e["kind"] not in seen else None
            seen.add(e["kind"])
            ax.errorbar(
                [v], [k], xerr=[[max(v - lo, 0.0)], [max(hi - v, 0.0)]], fmt="o", capsize=4,
                color=colours.get(e["kind"], "tab:gray"), label=label,
            )
        if true_mi is not None:
            ax.axvline(true_mi, color="black", linestyle="--", linewidth=1, label="true MI")
        ax.set_yticks(range(len(self["estimates"])))
        ax.set_yticklabels([e["label"] for e in self["estimates"]])
        ax.invert_yaxis()
        what = "I(X; Y | Z)" if self.get("dim_z") is not None else "I(X; Y)"
        ax.set_xlabel(f"{what} ({self['unit']})")
        ax.legend(loc="best", fontsize="small")
        return ax


def _num(v: Optional[float]) -> str:
    return "nan" if v is None else f"{v:.3f}"


def _float(v: Optional[float]) -> float:
    """A JSON number, or NaN for the null a non-finite number becomes."""
    return float("nan") if v is None else float(v)


def _plain(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


def _options(estimators: Any, seed: int, unit: str, critic: str, hidden: Any, embed: int, batch: int,
             steps: int, lr: float, weight_decay: float, folds: int, transform: str, drop_constant: bool,
             discrete_x: Any = (), discrete_y: Any = (), repeats: str = "drop",
             max_memory_mb: Optional[int] = None) -> dict:
    """The options object of the native call (label columns as given: :func:`_call` turns names
    into positions)."""
    if isinstance(hidden, (int, np.integer)):
        hidden = [int(hidden)]
    else:
        hidden = [int(h) for h in hidden]
    if not isinstance(estimators, str):
        estimators = list(estimators)
    seed = seed_value(seed, "seed")
    return dict(estimators=estimators, seed=seed, unit=unit, critic=critic, hidden=hidden, embed=embed,
                batch=batch, steps=steps, lr=lr, weight_decay=weight_decay, folds=folds, transform=transform,
                drop_constant=drop_constant, discrete_x=discrete_x, discrete_y=discrete_y, repeats=repeats,
                max_memory_mb=max_memory_mb)


def _call(native: Any, x: Any, y: Any, options: dict, progress: Any, **flags: Any) -> dict:
    """A native estimate on ``x`` and ``y`` (arrays or pandas objects) with progress; the data
    rules' notes become warnings."""
    (xa, xn, xc), (ya, yn, yc) = read(x, "x"), read(y, "y")
    options = dict(options, discrete_x=column_positions(options.get("discrete_x", ()), xn, "discrete_x"),
                   discrete_y=column_positions(options.get("discrete_y", ()), yn, "discrete_y"))
    # A column of text is read as categories where it is declared a label, as on the command line.
    refuse_text(xc, xn, "x", options["discrete_x"], "discrete_x")
    refuse_text(yc, yn, "y", options["discrete_y"], "discrete_y")
    cb = _progress_callback(progress)
    try:
        data = native(xa, ya, options, x_names=xn, y_names=yn, progress=cb, x_levels=levels(xc, xa),
                      y_levels=levels(yc, ya), **flags)
    finally:
        _progress_finish(cb)
    warn_each(data.get("notes", []), DataWarning, stacklevel=4)
    return data


_D = DEFAULTS


def estimate(
    x: Any,
    y: Any,
    estimators: Union[str, Sequence[str]] = _D["estimators"],
    seed: int = _D["seed"],
    *,
    unit: str = _D["unit"],
    critic: str = _D["critic"],
    hidden: Union[int, Sequence[int]] = _D["hidden"],
    embed: int = _D["embed"],
    batch: int = _D["batch"],
    steps: int = _D["steps"],
    lr: float = _D["lr"],
    weight_decay: float = _D["weight_decay"],
    folds: int = _D["folds"],
    transform: str = _D["transform"],
    max_memory_mb: Optional[int] = _D["max_memory_mb"],
    drop_constant: bool = _D["drop_constant"],
    repeats: str = _D["repeats"],
    progress: Any = False,
    selfcheck: bool = False,
    discrete_x: Sequence[Union[int, str]] = _D["discrete_x"],
    discrete_y: Sequence[Union[int, str]] = _D["discrete_y"],
) -> Comparison:
    """Estimates the mutual information I(X; Y) in nats with each of ``estimators``.

    ``x`` (n × dim_x) and ``y`` (n × dim_y) hold one joint sample per row (a 1-D array is one
    column; a DataFrame's column names name its columns). ``estimators`` is a sequence of names
    or one comma-separated string (see :data:`ESTIMATORS`): neural bounds (``infonce``,
    ``smile:5``, ``nwj``, ``js``, ``l1out``, ``club``, …), classical estimators (``ksg``,
    ``ksg:k=3``, ``ksg-blocks``, ``gaussian``, ``copula``, ``binned``) and ``flow``; ``auto`` (the
    default) chooses by the data as ``mibound estimate`` does: KSG summed over independent
    blocks of at most four dimensions (``ksg-blocks``) where the columns fall into such blocks,
    else KSG on normal scores up to four joint dimensions and InfoNCE with KSG beside it above.
    The same seed gives the same numbers as the Rust library and the command line.

    The settings are those of ``mibound estimate``, with its defaults (:data:`DEFAULTS`):
    ``critic`` (``auto``: each fold trains the separable critic of ``hidden``, ``embed`` and
    ``weight_decay`` and two more, each also on the coordinates with their squares, and keeps
    the one that validates highest; or one critic
    alone: separable, concat, cpc, bilinear, cosine), ``hidden`` widths, ``embed``, ``batch``,
    ``steps``, ``lr``, ``weight_decay``, ``folds``, ``transform`` (copula, standardize, none);
    ``unit`` (nats or bits) sets each estimate's ``in_unit``. ``max_memory_mb`` is the memory
    (MB, 10⁶ bytes) a neural estimate may take (``None``: the memory the system reports
    available): before any work it adds up its planned peak and, above the limit, raises
    ``MemoryError`` naming the setting to change. ``drop_constant=True`` drops
    constant columns (with a :class:`DataWarning`) instead of refusing them. Rows that repeat
    an earlier row (exactly, or within a hair) beyond what the values' grid explains are copies,
    which read as dependence: ``repeats='drop'`` (default) keeps one row of each set of copies,
    ``repeats='keep'`` keeps them; either way a :class:`DataWarning` counts them. ``progress=True``
    shows a tqdm bar over the training steps (with the elapsed and the remaining time); a
    callable ``progress(done, total)`` receives the counts (docs/python.md shows one that
    estimates the time left).

    ``selfcheck=True`` also checks the headline estimator on the data itself, as
    ``mibound estimate --selfcheck`` does: two disjoint halves side by side must read about
    twice one half (additivity), a monotone map of every coordinate must not change it
    (invariance), and shuffled rows must read about 0 (independence). The result's
    ``selfcheck`` holds the numbers and ``failures``; each failure is also a warning in
    ``warnings``. It runs the headline estimator six more times (four on the data, two on a reference Gaussian of the same shape), after the estimate (above
    four joint dimensions they train InfoNCE critics, about six times the estimate's own
    time); their training steps count in the progress bar, and Ctrl-C stops them too.

    ``discrete_x`` and ``discrete_y`` name the columns of ``x`` and ``y`` (indices, or names of a
    DataFrame's columns) that are class labels, as ``mibound estimate --discrete`` does: the
    neural bounds embed them (one indicator per level, learned by the critic's first layer),
    ``discrete``, ``ross`` and ``mixed-ksg`` read them as categories, ``auto`` picks one of those
    (``discrete`` when both sides are labels, ``ross`` when one side is labels and the other
    measurements, ``mixed-ksg`` otherwise; above four joint dimensions InfoNCE, with that one as
    its cross-check), and an estimator that would read them as numbers (``ksg``, ``gaussian``,
    …) is refused by name.

    Raises ``ValueError`` for bad data or settings (the command line's sentence, with options
    named as here), ``MemoryError`` for an estimate above ``max_memory_mb`` (before it starts),
    ``TypeError`` for inputs that are not arrays of numbers and
    ``KeyboardInterrupt`` on Ctrl-C (the estimate stops within a training step).
    """
    options = _options(estimators, seed, unit, critic, hidden, embed, batch, steps, lr, weight_decay, folds,
                       transform, drop_constant, discrete_x, discrete_y, repeats, max_memory_mb)
    return Comparison(_call(_native.estimate, x, y, options, progress, selfcheck=selfcheck))


def tasks() -> list:
    """The task suite (benchmark-mi's 40 tasks and mibound's harder ones), as
    ``mibound tasks --json`` lists them: dicts with ``id``, ``name``, ``family``,
    ``description``, ``dim_x``, ``dim_y``, ``true_mi``, ``suggested_n``, ``source`` and
    ``has_optimal_critic``. The parametric tasks (:data:`PARAMETRIC_TASKS`) are drawn by
    :func:`sample` at any ``dim`` and ``mi``."""
    return [Record(t) for t in _native.tasks()]


def sample(
    task_id: str,
    n: int,
    seed: int = _native.DEFAULT_SEED,
    *,
    dim: int = _native.PARAMETRIC_DIM,
    mi: float = _native.PARAMETRIC_MI,
) -> Tuple[np.ndarray, np.ndarray]:
    """``n`` joint samples ``(x, y)`` of a task (float64, rows are samples), the same rows as
    ``mibound sample TASK --n N --seed S``. ``task_id`` is a task-suite id (see :func:`tasks`)
    or a parametric task (``gaussian``, ``cubic``, ``asinh-cubic``) drawn at ``dim`` and
    ``mi`` nats (defaults: the library's, as the command line's)."""
    return _native.sample(task_id, n, seed_value(seed, "seed"), dim, mi)


from . import bounds  # noqa: E402  (submodule, imported for `mibound.bounds.infonce`)
from .estimator import MutualInformation  # noqa: E402
from .features import (  # noqa: E402
    conditional_mi,
    conditional_test,
    mi_matrix,
    mutual_info_classif,
    mutual_info_regression,
)
