"""Every error becomes a Python exception with the library's (the command line's) message;
nothing crashes the interpreter."""

import numpy as np
import pytest

import mibound
from mibound import MutualInformation, _native
from conftest import cli_error, run_cli


@pytest.fixture(scope="module")
def xy():
    return mibound.sample("gaussian", 200, 0, dim=2, mi=0.5)


def message(excinfo):
    return str(excinfo.value)


@pytest.mark.parametrize(
    "kwargs, args",
    [
        (dict(estimators=["infonce", "mystery"]), ("--estimators", "infonce,mystery")),
        (dict(estimators="smile:abc"), ("--estimators", "smile:abc")),
        (dict(estimators="ksg:k=0"), ("--estimators", "ksg:k=0")),
        (dict(critic="transformer"), ("--critic", "transformer")),
        (dict(transform="ranks"), ("--transform", "ranks")),
        (dict(unit="furlongs"), ("--unit", "furlongs")),
        # Options: the same message with the option spelled as in Python.
        (dict(batch=1), ("--batch", "1")),
        (dict(steps=0), ("--steps", "0")),
        (dict(folds=1), ("--folds", "1")),
        (dict(hidden=[64, 0]), ("--hidden", "64,0")),
        (dict(embed=0), ("--embed", "0")),
        (dict(lr=-1.0), ("--lr", "-1")),
        (dict(weight_decay=float("nan")), ("--weight-decay", "NaN")),
        (dict(max_memory_mb=0), ("--max-memory-mb", "0")),
    ],
)
def test_value_errors_carry_the_command_lines_message(cli, tmp_path, xy, kwargs, args):
    x, y = xy
    kwargs.setdefault("estimators", "ksg")
    with pytest.raises(ValueError) as e:
        mibound.estimate(x, y, **kwargs)
    expected = cli_error(cli, tmp_path, *(("--estimators", "ksg") if "--estimators" not in args else ()), *args)
    for flag in ("--weight-decay", "--batch", "--steps", "--folds", "--hidden", "--embed", "--lr"):
        expected = expected.replace(f"invalid {flag} ", f"invalid {flag[2:].replace('-', '_')} ")
    assert message(e) == expected


@pytest.mark.training
def test_an_estimate_above_max_memory_mb_is_a_memory_error_with_the_command_lines_message(cli, tmp_path):
    # Refused before any work, with the sentence `mibound estimate --max-memory-mb` prints; the
    # planned peak it names is enough to run.
    x, y = mibound.sample("gaussian", 3000, 0, dim=4, mi=1.0)
    settings = dict(estimators="infonce", critic="separable", steps=20, hidden=16, embed=8)
    with pytest.raises(MemoryError) as e:
        mibound.estimate(x, y, max_memory_mb=1, **settings)
    assert "more than the 1 MB it may use (max_memory_mb / --max-memory-mb)" in message(e)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    args = ("--estimators", "infonce", "--critic", "separable", "--steps", "20", "--hidden", "16", "--embed", "8")
    code, _, err = run_cli(cli, "estimate", "--x", tmp_path / "x.npy", "--y", tmp_path / "y.npy", "--quiet", *args,
                           "--max-memory-mb", "1", check=False)
    assert code == 2 and err.strip() == f"error: {message(e)}"
    with pytest.raises(MemoryError) as one:
        MutualInformation("infonce", max_memory_mb=1, **{k: v for k, v in settings.items() if k != "estimators"}).fit(x, y)
    assert message(one) == message(e)
    needed = int(message(e).split("about ")[1].split(" ")[0])
    r = mibound.estimate(x, y, max_memory_mb=needed, **settings)
    assert r.estimates[0].value == mibound.estimate(x, y, **settings).estimates[0].value
    with pytest.raises(ValueError, match="max_memory_mb"):
        mibound.estimate(x, y, max_memory_mb=-1, **settings)


