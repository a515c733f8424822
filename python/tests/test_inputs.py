"""numpy dtypes and layouts: float32, float64, C and Fortran order, 1-D inputs, non-contiguous
and reversed slices all give the estimate of the same values as a float64 C-order array."""

import re

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


# What pandas and numpy users pass (issue #54): pandas' own dtypes, missing values, sparse
# matrices, names, text labels and seeds of any size, each read or refused with a sentence
# naming the argument.

pd = pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def frame():
    rng = np.random.RandomState(54)
    n = 300
    a = rng.standard_normal(n)
    c = (a > 0).astype(int) + (rng.standard_normal(n) > 1).astype(int)
    y = a + 0.5 * rng.standard_normal(n)
    df = pd.DataFrame({
        "a": a,
        "c": pd.array(c, dtype="Int64"),
        "f": pd.array(rng.standard_normal(n), dtype="Float64"),
        "b": pd.array(c > 0, dtype="boolean"),
        "k": pd.Categorical(np.array(["low", "mid", "top"])[c]),
    })
    return df, y


@pytest.mark.parametrize("col", ["c", "f", "b", "k"])
def test_pandas_nullable_and_categorical_columns_are_read(frame, col):
    df, y = frame
    plain = np.asarray(df[col].astype(object).map(lambda v: v if not isinstance(v, str) else
                                                     ["low", "mid", "top"].index(v)), dtype=np.float64)
    labels = col in ("c", "b", "k")
    for given in (df[col], df[col].values, df[[col]]):
        kw = dict(estimators="ross:discrete=x" if labels else "ksg", discrete_x=[0] if labels else [])
        got = mibound.estimate(given, y, **kw).estimates[0].value
        assert got == mibound.estimate(plain, y, **kw).estimates[0].value
    if col != "k":
        # The conditional estimators read numbers: nullable columns as their values.
        assert mibound.conditional_mi(df["a"], y, df[col].values) == mibound.conditional_mi(df["a"], y, plain)
        mibound.conditional_test(df["a"].values, y, df[col], permutations=19)
    got = mibound.mutual_info_regression(df[[col]], y, discrete_features=[col] if labels else False, random_state=0)
    want = mibound.mutual_info_regression(plain, y, discrete_features=labels, random_state=0)
    assert np.array_equal(got, want)


def test_a_missing_value_is_named_by_row_and_column(frame):
    df, y = frame
    d = df[["a", "c"]].copy()
    d.loc[3, "c"] = pd.NA
    sentence = re.escape("'<NA>' marks a missing value; every value is needed (drop or fill missing values)")
    with pytest.raises(ValueError, match=f"^x, row 3, column 1 \\('c'\\): {sentence}$"):
        mibound.estimate(d, y, estimators="ksg")
    with pytest.raises(ValueError, match=f"^X, row 3, column 1 \\('c'\\): {sentence}$"):
        mibound.mutual_info_regression(d, y)
    o = df[["a"]].astype(object)
    o.iloc[4, 0] = None
    with pytest.raises(ValueError, match="^z, row 4, column 0 \\('a'\\): '<NA>' marks a missing value"):
        mibound.conditional_mi(df["a"], y, o)


def test_sparse_matrices_are_densified_or_refused():
    sp = pytest.importorskip("scipy.sparse")
    x, y = mibound.sample("gaussian", 300, 1, dim=2, mi=0.5)
    m = sp.csr_matrix(x)
    assert mibound.estimate(m, y, estimators="ksg").estimates[0].value == mibound.estimate(x, y, estimators="ksg").estimates[0].value
    assert np.array_equal(mibound.mutual_info_regression(m, y[:, 0], random_state=0),
                          mibound.mutual_info_regression(x, y[:, 0], random_state=0))
    huge = sp.csr_matrix((100_000, 1_000))
    with pytest.raises(ValueError, match=r"^X: a scipy sparse matrix of 100000 × 1000 is too large to densify"):
        mibound.mutual_info_regression(huge, np.zeros(100_000))


