"""The data rules' shared table (tests/data/bad_inputs.json) through Python: every refusal is a
ValueError whose message is the table's sentence, every note a DataWarning with the table's
sentence. tests/cli_rules.rs runs the same table through the command line, which prints the
same sentences after the files' names."""

import json
import warnings

import numpy as np
import pytest

import mibound
from conftest import REPO

# What estimate tells a user whose columns look like class labels (python/src/lib.rs).
LABEL_HINT = ("declare it (discrete_x=, discrete_y=) and use an estimator for labels (estimators='discrete', 'ross', "
              "'mixed-ksg', or a neural bound such as 'infonce', which embeds them) or mibound.mutual_info_classif")

TABLE = json.loads((REPO / "tests" / "data" / "bad_inputs.json").read_text())["cases"]


def matrix(rows):
    return np.array([[float(v) for v in r] for r in rows], dtype=np.float64)


def data(case, which):
    m = matrix(case[which])
    names = case.get(f"{which}_names")
    if names is None:
        return m
    pd = pytest.importorskip("pandas", reason="pandas is not installed: the cases with column names are skipped")
    return pd.DataFrame(m, columns=names)


@pytest.mark.parametrize("case", TABLE, ids=[c["name"] for c in TABLE])
def test_python_gives_the_tables_sentence(case):
    x, y = data(case, "x"), data(case, "y")
    kw = dict(estimators="gaussian", drop_constant=case.get("drop_constant", False))
    if "error" in case:
        with pytest.raises(ValueError) as e:
            mibound.estimate(x, y, **kw)
        assert str(e.value) == case["error"].replace("{drop}", "drop_constant=True")
        # The one-estimator door applies the same rules.
        with pytest.raises(ValueError) as e:
            mibound.MutualInformation("gaussian", drop_constant=kw["drop_constant"]).fit(x, y)
        assert str(e.value) == case["error"].replace("{drop}", "drop_constant=True")
    else:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = mibound.estimate(x, y, **kw)
        notes = [str(w.message) for w in caught if issubclass(w.category, mibound.DataWarning)]
        note = case["note"].replace("{labels}", LABEL_HINT)
        assert notes == [note]
        assert [n["message"] for n in r.notes] == [note]


def test_the_table_covers_every_rule():
    sentences = " ".join(c.get("error", c.get("note", "")) for c in TABLE)
    for rule in ("not finite", "one row per sample", "too few rows", "constant columns", "every y column", "dropped constant", "index pandas", "class label"):
        assert rule in sentences, rule


CALLS = json.loads((REPO / "tests" / "data" / "bad_inputs.json").read_text())["calls"]


def _frame(table):
    """The table as a DataFrame: numbers, text, and "NA" as pandas' missing value (a column of
    whole numbers with one becomes nullable Int64, of fractions Float64)."""
    pd = pytest.importorskip("pandas")
    columns = {}
    for j, name in enumerate(table["names"]):
        cells = [r[j] for r in table["rows"]]
        known = [c for c in cells if c != "NA"]
        if all(isinstance(c, (int, float)) for c in known):
            dtype = "Int64" if all(isinstance(c, int) for c in known) else "Float64"
            values = pd.array([pd.NA if c == "NA" else c for c in cells], dtype=dtype) if "NA" in cells \
                else np.array(cells, dtype=np.float64)
        else:
            values = np.array([pd.NA if c == "NA" else c for c in cells], dtype=object)
        columns[j] = values
    df = pd.DataFrame(columns)
    df.columns = table["names"]
    return df


def _call(case):
    """The case's Python call: its result and the sentences of every warning it gave."""
    df = _frame(case["table"])
    p = case["python"]
    pick = lambda cols: df.iloc[:, [c if isinstance(c, int) else list(df.columns).index(c) for c in cols]]  # noqa: E731
    args = [pick(p["x"]), df[p["y"]]]
    if "z" in p:
        args.append(pick(p["z"]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = getattr(mibound, p["call"])(*args, **p["kwargs"])
    said = [str(w.message) for w in caught]
    if isinstance(r, mibound.Comparison):
        said += [w["message"] for w in r.warnings]
        said += [w["message"] for e in r.estimates for w in e.diagnostics.warnings]
    return r, said


@pytest.mark.parametrize("case", CALLS, ids=[c["name"] for c in CALLS])
def test_every_function_gives_the_tables_sentence(case):
    if "error" in case:
        with pytest.raises(ValueError) as e:
            _call(case)
        for needle in [case["error"], *case.get("contains", [])]:
            assert needle in str(e.value), (needle, str(e.value))
    else:
        _, said = _call(case)
        # The sentence, within the warning (the command line's names lines of its file there).
        assert any(case["warning"] in w for w in said), said
