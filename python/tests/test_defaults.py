"""Every default of the Python API is the library's (read from the native module, written
nowhere in Python): the signatures of `estimate`, `MutualInformation`, `sample` and the
scikit-learn-style functions, and `DEFAULTS`. The library's are the command line's
(src/cli/mod.rs tests that)."""

import inspect

import mibound
from mibound import _native


def normal(v):
    return list(v) if isinstance(v, (list, tuple)) else v


def test_estimate_defaults_are_the_librarys():
    lib = _native.defaults()
    sig = inspect.signature(mibound.estimate).parameters
    for key, value in lib.items():
        assert normal(sig[key].default) == value, key
    assert {k: normal(v) for k, v in mibound.DEFAULTS.items()} == lib
    assert list(mibound.DEFAULT_ESTIMATORS) == lib["estimators"]


def test_mutual_information_defaults_are_the_librarys():
    lib = _native.defaults()
    sig = inspect.signature(mibound.MutualInformation).parameters
    for key, value in lib.items():
        if key == "estimators":
            assert sig["estimator"].default == value[0], "the headline estimator"
        else:
            assert normal(sig[key].default) == value, key


def test_the_default_estimators_are_what_an_estimate_runs(gaussian):
    # Without `estimators`, the library's list runs: `auto`, which for two independent pairs
    # (this Gaussian) is KSG summed over them, for 2 + 2 dimensions in one block (at most
    # LOW_DIMENSION = 4) KSG on normal scores alone, and for 3 + 3 dimensions in one block (a
    # dense Gaussian) InfoNCE with KSG as the cross-check (cheap settings; the names are what
    # counts).
    assert list(mibound.DEFAULT_ESTIMATORS) == ["auto"]
    x, y = gaussian
    r = mibound.estimate(x, y, steps=5, batch=32, hidden=8, embed=4, folds=2)
    assert [e.estimator for e in r.estimates] == ["ksg-blocks:k=3"]
    xd, yd = mibound.sample("multinormal-dense-2-2-0.5", 600, 7)
    r = mibound.estimate(xd, yd, steps=5, batch=32, hidden=8, embed=4, folds=2)
    assert [e.estimator for e in r.estimates] == ["ksg:k=3:margins=normal"]
    x3, y3 = mibound.sample("multinormal-dense-3-3-0.5", 600, 7)
    r = mibound.estimate(x3, y3, steps=5, batch=32, hidden=8, embed=4, folds=2)
    assert [e.estimator for e in r.estimates] == ["infonce", "ksg:k=5"]


def test_sample_and_feature_defaults_are_the_librarys():
    # `mibound sample` / `mibound tasks` (--seed, --dim, --mi) and `mibound features` /
    # `mibound matrix` (--k, --seed) read the same constants (src/cli/mod.rs).
    sig = inspect.signature(mibound.sample).parameters
    assert (sig["seed"].default, sig["dim"].default, sig["mi"].default) == (
        _native.DEFAULT_SEED,
        _native.PARAMETRIC_DIM,
        _native.PARAMETRIC_MI,
    )
    assert (_native.PARAMETRIC_DIM, _native.PARAMETRIC_MI) == (20, 2.0)
    for f in (mibound.mutual_info_regression, mibound.mutual_info_classif, mibound.mi_matrix):
        assert inspect.signature(f).parameters["n_neighbors"].default == _native.FEATURE_NEIGHBORS, f.__name__
    for f in (mibound.conditional_mi, mibound.conditional_test):
        params = inspect.signature(f).parameters
        if "n_neighbors" in params:
            assert params["n_neighbors"].default == _native.CONDITIONAL_NEIGHBORS, f.__name__


def test_one_list_of_estimator_names(cli):
    """`mibound.ESTIMATORS` is the library's one list of estimator names: `mibound estimate
    --help` prints the same list, and README.md's bullet names every family of it and no
    other (tests/estimator_names.rs checks the command line's side)."""
    from conftest import REPO, run_cli

    _, help_text, _ = run_cli(cli, "estimate", "--help")
    assert " ".join(mibound.ESTIMATORS.split()) in " ".join(help_text.split())
    families = {n.split(":")[0].split("[")[0].split(" ")[0] for n in mibound.ESTIMATORS.split(", ")}
    assert {"auto", "ksg-blocks", "flow-entropy"} <= families
    readme = (REPO / "README.md").read_text()
    bullet = readme[readme.index("- One `Estimator` interface"):]
    bullet = bullet[: bullet.index("\n- ", 2)]
    named = set(bullet.split("`")[1::2]) - {"Estimator", "mibound estimate --help", "mibound.ESTIMATORS"}
    assert named == families