def test_seeds_of_any_size_and_generators():
    x, y = mibound.sample("gaussian", 200, 1, dim=1, mi=0.5)
    v = lambda seed: mibound.estimate(x, y, estimators="ksg", seed=seed).estimates[0].value  # noqa: E731
    assert v(2**64 - 1) == v(np.uint64(2**64 - 1))
    with pytest.raises(ValueError, match=r"^invalid seed = 18446744073709551616: must be below 2\^64"):
        v(2**64)
    with pytest.raises(ValueError, match="^invalid seed = -5: must not be negative$"):
        v(-5)
    with pytest.raises(TypeError, match="^seed: expected an integer"):
        v(1.5)
    # A Generator gives a seed (drawn from it): the same generator state, the same number.
    assert v(np.random.default_rng(3)) == v(np.random.default_rng(3))
    for f in (mibound.conditional_mi, lambda *a, **k: mibound.conditional_test(*a, permutations=19, **k)):
        f(x, y, x ** 2, random_state=np.random.default_rng(1))
        with pytest.raises(ValueError, match="^invalid random_state = 18446744073709551616"):
            f(x, y, x ** 2, random_state=2**64)
    assert mibound.sample("gaussian", 5, 2**64 - 1)[0].shape == (5, 20)
    # mutual_info_*: scikit-learn's RandomState seeds (below 2^32), or a Generator.
    mibound.mutual_info_regression(x, y[:, 0], random_state=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"^invalid random_state = 4294967296: must be from 0 to 2\^32 − 1"):
        mibound.mutual_info_regression(x, y[:, 0], random_state=2**32)


def test_columns_by_name_and_text_labels(frame):
    df, y = frame
    by_name = mibound.mutual_info_regression(df[["a", "c"]], y, discrete_features=["c"], random_state=0)
    assert np.array_equal(by_name, mibound.mutual_info_regression(df[["a", "c"]], y, discrete_features=[1], random_state=0))
    with pytest.raises(ValueError, match=r"^discrete_features: 'z' is not a column of the data \(columns: \['a', 'c'\]\)$"):
        mibound.mutual_info_regression(df[["a", "c"]], y, discrete_features=["z"])
    # Text in X: categories, as the command line reads a declared label column.
    text = pd.DataFrame({"s": np.where(df["a"] > 0, "pos", "neg"), "a": df["a"]})
    codes = pd.DataFrame({"s": (df["a"] > 0).astype(float), "a": df["a"]})
    assert np.array_equal(mibound.mutual_info_regression(text, y, random_state=0),
                          mibound.mutual_info_regression(codes, y, discrete_features=[0], random_state=0))
    with pytest.raises(ValueError, match=r"^x, column 0 \('s'\): '\w+' is not a number \(a class label written as text"):
        mibound.estimate(text, y, estimators="ksg")
    assert mibound.estimate(text[["s"]], y, discrete_x=["s"]).estimates
    with pytest.raises(ValueError, match=r"^X, column 0 \('s'\): '\w+' is not a number"):
        mibound.mutual_info_regression(text, y, discrete_features=False)
    with pytest.raises(ValueError, match=r"^z, column 0 \('s'\): '\w+' is not a number \(the conditional estimators"):
        mibound.conditional_mi(df["a"], y, text[["s"]])


def test_a_continuous_target_for_classification_is_named():
    x, y = mibound.sample("gaussian", 200, 1, dim=1, mi=0.5)
    with pytest.raises(ValueError, match=r"^y: Unknown label type: continuous \(values such as .* are not class labels\); "
                                         "mutual_info_classif needs a class label: use mutual_info_regression"):
        mibound.mutual_info_classif(x, y[:, 0])


def test_huge_magnitudes_and_a_swamping_outlier():
    x, y = mibound.sample("gaussian", 300, 2, dim=1, mi=0.4)
    y = y[:, 0]
    assert np.allclose(mibound.mutual_info_regression(x * 1e160, y, random_state=0),
                       mibound.mutual_info_regression(x, y, random_state=0), rtol=0, atol=1e-9)
    xo = x.copy()
    xo[5, 0] = 1e160
    with pytest.warns(mibound.EstimateWarning, match=r"^column 0 \('0'\): after scaling by its standard deviation"):
        mibound.mutual_info_regression(xo, y, random_state=0)
    with pytest.warns(mibound.EstimateWarning, match="more than half of the 300 rows"):
        mibound.mi_matrix(np.column_stack([x, y]), n_neighbors=160, random_state=0)
