"""Inputs and outputs at the Python edge: arrays and pandas objects in, the library's notes
and warnings out. No defaults and no data rules are written here: both come from the library."""

from __future__ import annotations

import numbers
import warnings
from typing import Any, List, Optional, Sequence, Tuple

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
    return type(a).__module__.split(".")[0] == "pandas" and hasattr(a, "to_numpy") and hasattr(a, "ndim") \
        and hasattr(a, "index")


def _is_pandas_array(a: Any) -> bool:
    """Whether ``a`` is one of pandas' own arrays (``pd.array(...)``, ``df.col.values`` of a
    nullable, categorical or string column: IntegerArray, FloatingArray, BooleanArray,
    Categorical, StringArray, …)."""
    return type(a).__module__.split(".")[0] == "pandas" and not is_pandas(a) and hasattr(a, "to_numpy")


def _is_sparse(a: Any) -> bool:
    """Whether ``a`` is a scipy sparse matrix or array (without importing scipy)."""
    return type(a).__module__.startswith("scipy.sparse") and hasattr(a, "toarray")


#: The most values a sparse input is densified to (512 MiB of float64); larger is refused.
MAX_DENSE_VALUES = 1 << 26

#: The sentence the command line gives a cell that marks a missing value (src/data/files.rs).
MISSING = "marks a missing value; every value is needed (drop or fill missing values)"


def _missing(v: Any) -> bool:
    """Whether one cell is a missing value (None, NaN, pandas' NA or NaT)."""
    if v is None:
        return True
    try:
        return bool(v != v) or type(v).__name__ in ("NAType", "NaTType")
    except (TypeError, ValueError):
        return type(v).__name__ in ("NAType", "NaTType")


class Column:
    """One column of an input as read: float64 values, and for a column of text (or a pandas
    category) the categories, coded 0, 1, 2, … in sorted order of their texts (numpy's
    ``unique`` and the command line's order)."""

    def __init__(self, values: np.ndarray, categories: Optional[list] = None):
        self.values = values
        self.categories = categories


def _refuse_missing(values: Any, mask: np.ndarray, what: str, j: int, name: str) -> None:
    i = int(np.flatnonzero(mask)[0])
    shown = values[i]
    shown = "<NA>" if type(shown).__name__ == "NAType" or shown is None else str(shown)
    raise ValueError(f"{what}, row {i}, column {j} ('{name}'): '{shown}' {MISSING}")


def _column(v: Any, what: str, j: int, name: str) -> Column:
    """A 1-D column of any numpy or pandas dtype as float64 values: numbers (nullable ones
    too) as they are, booleans as 0/1, text and categories as category codes; a missing value
    (``pd.NA``, ``None``, NaN in a nullable or text column) is a ValueError naming its row and
    column; anything else (dates, complex numbers) a TypeError naming the argument."""
    dtype = getattr(v, "dtype", None)
    kind = getattr(dtype, "kind", None)
    if type(dtype).__name__ == "CategoricalDtype" and len(v):
        codes = np.asarray(v.codes)
        if (codes < 0).any():
            _refuse_missing(np.asarray(v, dtype=object), codes < 0, what, j, name)
        cats = [str(c) for c in v.categories]
        order = np.argsort(np.array(cats, dtype=object), kind="stable")
        rank = np.empty(len(cats), dtype=np.float64)
        rank[order] = np.arange(len(cats))
        return Column(rank[codes], sorted(cats))
    if dtype is not None and type(dtype).__module__.split(".")[0] == "pandas":
        # A nullable (masked) or arrow array: its missing values first, then its numbers.
        na = np.asarray(v.isna()) if hasattr(v, "isna") else np.zeros(len(v), dtype=bool)
        if na.any():
            _refuse_missing(np.asarray(v, dtype=object), na, what, j, name)
        if kind in "iufb":
            return Column(np.asarray(v.to_numpy(dtype=np.float64), dtype=np.float64))
        v = np.asarray(v, dtype=object)
        kind = "O"
    a = np.asarray(v)
    if a.dtype.kind in "fiub":
        return Column(np.asarray(a, dtype=np.float64) if a.dtype.kind != "f" else a)
    if a.dtype.kind in "OUS":
        cells = list(a)
        na = np.array([_missing(c) for c in cells], dtype=bool)
        if na.any():
            _refuse_missing(a, na, what, j, name)
        try:
            # (No cells at all is an empty column of numbers: the data rules refuse it.)
            return Column(np.array([float(c) for c in cells], dtype=np.float64))
        except (TypeError, ValueError):
            pass
        texts = [c.decode() if isinstance(c, bytes) else str(c) for c in cells]
        cats, codes = np.unique(np.array(texts, dtype=object), return_inverse=True)
        return Column(codes.astype(np.float64), [str(c) for c in cats])
    raise TypeError(f"{what}: expected an array of numbers, got a column of {a.dtype} (column {j} ('{name}'))")


