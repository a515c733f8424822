"""Per-feature, pairwise and conditional MI with scikit-learn's conventions.

:func:`mutual_info_regression` and :func:`mutual_info_classif` have scikit-learn's signatures
and return type (a float64 array of one MI per feature, in nats, clipped at 0) and compute the
same estimators (KSG for continuous pairs, Ross 2014 for a continuous and a discrete one, the
plug-in for two discrete ones) in the library (``estimators::classical::feature_mi``), in
parallel. The 1e-10-relative tie-breaking noise is drawn here, from numpy, exactly as
scikit-learn draws it from ``random_state`` (X's draws, then y's), and handed to the library:
with the same ``random_state`` the answers are scikit-learn's, to rounding.
:func:`mi_matrix` is the symmetric matrix of MI between all columns, :func:`conditional_mi`
the Frenzel–Pompe estimate of I(X; Y | Z) and :func:`conditional_test` the command line's
``mibound estimate --given`` (estimates, intervals and Runge's local permutation test).
"""

from __future__ import annotations

import numbers
from typing import Any, Optional, Sequence, Tuple, Union

import numpy as np

from . import DEFAULTS, _native
from ._data import (DataWarning, EstimateWarning, as_input, column_positions, is_pandas, read, refuse_text,
                    seed_value, warn_each)

from .progress import callback as _progress_callback
from .progress import finish as _progress_finish

_D = DEFAULTS

#: scikit-learn's ``n_neighbors`` default (the library's, for the per-feature estimators).
N_NEIGHBORS: int = _native.FEATURE_NEIGHBORS
#: The Frenzel–Pompe estimator's default neighbours (the library's).
CONDITIONAL_NEIGHBORS: int = _native.CONDITIONAL_NEIGHBORS

__all__ = ["mutual_info_regression", "mutual_info_classif", "mi_matrix", "conditional_mi", "conditional_test"]


def _random_state(random_state: Any) -> Any:
    """scikit-learn's ``check_random_state``: ``None`` is numpy's global RandomState, an int
    (0 to 2^32 − 1, what RandomState takes) seeds a new RandomState; a RandomState (or a numpy
    Generator) is used as it is."""
    if random_state is None or random_state is np.random:
        return np.random.mtrand._rand
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, (bool, np.bool_)):
        if not 0 <= int(random_state) < 1 << 32:
            raise ValueError(
                f"invalid random_state = {int(random_state)}: must be from 0 to 2^32 − 1 (it seeds numpy's "
                "RandomState, as scikit-learn's does), or a numpy Generator"
            )
        return np.random.RandomState(int(random_state))
    if isinstance(random_state, (np.random.RandomState, np.random.Generator)):
        return random_state
    raise TypeError(f"random_state: {random_state!r} cannot be used to seed a numpy RandomState")


def _matrix(X: Any, what: str = "X") -> Tuple[np.ndarray, Optional[list]]:
    """A 2-D array of numbers and its column names; a column of text is refused, naming it."""
    a, names = as_input(X, what)
    return _two_d(a, what), names


def _two_d(a: np.ndarray, what: str) -> np.ndarray:
    if a.ndim == 1:
        a = a.reshape(-1, 1)
    if a.ndim != 2:
        raise ValueError(f"{what}: expected a 2-D array (rows are samples), got shape {a.shape}")
    return a


def _discrete_mask(a: np.ndarray, names: Optional[list], discrete_features: Any, text: Any = ()) -> np.ndarray:
    """scikit-learn's ``discrete_features`` (a bool, a boolean mask, indices, or names of a
    DataFrame's columns) as a mask; ``"auto"`` asks the library, which treats whole-number
    columns with few values as labels and says so (a :class:`DataWarning` per column;
    scikit-learn's ``"auto"`` reads every column of a dense array as continuous: pass ``False``
    for that). The columns ``text`` (of text or pandas categories) are labels under ``"auto"``;
    declared continuous they are refused."""
    p = a.shape[1]
    if isinstance(discrete_features, str) and discrete_features == "auto":
        mask, notes = _native.column_kinds(a, names, labels=sorted(text))
        warn_each(notes, DataWarning, stacklevel=5)
        return np.asarray(mask, dtype=bool)
    if isinstance(discrete_features, (bool, np.bool_)):
        return np.full(p, bool(discrete_features))
    if isinstance(discrete_features, str):
        discrete_features = [discrete_features]
    d = np.asarray(discrete_features)
    if d.dtype == bool:
        if d.shape != (p,):
            raise ValueError(f"discrete_features: a mask of {d.size} values for {p} columns")
        return d
    if d.ndim != 1 or not (d.dtype.kind in "iu" or d.dtype.kind in "OU" or d.size == 0):
        raise ValueError(
            f"discrete_features: {discrete_features!r} is not 'auto', a bool, a mask, column indices or column names"
        )
    mask = np.zeros(p, dtype=bool)
    mask[column_positions(list(d.tolist()), names, "discrete_features", p)] = True
    return mask