def test_bad_data_is_a_value_error_naming_the_problem(xy):
    x, y = xy
    # The data rules' sentences (the shared table, test_rules.py, has every rule).
    with pytest.raises(ValueError, match=r"^x has 200 rows, y has 199 rows: x and y must have one row per sample$"):
        mibound.estimate(x, y[:-1], estimators="ksg")
    bad = x.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match=r"^x, row 3, column 1 \('1'\): value NaN is not finite$"):
        mibound.estimate(bad, y, estimators="ksg")
    with pytest.raises(ValueError, match=r"^y, row 0, column 0 \('0'\): value inf is not finite$"):
        mibound.estimate(x, np.full_like(y, np.inf), estimators="gaussian")
    with pytest.raises(ValueError, match="x: expected a 1-D array .* got 3-D array of shape"):
        mibound.estimate(x.reshape(200, 2, 1), y)
    with pytest.raises(ValueError, match="^x has no columns$"):
        mibound.estimate(np.empty((200, 0)), y, estimators="ksg")
    with pytest.raises(ValueError, match="invalid rows = 3: too few rows for a held-out neural estimate: it needs at least 14"):
        mibound.estimate(x[:3], y[:3], estimators="infonce")
    with pytest.raises(ValueError, match="ask for at least one"):
        mibound.estimate(x, y, estimators=[])
    with pytest.raises(ValueError, match="invalid seed = -1: must not be negative"):
        mibound.estimate(x, y, estimators="ksg", seed=-1)


def test_type_errors(xy):
    x, y = xy
    # Text is read as categories where a column is declared a label, else refused naming it.
    with pytest.raises(ValueError, match=r"^x, column 0 \('0'\): 'a' is not a number .*declare it with discrete_x=\[0\]\)$"):
        mibound.estimate([["a", "b"]], y)
    with pytest.raises(TypeError, match="x: expected an array of numbers"):
        mibound.estimate(np.array([1 + 2j, 3j]), y)
    with pytest.raises(TypeError, match="estimators: expected a string or a sequence of strings"):
        mibound.estimate(x, y, estimators=[1, 2])
    with pytest.raises(TypeError):
        mibound.estimate(x, y, estimators="ksg", no_such_setting=3)
    # The native options object refuses unknown keys.
    with pytest.raises(ValueError, match="unknown option 'no_such_setting'; known: estimators, seed"):
        _native.estimate(x, y, {"no_such_setting": 3})


def test_tasks_and_bounds_errors():
    with pytest.raises(ValueError, match="unknown task 'no-such-task'"):
        mibound.sample("no-such-task", 10)
    with pytest.raises(ValueError, match="invalid n = 0: must be at least 1"):
        mibound.sample("gaussian", 0)
    with pytest.raises(ValueError, match=r"^score matrix: expected N × M with M ≥ N ≥ 2, got 3 × 2$"):
        mibound.bounds.infonce(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="unknown bound 'bogus'"):
        mibound.bounds.evaluate("bogus", np.zeros((3, 3)))
    with pytest.raises(ValueError, match="invalid"):
        mibound.bounds.smile(np.zeros((3, 3)), tau=-1.0)


@pytest.mark.parametrize(
    "kind, exc, text",
    [
        ("shape", ValueError, "x: expected a, got b"),
        ("parameter", ValueError, "invalid batch = 1: must be at least 2"),
        ("non_finite", ValueError, "x has a non-finite value NaN at row 1, column 2"),
        ("unknown", ValueError, "unknown estimator 'foo'; known: infonce"),
        ("data", ValueError, "data.csv: row 2: not a number"),
        ("format", ValueError, "checkpoint: bad JSON"),
        ("io", OSError, "data.csv: disk on fire"),
        ("diverged", RuntimeError, "training diverged at step 3: loss NaN"),
        ("cancelled", KeyboardInterrupt, "cancelled"),
    ],
)
def test_every_error_kind_maps_to_its_exception(kind, exc, text):
    with pytest.raises(exc) as e:
        _native._raise_error(kind)
    assert type(e.value) is exc and str(e.value) == text