def _array(a: Any, what: str) -> np.ndarray:
    """float64 or float32 arrays pass as they are (no copy); anything else becomes float64."""
    if isinstance(a, np.ndarray) and a.dtype in (np.float64, np.float32):
        return a
    try:
        return np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{what}: expected an array of numbers ({e})") from None


def read(a: Any, what: str) -> Tuple[np.ndarray, Optional[List[str]], dict]:
    """The values of ``a`` (float64 or float32, 1-D or 2-D), its column names (a DataFrame's
    columns, a Series' name, else ``None``: the library names columns by index) and the
    categories of its columns of text or pandas categories (``{position: [texts]}``), read as
    codes ``0, 1, 2, …`` in sorted order. Accepts numpy arrays of any numeric, boolean or text
    dtype, pandas DataFrames, Series and arrays (nullable ``Int64``/``Float64``/``boolean``,
    ``category``, strings), scipy sparse matrices (densified up to :data:`MAX_DENSE_VALUES`
    values) and anything numpy turns into an array (lists, CPU torch tensors)."""
    if _is_sparse(a):
        rows, cols = a.shape
        if rows * cols > MAX_DENSE_VALUES:
            raise ValueError(
                f"{what}: a scipy sparse matrix of {rows} × {cols} is too large to densify ({rows * cols} values; "
                f"at most {MAX_DENSE_VALUES}): select the columns to use first"
            )
        a = a.toarray()
    if _is_pandas_array(a):
        a = __import__("pandas").Series(a)
    if is_pandas(a):
        if a.ndim == 1:
            names = [str(a.name) if a.name is not None else "0"]
            cols = [a]
        else:
            names = [str(c) for c in a.columns]
            if all(isinstance(t, np.dtype) and t.kind in "fiub" for t in a.dtypes):
                # Numbers throughout (the common case): one copy.
                return _array(a.to_numpy(), what), names, {}
            cols = [a.iloc[:, j] for j in range(a.shape[1])]
        # A column of a numpy dtype as its numpy array (NaN then refused by the data rules, as
        # from a file), else pandas' own array (nullable, categorical, strings).
        read_cols = [
            _column(c.to_numpy() if isinstance(c.dtype, np.dtype) else c.array, what, j, names[j])
            for j, c in enumerate(cols)
        ]
        cats = {j: c.categories for j, c in enumerate(read_cols) if c.categories is not None}
        if a.ndim == 1:
            return read_cols[0].values, names, cats
        values = np.column_stack([c.values for c in read_cols]) if read_cols else np.empty((len(a), 0))
        return values, names, cats
    if isinstance(a, np.ndarray) and a.dtype in (np.float64, np.float32):
        return a, None, {}
    if not isinstance(a, np.ndarray):
        try:
            arr = np.asarray(a)
        except (TypeError, ValueError) as e:
            raise TypeError(f"{what}: expected an array of numbers ({e})") from None
    else:
        arr = a
    if arr.dtype.kind in "fiub":
        return _array(arr, what), None, {}
    if arr.dtype.kind in "OUS" and arr.ndim in (1, 2):
        two = arr.reshape(len(arr), -1) if arr.ndim == 2 else arr.reshape(-1, 1)
        read_cols = [_column(two[:, j], what, j, str(j)) for j in range(two.shape[1])]
        values = np.column_stack([c.values for c in read_cols]) if read_cols else np.empty((len(arr), 0))
        cats = {j: c.categories for j, c in enumerate(read_cols) if c.categories is not None}
        return (values.reshape(-1) if arr.ndim == 1 else values), None, cats
    if arr.dtype.kind in "OUS":
        return _array(arr, what), None, {}
    raise TypeError(f"{what}: expected an array of numbers, got an array of {arr.dtype}")


