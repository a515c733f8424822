"""mutual_info_regression / mutual_info_classif / mi_matrix / conditional_mi against
scikit-learn and the command line.

Tolerance 1e-9 against scikit-learn: the same estimators (KSG-1 on scaled columns, Ross 2014,
the plug-in) on the same numbers — the tie-breaking noise is numpy's draws from the same
``random_state``, handed to the library — so the answers differ only by the order of
floating-point sums (measured: ~5e-14 on breast cancer). For :func:`mi_matrix` against
per-pair scikit-learn calls the noise draws differ (the matrix draws each column once), which
moves an answer only if two k-NN distances of continuous data lie within ~1e-10 of each other:
at n = 300 about n² · 1e-10 ≈ 1e-5 chance, so 1e-9 holds there too.
"""

import json
import warnings

import numpy as np
import pytest

import mibound
from conftest import run_cli

sklearn_fs = pytest.importorskip("sklearn.feature_selection")

TOL = 1e-9


@pytest.fixture(scope="module")
def mixed():
    """300 rows: 4 continuous features, 2 integer-coded ones (3 and 4 levels), a continuous and a
    class target depending on several of them."""
    rng = np.random.RandomState(3)
    n = 300
    c = rng.standard_normal((n, 4))
    d = np.column_stack([rng.randint(0, 3, n), rng.randint(0, 4, n)]).astype(float)
    X = np.column_stack([c, d])
    y = np.sin(2 * c[:, 0]) + c[:, 1] * d[:, 0] + 0.3 * rng.standard_normal(n)
    label = (y > np.median(y)).astype(int) + (c[:, 2] > 1).astype(int)
    return X, y, label


@pytest.mark.parametrize("random_state", [0, 11])
def test_regression_and_classification_are_scikit_learns_numbers(mixed, random_state):
    X, y, label = mixed
    mask = np.array([False] * 4 + [True] * 2)
    for ours, theirs, target in [
        (mibound.mutual_info_regression, sklearn_fs.mutual_info_regression, y),
        (mibound.mutual_info_classif, sklearn_fs.mutual_info_classif, label),
    ]:
        for discrete in [False, mask, [4, 5]]:
            a = ours(X, target, discrete_features=discrete, n_neighbors=4, random_state=random_state)
            b = theirs(X, target, discrete_features=discrete, n_neighbors=4, random_state=random_state)
            assert isinstance(a, np.ndarray) and a.dtype == np.float64 and a.shape == (6,)
            assert np.abs(a - b).max() < TOL, (ours.__name__, discrete, a, b)
            assert (a >= 0).all()


def test_a_random_state_object_is_used_as_scikit_learn_uses_it(mixed):
    X, y, _ = mixed
    a = mibound.mutual_info_regression(X[:, :4], y, random_state=np.random.RandomState(5))
    b = sklearn_fs.mutual_info_regression(X[:, :4], y, random_state=np.random.RandomState(5))
    assert np.abs(a - b).max() < TOL


def test_the_dependent_features_score_above_the_independent_ones(mixed):
    X, y, _ = mixed
    mi = mibound.mutual_info_regression(X, y, discrete_features=[4, 5], random_state=0)
    # y depends on columns 0, 1 and 4 only; columns 2, 3 and 5 are independent of it.
    assert min(mi[[0, 1, 4]]) > max(mi[[2, 3, 5]]), mi


def test_string_labels_are_classes(mixed):
    X, _, label = mixed
    names = np.array(["setosa", "versicolor", "virginica"])[label]
    a = mibound.mutual_info_classif(X[:, :4], names, random_state=0)
    b = mibound.mutual_info_classif(X[:, :4], label, random_state=0)
    assert np.array_equal(a, b)


