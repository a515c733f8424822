"""numpy dtypes and layouts: float32, float64, C and Fortran order, 1-D inputs, non-contiguous
and reversed slices all give the estimate of the same values as a float64 C-order array."""

import numpy as np
import pytest

import mibound

EST = ("ksg", "gaussian", "binned")


def values(x, y, estimators=EST, **kw):
    return [e.value for e in mibound.estimate(x, y, estimators=estimators, seed=4, **kw).estimates]


@pytest.fixture(scope="module")
def data():
    return mibound.sample("multinormal-dense-3-2-0.5", 700, 11)


def test_memory_orders_give_the_same_estimate(data):
    x, y = data
    ref = values(x, y)
    assert all(np.isfinite(ref))
    assert values(np.asfortranarray(x), np.asfortranarray(y)) == ref
    assert values(np.asfortranarray(x), y) == ref
    # Non-contiguous views: every other column of a wider array, rows of a Fortran array.
    wide = np.empty((x.shape[0], 2 * x.shape[1]))
    wide[:, ::2] = x
    assert not wide[:, ::2].flags.c_contiguous and not wide[:, ::2].flags.f_contiguous
    assert values(wide[:, ::2], y) == ref
    tall = np.asfortranarray(np.vstack([x, x]))[: x.shape[0]]
    assert values(tall, y) == ref
    # Reversed rows are other data (the same rows in another order): compare with their copy.
    assert values(x[::-1], y[::-1]) == values(np.ascontiguousarray(x[::-1]), np.ascontiguousarray(y[::-1]))


def test_float32_is_read_as_its_float64_values(data):
    x, y = data
    x32, y32 = x.astype(np.float32), y.astype(np.float32)
    ref = values(x32.astype(np.float64), y32.astype(np.float64))
    assert values(x32, y32) == ref
    assert values(np.asfortranarray(x32), y32) == ref
    assert values(x32, y32.astype(np.float64)) == ref


def test_one_dimensional_inputs_are_one_column():
    x, y = mibound.sample("1v1-normal-0.75", 500, 2)
    ref = values(x, y)
    assert values(x[:, 0], y[:, 0]) == ref
    assert values(x[:, 0].copy(), y) == ref
    # A strided 1-D view.
    xx = np.repeat(x[:, 0], 2)[::2]
    assert not xx.flags.c_contiguous
    assert values(xx, y[:, 0]) == ref


def test_lists_and_integers_become_float64():
    x = [[float(i % 7), float(i % 5)] for i in range(300)]
    y = [i % 7 + (i % 3) for i in range(300)]
    assert values(x, y, ("gaussian",)) == values(np.array(x), np.array(y, dtype=np.float64), ("gaussian",))


def test_neural_estimate_is_layout_independent(data):
    x, y = data
    kw = dict(hidden=32, embed=8, batch=32, steps=60)
    ref = values(x, y, ("infonce",), **kw)
    assert values(np.asfortranarray(x), y[:, ::-1].copy()[:, ::-1], ("infonce",), **kw) == ref


def test_inputs_are_not_modified(data):
    x, y = data
    xf, y0 = np.asfortranarray(x), y.copy()
    before = xf.copy()
    mibound.estimate(xf, y0, estimators="infonce,ksg", hidden=16, embed=4, batch=32, steps=20)
    assert np.array_equal(xf, before) and np.array_equal(y0, y)


def test_estimators_as_a_comma_separated_string(data):
    x, y = data
    a = mibound.estimate(x, y, estimators="ksg:k=3,gaussian")
    b = mibound.estimate(x, y, estimators=["ksg:k=3", "gaussian"])
    assert [e.value for e in a.estimates] == [e.value for e in b.estimates]
    assert [e.estimator for e in a.estimates] == ["ksg:k=3", "gaussian"]