def levels(cats: dict, a: np.ndarray) -> Optional[List[Optional[List[str]]]]:
    """The levels of each column of ``a`` read as categories (:func:`read`'s ``cats``), in the
    order of their codes, ``None`` for a column of numbers: the library names a constant
    label by its text with them, as the command line does. ``None`` when no column is text."""
    if not cats:
        return None
    width = 1 if a.ndim == 1 else a.shape[1]
    return [cats.get(j) for j in range(width)]


def as_input(a: Any, what: str) -> Tuple[np.ndarray, Optional[List[str]]]:
    """The array of ``a`` and its column names (:func:`read`) for the conditional estimators,
    which read numbers only: a column of text or categories is a ValueError naming it, with
    the command line's sentence for ``--given`` (the callers that take label columns use
    :func:`read`)."""
    from . import _native

    values, names, cats = read(a, what)
    refuse_text(cats, names, what, allowed=(), advice=_native.GIVEN_TEXT_ADVICE)
    return values, names


def refuse_text(cats: dict, names: Optional[List[str]], what: str, allowed: Any, option: str = "",
                advice: Optional[str] = None) -> None:
    """A ValueError for the first column of text (or categories) not among ``allowed``
    (positions): the command line's sentence for a cell that is not a number, with the option
    that declares the column discrete (or ``advice`` where none can be)."""
    from . import _native

    for j, c in sorted(cats.items()):
        if j not in allowed:
            name = names[j] if names else str(j)
            how = f"; declare it with {option}=[{name!r}]" if names else f"; declare it with {option}=[{j}]"
            how = how if option else ""
            raise ValueError(f"{what}, column {j} ('{name}'): '{c[0]}' is not a number "
                             f"({advice or _native.TEXT_ADVICE}{how if advice is None else ''})")


def column_positions(columns: Any, names: Optional[Sequence[str]], what: str, count: Optional[int] = None) -> list:
    """Positions of ``columns`` (indices, or names among ``names``, a DataFrame's columns):
    a name that is no column, or an index out of range (``count`` columns), is a ValueError
    naming the argument ``what``."""
    names = list(names or [])
    out = []
    for c in ([columns] if isinstance(columns, (str, int, np.integer)) else columns):
        if isinstance(c, (int, np.integer)) and not isinstance(c, (bool, np.bool_)):
            if count is not None and not -count <= int(c) < count:
                raise ValueError(f"{what}: index {int(c)} is out of range for {count} columns")
            out.append(int(c) % count if count else int(c))
        elif isinstance(c, str) and c in names:
            out.append(names.index(c))
        else:
            known = f"columns: {names}" if names else "the data has no column names: give indices"
            raise ValueError(f"{what}: {c!r} is not a column of the data ({known})")
    return out


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


def seed_value(seed: Any, what: str = "seed") -> int:
    """A seed of the library's generator from what a user passes: an integer from 0 to
    2^64 − 1 (numpy's integers too; outside that range a ValueError naming ``what``, not
    reduced: two different seeds never give the same numbers), or a numpy ``Generator`` or
    ``RandomState``, from which one such integer is drawn (so the call advances it, as
    scikit-learn's estimators do). Anything else is a TypeError naming ``what``."""
    if isinstance(seed, numbers.Integral) and not isinstance(seed, (bool, np.bool_)):
        s = int(seed)
        if s < 0:
            raise ValueError(f"invalid {what} = {s}: must not be negative")
        if s >= 1 << 64:
            raise ValueError(f"invalid {what} = {s}: must be below 2^64 (a seed is a 64-bit unsigned integer)")
        return s
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, 1 << 64, dtype=np.uint64))
    if isinstance(seed, np.random.RandomState):
        return int(seed.randint(0, 1 << 63, dtype=np.int64))
    raise TypeError(f"{what}: expected an integer (0 to 2^64 − 1) or a numpy Generator, got {type(seed).__name__}")
