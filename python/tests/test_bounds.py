"""`mibound.bounds`: values and exact gradients on a score matrix, in the dtype of the scores."""

import numpy as np
import pytest

import mibound
from mibound import bounds


def logsumexp(a, axis):
    m = a.max(axis=axis, keepdims=True)
    return (m + np.log(np.exp(a - m).sum(axis=axis, keepdims=True))).squeeze(axis)


@pytest.fixture
def scores():
    rng = np.random.default_rng(0)
    s = rng.normal(size=(6, 6))
    s[np.diag_indices(6)] += 2.0
    return s


def test_infonce_value_and_gradient(scores):
    n = scores.shape[0]
    value, grad = bounds.infonce(scores)
    expected = np.mean(np.diag(scores) - logsumexp(scores, 1)) + np.log(n)
    assert value == pytest.approx(expected, abs=1e-12)
    soft = np.exp(scores - logsumexp(scores, 1)[:, None])
    assert np.allclose(grad, (np.eye(n) - soft) / n, atol=1e-12)
    assert grad.dtype == np.float64 and grad.shape == (n, n)


@pytest.mark.parametrize("fn", [bounds.infonce, bounds.nwj, bounds.js, bounds.dv, lambda s: bounds.smile(s, 5.0), bounds.tuba])
def test_gradients_match_finite_differences_of_the_objective(scores, fn):
    _, grad = fn(scores)
    name = {bounds.infonce: "infonce", bounds.nwj: "nwj", bounds.js: "js", bounds.dv: "dv", bounds.tuba: "tuba:0.0"}.get(fn, "smile:5.0")
    h = 1e-6
    for i, j in [(0, 0), (1, 3), (5, 2)]:
        up, down = scores.copy(), scores.copy()
        up[i, j] += h
        down[i, j] -= h
        objective = lambda s: bounds.evaluate_full(name, s)[1]
        assert grad[i, j] == pytest.approx((objective(up) - objective(down)) / (2 * h), abs=1e-6)


def test_float32_scores_give_float32_gradients(scores):
    v64, g64 = bounds.infonce(scores)
    v32, g32 = bounds.infonce(scores.astype(np.float32))
    assert g32.dtype == np.float32
    assert v32 == pytest.approx(v64, abs=1e-5) and np.allclose(g32, g64, atol=1e-6)


def test_layouts_and_rectangular_scores(scores):
    assert bounds.infonce(np.asfortranarray(scores))[0] == bounds.infonce(scores)[0]
    wide = np.hstack([scores, scores[:, :2] - 1.0])  # extra negatives: N × M with M > N
    v, g = bounds.infonce(wide)
    assert g.shape == wide.shape and np.isfinite(v)


def test_surrogate_loss_has_the_bounds_gradient(scores):
    """What PyTorch users do: loss = -(S * grad).sum() has d loss / dS = -grad."""
    _, grad = bounds.infonce(scores)
    surrogate = lambda s: -(s * grad).sum()
    e = np.zeros_like(scores)
    e[2, 4] = 1.0
    assert (surrogate(scores + e) - surrogate(scores)) == pytest.approx(-grad[2, 4], abs=1e-12)
    assert mibound.bounds.NAMES.startswith("infonce")
