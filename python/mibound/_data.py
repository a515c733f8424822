"""Inputs and outputs at the Python edge: arrays and pandas objects in, the library's notes
and warnings out. No defaults and no data rules are written here: both come from the library."""

from __future__ import annotations

import warnings
from typing import Any, List, Optional, Tuple

import numpy as np


class DataWarning(UserWarning):
    """A note of the data rules about accepted data (constant columns dropped, a column that
    looks like the index pandas writes): the command line prints the same sentence on stderr."""


class EstimateWarning(UserWarning):
    """A warning an estimate carries about itself (at its ceiling, not converged, a wide
    interval, …), given as a Python warning where only a number is returned
    (:class:`MutualInformation`): the command line prints the same sentence below its table,
    and :func:`estimate`'s result lists it (``diagnostics.warnings``, its ``repr``)."""


def is_pandas(a: Any) -> bool:
    """Whether ``a`` is a pandas DataFrame or Series (without importing pandas)."""
    return type(a).__module__.split(".")[0] == "pandas" and hasattr(a, "to_numpy")


def _array(a: Any, what: str) -> np.ndarray:
    """float64 or float32 arrays pass as they are (no copy); anything else becomes float64."""
    if isinstance(a, np.ndarray) and a.dtype in (np.float64, np.float32):
        return a
    try:
        return np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{what}: expected an array of numbers ({e})") from None


def as_input(a: Any, what: str) -> Tuple[np.ndarray, Optional[List[str]]]:
    """The array of ``a`` and its column names: a DataFrame's columns, a Series' name, or
    ``None`` (the library then names columns by index, as for a ``.npy`` file)."""
    if is_pandas(a):
        if a.ndim == 1:
            name = a.name
            return _array(a.to_numpy(), what), [str(name) if name is not None else "0"]
        return _array(a.to_numpy(), what), [str(c) for c in a.columns]
    return _array(a, what), None


def message(w: Any) -> str:
    """The text of a warning or note of the library's JSON: a plain string, or an object
    ``{"code": ..., "message": ...}``."""
    if isinstance(w, dict):
        return str(w.get("message", w))
    return str(w)


def code(w: Any) -> Optional[str]:
    """The code of a warning or note object, ``None`` for a plain string."""
    return w.get("code") if isinstance(w, dict) else None


def warn_each(items: List[Any], category: type, stacklevel: int = 3) -> None:
    """Each note or warning of the library's JSON as a Python warning of ``category``: the data
    rules' notes as :class:`DataWarning`, an estimate's warnings as :class:`EstimateWarning`.
    ``stacklevel`` counts from the caller of this function's caller (3: the user's call)."""
    for w in items:
        warnings.warn(message(w), category, stacklevel=stacklevel)
