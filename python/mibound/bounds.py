"""Bounds on mutual information as functions of a score matrix, with exact gradients.

For people who train their own critics (in PyTorch, JAX, …) and want mibound's bounds: each
function takes the ``N × N`` score matrix ``S[i, j] = f(x_i, y_j)`` of one batch (row ``i`` is
``x_i``, column ``j`` is ``y_j``; the diagonal holds the joint pairs) and returns
``(value, grad)``: the bound's value in nats and ``∂ objective / ∂S`` as an array of the dtype
of ``S`` (float32 or float64). For most bounds the training objective is the value; JS, SMILE and
MINE report one quantity and follow the gradient of another (see docs/bounds.md).

With PyTorch, the gradient gives a surrogate loss whose backward pass is the bound's::

    value, grad = mibound.bounds.infonce(scores.detach().cpu().numpy())
    loss = -(scores * torch.from_numpy(grad).to(scores)).sum()   # d loss / dS = -grad
    loss.backward()

Errors (a matrix that is not square, an unknown bound, a parameter out of range) are
``ValueError`` with the library's message.
"""

from __future__ import annotations

from typing import Any, Tuple

import numpy as np

from . import _native

#: Every bound name ``evaluate`` accepts, with its parameters.
NAMES: str = _native.BOUNDS

__all__ = [
    "evaluate",
    "evaluate_full",
    "infonce",
    "nwj",
    "tuba",
    "dv",
    "mine",
    "js",
    "smile",
    "interpolated",
    "club",
    "l1out",
    "NAMES",
]


def _scores(s: Any) -> np.ndarray:
    if isinstance(s, np.ndarray) and s.dtype in (np.float64, np.float32):
        return s
    return np.asarray(s, dtype=np.float64)


def evaluate_full(name: str, scores: Any) -> Tuple[float, float, np.ndarray]:
    """``(value, objective, grad)`` of the bound ``name`` (``infonce``, ``smile:5``,
    ``tuba:0.5``, … see :data:`NAMES`) on ``scores``; ``grad`` is ``∂ objective / ∂S``."""
    return _native.bound(name, _scores(scores))


def evaluate(name: str, scores: Any) -> Tuple[float, np.ndarray]:
    """``(value, grad)`` of the bound ``name`` on ``scores`` (see :func:`evaluate_full`)."""
    value, _, grad = evaluate_full(name, scores)
    return value, grad


def infonce(scores: Any) -> Tuple[float, np.ndarray]:
    """InfoNCE (van den Oord et al.): a lower bound, at most log N."""
    return evaluate("infonce", scores)


def nwj(scores: Any) -> Tuple[float, np.ndarray]:
    """NWJ (Nguyen, Wainwright, Jordan; f-GAN KL): a lower bound."""
    return evaluate("nwj", scores)


def tuba(scores: Any, log_baseline: float = 0.0) -> Tuple[float, np.ndarray]:
    """TUBA with a constant log-baseline ``ln a``: a lower bound."""
    return evaluate(f"tuba:{float(log_baseline)!r}", scores)


def dv(scores: Any) -> Tuple[float, np.ndarray]:
    """Donsker–Varadhan with a batch estimate of log E e^f (an estimate, biased upward)."""
    return evaluate("dv", scores)


def mine(scores: Any, ema_rate: float = 0.01) -> Tuple[float, np.ndarray]:
    """MINE: DV's value, the gradient with a moving average (here: of this one batch)."""
    return evaluate(f"mine:{float(ema_rate)!r}", scores)


def js(scores: Any) -> Tuple[float, np.ndarray]:
    """The Jensen–Shannon objective with the NWJ read-off of its critic (a lower bound)."""
    return evaluate("js", scores)


def smile(scores: Any, tau: float = 5.0) -> Tuple[float, np.ndarray]:
    """SMILE with clip ``tau``: the clipped DV value, trained with the JS gradient."""
    return evaluate(f"smile:{float(tau)!r}", scores)


def interpolated(scores: Any, alpha: float = 0.01, log_baseline: float = 0.0) -> Tuple[float, np.ndarray]:
    """I_alpha (Poole et al.), interpolating NWJ and InfoNCE: a lower bound."""
    return evaluate(f"interpolated:{float(alpha)!r}:{float(log_baseline)!r}", scores)


def club(scores: Any) -> Tuple[float, np.ndarray]:
    """CLUB on log-densities ``S[i, j] = log q(y_j | x_i)``: an upper bound if q = p(y|x)."""
    return evaluate("club", scores)


def l1out(scores: Any) -> Tuple[float, np.ndarray]:
    """The leave-one-out upper bound on log-densities ``S[i, j] = log q(y_j | x_i)``."""
    return evaluate("l1out", scores)