def _noise(rng: Any, n: int, continuous: int, continuous_y: bool) -> Tuple[np.ndarray, Optional[np.ndarray]]:
    """scikit-learn's draws, in its order: ``n × continuous`` for X (none when no column is
    continuous), then ``n`` for a continuous y."""
    ex = rng.standard_normal(size=(n, continuous)) if continuous else np.zeros((n, 0))
    ey = rng.standard_normal(size=n) if continuous_y else None
    return np.asfortranarray(ex), ey


def _target(y: Any, discrete_target: bool) -> np.ndarray:
    """The target as float64: a class label's texts or categories as codes; for
    :func:`mutual_info_classif` a target of fractions is refused, as scikit-learn refuses it."""
    yv, _, cats = read(y, "y")
    if yv.ndim == 2 and yv.shape[1] == 1:
        yv = yv.reshape(-1)
    if yv.ndim != 1:
        raise ValueError(f"y: expected one column (a 1-D array), got shape {yv.shape}")
    if cats and not discrete_target:
        raise ValueError(f"y: '{cats[0][0]}' is not a number: mutual_info_regression needs a continuous target "
                         "(use mutual_info_classif for a class label)")
    yv = np.ascontiguousarray(yv, dtype=np.float64)
    if discrete_target and not cats:
        frac = yv[np.isfinite(yv) & (yv != np.round(yv))]
        if frac.size:
            raise ValueError(
                f"y: Unknown label type: continuous (values such as {frac[0]:g} are not class labels); "
                "mutual_info_classif needs a class label: use mutual_info_regression for a continuous target, "
                "or bin it first"
            )
    return yv


def _estimate_mi(X: Any, y: Any, discrete_target: bool, discrete_features: Any, n_neighbors: int,
                 random_state: Any) -> np.ndarray:
    a, names, cats = read(X, "X")
    a = _two_d(a, "X")
    yv = _target(y, discrete_target)
    mask = _discrete_mask(a, names, discrete_features, cats)
    refuse_text(cats, names, "X", set(np.flatnonzero(mask).tolist()), "discrete_features")
    rng = _random_state(random_state)
    ex, ey = _noise(rng, a.shape[0], int((~mask).sum()), not discrete_target)
    mi, warned, notes = _native.feature_mi(a, yv, [bool(m) for m in mask], discrete_target, n_neighbors, ex, ey,
                                           x_names=names)
    warn_each(notes, DataWarning, stacklevel=4)
    warn_each(warned, EstimateWarning, stacklevel=4)
    return mi


def mutual_info_regression(
    X: Any,
    y: Any,
    *,
    discrete_features: Union[str, bool, Sequence[int], Sequence[bool], Sequence[str]] = "auto",
    n_neighbors: int = N_NEIGHBORS,
    copy: bool = True,
    random_state: Any = None,
    n_jobs: Optional[int] = None,
) -> np.ndarray:
    """The MI (nats) of each column of ``X`` (n × p) against the continuous target ``y``: a
    float64 array of ``p`` values clipped at 0, as ``sklearn.feature_selection
    .mutual_info_regression`` with the same arguments returns (KSG with ``n_neighbors`` for a
    continuous column, Ross 2014 for a discrete one).

    ``discrete_features``: ``False``/``True`` (every column), a boolean mask, column indices or
    a DataFrame's column names, or ``"auto"``: the library's detection (whole-number columns
    with at most 10 values, and columns of text or pandas categories, are labels, each
    detected one with a :class:`mibound.DataWarning`); scikit-learn's ``"auto"`` reads a dense
    ``X`` as continuous. ``random_state`` (``None``: numpy's global state, an int from 0 to
    2^32 − 1, a RandomState or a Generator) draws the 1e-10 tie-breaking noise as scikit-learn
    does, so the same ``random_state`` gives scikit-learn's numbers. ``copy`` and ``n_jobs``
    are accepted for compatibility: ``X`` is never modified, and the features run on all
    cores. A column whose values the noise swamps after the scaling (one magnitude far beyond
    the rest) and an ``n_neighbors`` above half of the rows are each an
    :class:`mibound.EstimateWarning`.
    """
    del copy, n_jobs
    return _estimate_mi(X, y, False, discrete_features, n_neighbors, random_state)


def mutual_info_classif(
    X: Any,
    y: Any,
    *,
    discrete_features: Union[str, bool, Sequence[int], Sequence[bool], Sequence[str]] = "auto",
    n_neighbors: int = N_NEIGHBORS,
    copy: bool = True,
    random_state: Any = None,
    n_jobs: Optional[int] = None,
) -> np.ndarray:
    """The MI (nats) of each column of ``X`` against the class label ``y`` (numbers or strings):
    as ``sklearn.feature_selection.mutual_info_classif`` (Ross 2014 for a continuous column, the
    plug-in for a discrete one). Arguments as :func:`mutual_info_regression`. A target of
    fractions is a ``ValueError`` ("Unknown label type: continuous", as scikit-learn says)."""
    del copy, n_jobs
    return _estimate_mi(X, y, True, discrete_features, n_neighbors, random_state)