def test_text_columns_are_labels_without_a_note_of_integer_values(mixed):
    """Under discrete_features="auto" a column of text is a label by nature: it is read as
    categories, with no note that calls its codes "integer values" (issue #54's re-check)."""
    pd = pytest.importorskip("pandas")
    X, y, label = mixed
    df = pd.DataFrame({"a": X[:, 0], "c": np.array(["u", "v", "w"])[X[:, 4].astype(int)]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a = mibound.mutual_info_regression(df, y, random_state=0)
    assert [str(w.message) for w in caught] == []
    b = mibound.mutual_info_regression(np.column_stack([X[:, 0], X[:, 4]]), y, discrete_features=[1], random_state=0)
    assert np.array_equal(a, b)


def test_auto_detects_integer_columns_and_says_so(mixed):
    X, y, _ = mixed
    with pytest.warns(mibound.DataWarning, match=r"column 4 \('4'\) of X has 3 distinct integer values"):
        auto = mibound.mutual_info_regression(X, y, random_state=0)
    declared = mibound.mutual_info_regression(X, y, discrete_features=[4, 5], random_state=0)
    assert np.array_equal(auto, declared)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mibound.mutual_info_regression(X[:, :4], y, random_state=0)


def test_a_dataframe_names_columns_in_notes_and_matrix(mixed):
    pd = pytest.importorskip("pandas")
    X, y, _ = mixed
    df = pd.DataFrame(X, columns=["a", "b", "c", "d", "colour", "size"])
    with pytest.warns(mibound.DataWarning, match=r"column 4 \('colour'\) of X"):
        m = mibound.mi_matrix(df, random_state=0)
    assert isinstance(m, pd.DataFrame)
    assert list(m.index) == list(df.columns) and list(m.columns) == list(df.columns)
    plain = mibound.mi_matrix(X, discrete_features=[4, 5], random_state=0)
    assert np.array_equal(m.to_numpy(), plain, equal_nan=True)


def test_the_matrix_is_symmetric_with_scikit_learns_pairs(mixed):
    X, _, _ = mixed
    m = mibound.mi_matrix(X, discrete_features=[4, 5], n_neighbors=3, random_state=0)
    assert m.shape == (6, 6) and np.isnan(np.diag(m)).all()
    assert np.array_equal(m, m.T, equal_nan=True)
    for i in range(4):  # continuous target columns
        mask = np.array([False] * 4 + [True] * 2)
        others = [j for j in range(6) if j != i]
        sk = sklearn_fs.mutual_info_regression(X[:, others], X[:, i], discrete_features=mask[others], random_state=0)
        # scikit-learn clips at 0, the matrix does not.
        assert np.abs(np.maximum(m[i, others], 0) - sk).max() < TOL, (i, m[i, others], sk)


def test_conditional_mi_is_the_command_lines_given_estimate(cli, tmp_path):
    rng = np.random.RandomState(1)
    z = rng.standard_normal(400)
    x, y = z + rng.standard_normal(400), z + rng.standard_normal(400)
    value = mibound.conditional_mi(x, y, z, random_state=9)
    assert value == mibound.conditional_mi(x, y, z, random_state=9)
    r = mibound.conditional_test(x, y, z, estimators="ksg", random_state=9)
    assert r.dim_z == 1 and r.estimates[0].value == value
    np.save(tmp_path / "xz.npy", np.column_stack([x, z]))
    np.save(tmp_path / "y.npy", y)
    _, out, _ = run_cli(cli, "estimate", "--x", tmp_path / "xz.npy", "--x-cols", "0", "--y", tmp_path / "y.npy",
                        "--given", "1", "--estimators", "ksg", "--seed", "9", "--json")
    c = json.loads(out)
    assert c["estimates"][0]["value"] == value
    assert c["dependence_test"]["p_value"] == r.dependence_test.p_value
    assert "given z in R^1" in repr(r)


@pytest.mark.training
def test_neural_conditional_estimate_is_the_command_lines(cli, tmp_path):
    """A neural lower bound with --given: the chain rule I(X; (Y, Z)) − I(X; Z), the same number
    from Python (library defaults) and the command line (its defaults are the library's). 150 rows
    (the batch is lowered to 64 there): 4.5 s of training on each side where 400 rows took 16 s
    (the command line's wall time, 2026-11-26)."""
    rng = np.random.RandomState(3)
    x, y = rng.standard_normal(150), rng.standard_normal(150)
    z = x + y + rng.standard_normal(150)
    r = mibound.conditional_test(x, y, z, estimators="infonce", random_state=4)
    e = r.estimates[0]
    assert e.estimator == "infonce|z" and e.kind == "estimate"
    np.save(tmp_path / "xz.npy", np.column_stack([x, z]))
    np.save(tmp_path / "y.npy", y)
    _, out, _ = run_cli(cli, "estimate", "--x", tmp_path / "xz.npy", "--x-cols", "0", "--y", tmp_path / "y.npy",
                        "--given", "1", "--estimators", "infonce", "--seed", "4", "--json", "--quiet")
    assert json.loads(out)["estimates"][0]["value"] == e.value


def test_conditional_test_finds_a_collider_and_not_a_common_cause():
    """Collider x → z ← y: I(X; Y) = 0 but I(X; Y | Z) = 0.144 nats (tasks::conditional); a
    common cause: the converse. n = 400, one seed each (the level over 200 data sets is
    tests/conditional_independence.rs)."""
    rng = np.random.RandomState(2)
    x, y = rng.standard_normal(400), rng.standard_normal(400)
    z = x + y + rng.standard_normal(400)
    assert mibound.conditional_test(x, y, z, random_state=0).significant
    z = rng.standard_normal(400)
    x, y = z + rng.standard_normal(400), z + rng.standard_normal(400)
    assert not mibound.conditional_test(x, y, z, random_state=0).significant


def test_conditioning_columns_follow_the_data_rules():
    """z as the command line's --given reads it: a NaN is the data rules' sentence (row and
    column named, as for x and y), and a column that looks like a class label is a DataWarning."""
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(3)
    x, y = rng.standard_normal(300), rng.standard_normal(300)
    z = pd.DataFrame({"z": x + y + rng.standard_normal(300), "group": np.arange(300) % 3})
    with pytest.warns(mibound.DataWarning, match=r"column of z with few distinct whole-number values \(column 1 \('group'\): 3 values\)"):
        mibound.conditional_test(x, y, z, estimators="gaussian", permutations=19)
    z.loc[2, "z"] = np.nan
    with pytest.raises(ValueError) as e:
        mibound.conditional_test(x, y, z, estimators="gaussian")
    assert str(e.value) == "z, row 2, column 0 ('z'): value NaN is not finite"
    with pytest.raises(ValueError) as e:
        mibound.conditional_mi(x, y, z.to_numpy())
    assert str(e.value) == "z, row 2, column 0 ('0'): value NaN is not finite"


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda X, y: mibound.mutual_info_regression(X, y, discrete_features=[4, 5], n_neighbors=0), "n_neighbors"),
        (lambda X, y: mibound.mutual_info_regression(X, y, discrete_features="yes"), "discrete_features"),
        (lambda X, y: mibound.mutual_info_regression(X, y, discrete_features=[9]), "out of range"),
        (lambda X, y: mibound.mutual_info_regression(X, y[:10], discrete_features=[4, 5]), "rows|shape"),
        (lambda X, y: mibound.mutual_info_regression(np.where(X > 2.5, np.nan, X), y, discrete_features=[4, 5]), "finite|NaN"),
        (lambda X, y: mibound.conditional_test(X[:, 0], y, X[:, 1], estimators="club"), "no conditional form"),
    ],
)
def test_bad_arguments_are_value_errors_naming_them(mixed, call, match):
    X, y, _ = mixed
    with pytest.raises(ValueError, match=match):
        call(X, y)


