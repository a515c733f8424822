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
