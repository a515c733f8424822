"""pandas and scikit-learn conventions: DataFrames keep their column names, `to_frame()` is a
tidy table, `MutualInformation` has scikit-learn's parameters and fitted attributes, progress
reaches a tqdm bar or a callable, and `plot()` draws every estimate. pandas, tqdm and matplotlib
are optional: their tests skip where they are not installed (CI installs them)."""

import numpy as np
import pytest

import mibound

QUICK = dict(hidden=16, embed=4, batch=32, steps=30, folds=2)


@pytest.fixture(scope="module")
def frame(gaussian):
    pd = pytest.importorskip("pandas")
    x, y = gaussian
    return pd.DataFrame(x, columns=["height", "weight"]), pd.Series(y[:, 0], name="income")


def test_dataframes_keep_their_column_names(frame, gaussian):
    X, Y = frame
    r = mibound.estimate(X, Y, estimators="ksg")
    assert r.x_columns == ["height", "weight"] and r.y_columns == ["income"]
    # The same numbers as the arrays.
    x, y = gaussian
    assert r.estimates[0].value == mibound.estimate(x, y[:, 0], estimators="ksg").estimates[0].value
    # Messages name the DataFrame's columns.
    bad = X.copy()
    bad["constant"] = 3.0
    with pytest.raises(ValueError, match=r"x: column 2 \('constant'\) = 3; leave them out or pass drop_constant=True"):
        mibound.estimate(bad, Y, estimators="ksg")
    with pytest.warns(mibound.DataWarning, match=r"dropped constant x: column 2 \('constant'\) = 3"):
        r = mibound.estimate(bad, Y, estimators="ksg", drop_constant=True)
    assert r.x_columns == ["height", "weight"]


def test_to_frame_is_one_row_per_estimator(gaussian):
    pytest.importorskip("pandas")
    x, y = gaussian
    r = mibound.estimate(x, y, estimators=("infonce", "ksg", "gaussian"), unit="bits", **QUICK)
    df = r.to_frame()
    assert list(df.columns) == ["estimator", "label", "value", "low", "high", "unit", "kind", "seconds", "warnings"]
    assert list(df["estimator"]) == [e.estimator for e in r.estimates]
    assert np.allclose(df["value"], [e.value / np.log(2) for e in r.estimates])
    assert (df["low"] <= df["value"]).all() and (df["value"] <= df["high"]).all()
    assert set(df["unit"]) == {"bits"} and list(df["kind"]) == ["lower", "estimate", "estimate"]
    assert (df["seconds"] >= 0).all()


def test_mutual_information_follows_scikit_learns_conventions(gaussian):
    x, y = gaussian
    mi = mibound.MutualInformation(estimator="infonce", **QUICK)
    params = mi.get_params()
    assert params["estimator"] == "infonce" and params["steps"] == 30 and params["seed"] == 0
    assert mi.set_params(seed=4, steps=40) is mi and mi.seed == 4
    with pytest.raises(ValueError, match="invalid parameter 'bogus'"):
        mi.set_params(bogus=1)
    assert not hasattr(mi, "value_")
    assert mi.fit(x, y) is mi
    assert np.isfinite(mi.value_) and mi.interval_[0] <= mi.value_ <= mi.interval_[1]
    assert mi.kind_ == "lower" and mi.n_features_in_ == 2 and mi.estimate_.estimator == "infonce"
    assert repr(mi) == "MutualInformation(estimator='infonce', seed=4, hidden=16, embed=4, batch=32, steps=40, folds=2)", "the parameters set"
    assert repr(mibound.MutualInformation("ksg")) == "MutualInformation(estimator='ksg')"
    # A fresh object from the parameters gives the same number (what sklearn.base.clone does).
    again = type(mi)(**mi.get_params()).fit(x, y)
    assert again.value_ == mi.value_
    with pytest.raises(ValueError, match="name exactly one estimator"):
        mibound.MutualInformation("infonce,ksg").fit(x, y)


def test_scikit_learn_clones_it(gaussian):
    base = pytest.importorskip("sklearn.base")
    mi = mibound.MutualInformation("ksg:k=3", seed=2)
    c = base.clone(mi)
    assert c.get_params() == mi.get_params() and c is not mi


def test_progress_reaches_a_callable_and_a_tqdm_bar(gaussian):
    x, y = gaussian
    seen = []
    mibound.estimate(x, y, estimators="infonce", progress=lambda done, total: seen.append((done, total)), **QUICK)
    assert seen, "the callable was called"
    total = seen[-1][1]
    assert total > 0 and seen[-1][0] <= total and [d for d, _ in seen] == sorted(d for d, _ in seen)
    pytest.importorskip("tqdm")
    r = mibound.MutualInformation("infonce", progress=True, **QUICK).fit(x, y)
    assert np.isfinite(r.value_)
    with pytest.raises(TypeError, match="progress"):
        mibound.estimate(x, y, estimators="ksg", progress="yes")


def test_an_exception_in_the_progress_callable_stops_the_estimate(gaussian):
    x, y = gaussian

    def boom(done, total):
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        mibound.estimate(x, y, estimators="infonce", progress=boom, **dict(QUICK, steps=100_000))


def test_plot_draws_every_estimate(gaussian, tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    x, y = gaussian
    r = mibound.estimate(x, y, estimators=("infonce", "ksg"), **QUICK)
    ax = r.plot(true_mi=0.5)
    assert [t.get_text() for t in ax.get_yticklabels()] == [e.label for e in r.estimates]
    ax.figure.savefig(tmp_path / "c.png")
    assert (tmp_path / "c.png").stat().st_size > 0


def test_warnings_are_read_as_strings_or_objects():
    from mibound._data import code, message

    assert message("plain text") == "plain text" and code("plain text") is None
    assert message({"code": "small-n", "message": "few rows"}) == "few rows"
    assert code({"code": "small-n", "message": "few rows"}) == "small-n"