@pytest.mark.training
def test_declared_labels_are_embedded_by_infonce_as_on_the_command_line(cli, tmp_path):
    """discrete_x/discrete_y: InfoNCE one-hot encodes the label columns (the same number as
    `mibound estimate --discrete`), and an estimator that reads numbers is refused by name."""
    import pandas as pd

    rng = np.random.RandomState(5)
    a = rng.randint(0, 4, 600)
    b = np.where(rng.rand(600) < 0.3, rng.randint(0, 4, 600), a)
    df = pd.DataFrame({"a": a * 10 + 3, "b": b * 7 - 2})
    quick = dict(steps=300, batch=64, critic="separable")
    r = mibound.estimate(df[["a"]], df[["b"]], "infonce", 1, discrete_x=["a"], discrete_y=[0], **quick)
    df.to_csv(tmp_path / "ab.csv", index=False)
    _, out, _ = run_cli(cli, "estimate", "--x", tmp_path / "ab.csv", "--x-cols", "a", "--y-cols", "b",
                        "--discrete", "a,b", "--estimators", "infonce", "--seed", "1", "--steps", "300",
                        "--batch", "64", "--critic", "separable", "--json", "--quiet")
    assert json.loads(out)["estimates"][0]["value"] == r.estimates[0].value
    assert r.estimates[0].settings["labels"] == {"x": [0], "y": [0]}
    with pytest.raises(ValueError, match="read labels as numbers"):
        mibound.estimate(df[["a"]], df[["b"]], "ksg", 1, discrete_x=["a"])
    with pytest.raises(ValueError, match="not a column"):
        mibound.estimate(df[["a"]], df[["b"]], "infonce", 1, discrete_x=["c"])
    with pytest.raises(ValueError, match="label column of x"):
        mibound.estimate(df[["a"]], df[["b"]], "infonce", 1, discrete_x=[3])