def mi_matrix(
    X: Any,
    *,
    discrete_features: Union[str, bool, Sequence[int], Sequence[bool], Sequence[str]] = "auto",
    n_neighbors: int = N_NEIGHBORS,
    random_state: Any = None,
) -> Any:
    """The symmetric matrix of MI (nats) between all columns of ``X`` (each pair by the rule of
    :func:`mutual_info_regression`: KSG, Ross or plug-in), not clipped, NaN on the diagonal
    (``I(X; X)`` is infinite for a continuous column). A pandas DataFrame labelled with the
    columns' names when ``X`` is a DataFrame, else a float64 array. Arguments as
    :func:`mutual_info_regression`; the noise is drawn as for it (X's draws only)."""
    a, names, cats = read(X, "X")
    a = _two_d(a, "X")
    mask = _discrete_mask(a, names, discrete_features, cats)
    refuse_text(cats, names, "X", set(np.flatnonzero(mask).tolist()), "discrete_features")
    ex, _ = _noise(_random_state(random_state), a.shape[0], int((~mask).sum()), False)
    m, warned, notes = _native.mi_matrix(a, [bool(v) for v in mask], n_neighbors, ex, x_names=names)
    warn_each(notes, DataWarning, stacklevel=3)
    warn_each(warned, EstimateWarning, stacklevel=3)
    if is_pandas(X) and X.ndim == 2:
        import pandas as pd

        return pd.DataFrame(m, index=X.columns, columns=X.columns)
    return m


def _seed(random_state: Any) -> int:
    """The library's seed from ``random_state``: ``None`` is the library's default seed, an
    integer from 0 to 2^64 − 1 is used as it is, a numpy Generator or RandomState gives one."""
    return _native.DEFAULT_SEED if random_state is None else seed_value(random_state, "random_state")


def conditional_mi(
    x: Any,
    y: Any,
    z: Any,
    *,
    n_neighbors: int = CONDITIONAL_NEIGHBORS,
    random_state: Any = None,
) -> float:
    """The Frenzel–Pompe (KSG) estimate of the conditional MI I(X; Y | Z) in nats (not clipped:
    near 0 it can be slightly negative). ``x``, ``y``, ``z``: one row per sample (1-D arrays are
    one column), continuous. Each column is standardised and gets 1e-10-relative tie-breaking
    noise seeded by ``random_state`` (an integer from 0 to 2^64 − 1 or a numpy Generator;
    ``None`` is the library's default seed, so the same call gives the same number). See :func:`conditional_test` for an interval and a test."""
    return _native.conditional_mi(_matrix(x, "x")[0], _matrix(y, "y")[0], _matrix(z, "z")[0], n_neighbors,
                                  _seed(random_state))


def conditional_test(
    x: Any,
    y: Any,
    z: Any,
    *,
    estimators: Optional[Union[str, Sequence[str]]] = None,
    permutations: Optional[int] = None,
    k_perm: Optional[int] = None,
    random_state: Any = None,
    drop_constant: bool = _D["drop_constant"],
    repeats: str = _D["repeats"],
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
    progress: Any = False,
) -> Any:
    """``mibound estimate --given`` on arrays: I(X; Y | Z) by each of ``estimators`` (``ksg`` or
    ``ksg:k=K`` — Frenzel–Pompe —, ``gaussian``; default (``auto``): both; or a neural lower
    bound such as ``infonce``, by the chain rule I(X; (Y, Z)) − I(X; Z), trained with the
    settings ``critic``, ``hidden``, ``embed``, ``batch``, ``steps``, ``lr``, ``weight_decay``,
    ``folds``, ``transform``, ``max_memory_mb`` as :func:`mibound.estimate` takes them — about half a minute of
    one core for 5000 rows of three columns with the defaults; Ctrl-C stops it, ``progress``
    shows it) with 95 % intervals, and Runge (2018)'s local permutation test of X ⊥ Y | Z
    (``permutations`` permutations of x within ``k_perm``-neighbourhoods of z; defaults: the
    library's). A :class:`mibound.Comparison` with ``dim_z``; its
    ``dependence_test.p_value`` is the test's p-value and ``significant`` whether it is at most
    0.05. The data rules are those of ``mibound estimate --given``, through the same library
    call: a non-finite value is a ``ValueError`` naming its row and column, constant columns
    are refused (or dropped with ``drop_constant=True``), copies of rows of x, z and y together
    are left out (``repeats='keep'`` keeps them), and columns that look like class labels are
    noted; each note is a :class:`mibound.DataWarning`."""
    from . import Comparison, _options

    options = _options(_D["estimators"] if estimators is None else estimators, _seed(random_state), _D["unit"],
                       critic, hidden, embed, batch, steps, lr, weight_decay, folds, transform, drop_constant,
                       repeats=repeats, max_memory_mb=max_memory_mb)
    (xm, xn), (ym, yn), (zm, zn) = _matrix(x, "x"), _matrix(y, "y"), _matrix(z, "z")
    cb = _progress_callback(progress)
    try:
        data = _native.conditional_test(xm, ym, zm, options, permutations, k_perm, x_names=xn, y_names=yn,
                                        z_names=zn, progress=cb)
    finally:
        _progress_finish(cb)
    warn_each(data.get("notes", []), DataWarning, stacklevel=3)
    return Comparison(data)
