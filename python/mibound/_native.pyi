"""Type stubs of the native extension (Rust, PyO3); use the wrappers in `mibound`.
python/tests/test_stub.py checks these signatures against the compiled module's."""

from typing import Any, Callable, List, Optional, Sequence, Tuple, TypedDict, Union

import numpy as np
import numpy.typing as npt

__version__: str
ESTIMATORS: str
BOUNDS: str
PARAMETRIC_TASKS: List[str]

_Float = Union[npt.NDArray[np.float64], npt.NDArray[np.float32]]

class Options(TypedDict, total=False):
    """The options object of `estimate` and `estimate_one`: a missing key takes the library's
    default (`defaults()`), an unknown key is a ValueError."""

    estimators: Union[str, Sequence[str]]
    seed: int
    unit: str
    critic: str
    hidden: Sequence[int]
    embed: int
    batch: int
    steps: int
    lr: float
    weight_decay: float
    folds: int
    transform: str
    drop_constant: bool

def defaults() -> dict[str, Any]: ...
def estimate(
    x: _Float,
    y: _Float,
    options: Options,
    x_names: Optional[Sequence[str]] = None,
    y_names: Optional[Sequence[str]] = None,
    progress: Optional[Callable[[int, int], None]] = None,
) -> dict[str, Any]: ...
def estimate_one(
    x: _Float,
    y: _Float,
    options: Options,
    x_names: Optional[Sequence[str]] = None,
    y_names: Optional[Sequence[str]] = None,
    progress: Optional[Callable[[int, int], None]] = None,
) -> dict[str, Any]: ...
def tasks() -> List[dict[str, Any]]: ...
def sample(task: str, n: int, seed: int, dim: int, mi: float) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
def bound(name: str, s: _Float) -> Tuple[float, float, _Float]: ...
def _raise_error(kind: str) -> None: ...
def _last_compare_seconds() -> float: ...