def test_the_self_check_counts_in_the_progress(gaussian):
    """selfcheck=True: the six extra neural estimates (four on the data, two on the additivity
    reference) report their steps to the callback, whose total includes them."""
    x, y = gaussian
    seen = []
    mibound.estimate(x, y, "infonce", 0, steps=50, batch=64, critic="separable", selfcheck=True,
                     progress=lambda done, total: seen.append((done, total)))
    total = seen[-1][1]
    assert total == 7 * 5 * 50, "the estimate and six self-check estimates, 5 folds × 50 steps"
    assert seen[-1][0] > 6 * 5 * 50, "the self-check's steps were counted"


def test_small_classes_read_scikit_learns_formula_with_exact_distances():
    """120 classes of 2 rows (issue #54): scikit-learn reads 0.605 here, mibound 0.621, which is
    scikit-learn's `_compute_mi_cd` with each distance computed once (its NearestNeighbors and
    KDTree round the same distance differently, so the class member at exactly the radius is
    counted for some rows; docs/python.md). The formula is restated here with exact 1-D
    distances."""
    from scipy.special import digamma

    rng = np.random.RandomState(0)
    y = np.repeat(np.arange(120), 2)
    X = (y + 20 * rng.standard_normal(240)).reshape(-1, 1)
    ours = mibound.mutual_info_classif(X, y, discrete_features=False, random_state=0)[0]
    c = X[:, 0] / X[:, 0].std()
    c = c + 1e-10 * max(1.0, np.abs(c).mean()) * np.random.RandomState(0).standard_normal(240)
    radius = np.empty(240)
    for label in np.unique(y):
        m = y == label
        d = np.abs(c[m][:, None] - c[m][None, :])
        np.fill_diagonal(d, np.inf)
        radius[m] = np.nextafter(np.sort(d, axis=1)[:, 0], 0)  # k = min(3, 2 − 1) = 1
    m_all = np.array([(np.abs(c - c[i]) <= radius[i]).sum() for i in range(240)])
    exact = digamma(240) + digamma(1) - digamma(2) - np.mean(digamma(m_all))
    assert abs(ours - exact) < TOL, (ours, exact)
