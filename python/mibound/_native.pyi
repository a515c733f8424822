"""Type stubs of the native extension (Rust, PyO3); use the wrappers in `mibound`.
python/tests/test_stub.py checks these signatures against the compiled module's."""

from typing import Any, Callable, List, Optional, Sequence, Tuple, TypedDict, Union

import numpy as np
import numpy.typing as npt

__version__: str
ESTIMATORS: str
BOUNDS: str
PARAMETRIC_TASKS: List[str]
PARAMETRIC_DIM: int
PARAMETRIC_MI: float
FEATURE_NEIGHBORS: int
CONDITIONAL_NEIGHBORS: int
DEFAULT_SEED: int
TEXT_ADVICE: str
GIVEN_TEXT_ADVICE: str

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
    max_memory_mb: Optional[int]
    drop_constant: bool
    repeats: str
    discrete_x: Sequence[int]
    discrete_y: Sequence[int]

def defaults() -> dict[str, Any]: ...
def estimate(
    x: _Float,
    y: _Float,
    options: Options,
    x_names: Optional[Sequence[str]] = None,
    y_names: Optional[Sequence[str]] = None,
    progress: Optional[Callable[[int, int], None]] = None,
    selfcheck: bool = False,
    x_levels: Optional[Sequence[Optional[Sequence[str]]]] = None,
    y_levels: Optional[Sequence[Optional[Sequence[str]]]] = None,
) -> dict[str, Any]: ...
def estimate_one(
    x: _Float,
    y: _Float,
    options: Options,
    x_names: Optional[Sequence[str]] = None,
    y_names: Optional[Sequence[str]] = None,
    progress: Optional[Callable[[int, int], None]] = None,
    x_levels: Optional[Sequence[Optional[Sequence[str]]]] = None,
    y_levels: Optional[Sequence[Optional[Sequence[str]]]] = None,
) -> dict[str, Any]: ...
def tasks() -> List[dict[str, Any]]: ...
def sample(task: str, n: int, seed: int, dim: int, mi: float) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
def bound(name: str, s: _Float) -> Tuple[float, float, _Float]: ...
def column_kinds(
    x: _Float, x_names: Optional[Sequence[str]] = None, labels: Optional[Sequence[int]] = None
) -> Tuple[List[bool], List[str]]: ...
def feature_mi(
    x: _Float,
    y: _Float,
    discrete: Sequence[bool],
    y_discrete: bool,
    k: int,
    noise_x: _Float,
    noise_y: Optional[_Float] = None,
    x_names: Optional[Sequence[str]] = None,
) -> Tuple[npt.NDArray[np.float64], List[str], List[str]]: ...
def mi_matrix(
    x: _Float, discrete: Sequence[bool], k: int, noise_x: _Float, x_names: Optional[Sequence[str]] = None
) -> Tuple[npt.NDArray[np.float64], List[str], List[str]]: ...
def conditional_mi(x: _Float, y: _Float, z: _Float, k: int, seed: int) -> float: ...
def conditional_test(
    x: _Float,
    y: _Float,
    z: _Float,
    options: Options,
    permutations: Optional[int] = None,
    k_perm: Optional[int] = None,
    x_names: Optional[Sequence[str]] = None,
    y_names: Optional[Sequence[str]] = None,
    z_names: Optional[Sequence[str]] = None,
    progress: Optional[Callable[[int, int], None]] = None,
) -> dict[str, Any]: ...
def _raise_error(kind: str) -> None: ...
def _last_compare_seconds() -> float: ...
