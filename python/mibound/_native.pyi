"""Type stubs of the native extension (Rust, PyO3); use the wrappers in `mibound`."""

from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str
ESTIMATORS: str
BOUNDS: str
PARAMETRIC_TASKS: List[str]

_Float = Union[npt.NDArray[np.float64], npt.NDArray[np.float32]]

def estimate(
    x: _Float,
    y: _Float,
    estimators: Union[str, Sequence[str]],
    seed: int,
    unit: str,
    critic: Optional[str] = None,
    hidden: Optional[Sequence[int]] = None,
    embed: Optional[int] = None,
    batch: Optional[int] = None,
    steps: Optional[int] = None,
    lr: Optional[float] = None,
    weight_decay: Optional[float] = None,
    folds: Optional[int] = None,
    transform: Optional[str] = None,
) -> dict[str, Any]: ...
def tasks() -> List[dict[str, Any]]: ...
def sample(
    task: str, n: int, seed: int, dim: int, mi: float
) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
def bound(name: str, s: _Float) -> Tuple[float, float, _Float]: ...
def _raise_error(kind: str) -> None: ...
def _last_compare_seconds() -> float: ...
