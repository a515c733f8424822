"""Writes scikit-learn's bundled data sets as pandas writes CSV files, for the tests of
`mibound estimate` on real data (tests/estimate_trust.rs). Run from the repository root:

    python3 tests/reference/make_sklearn_csv.py   # needs scikit-learn and pandas

iris.csv, wine.csv: every feature column (pandas' index column first, as `to_csv()` writes it).
digits_left.csv / digits_right.csv: the 8 × 8 digit images split into the left 4 and right 4
pixel columns (32 features each), with the columns that are constant over all 1797 images
removed (as a user would by hand). The data sets are scikit-learn's (BSD-3-Clause).
"""
import pandas as pd
from sklearn import datasets

iris = datasets.load_iris(as_frame=True).frame.drop(columns="target")
iris.to_csv("tests/data/iris.csv")
wine = datasets.load_wine(as_frame=True).frame.drop(columns="target")
wine.to_csv("tests/data/wine.csv")
d = datasets.load_digits(as_frame=True).frame.drop(columns="target")
left = [c for c in d.columns if int(c.split("_")[2]) < 4]
right = [c for c in d.columns if int(c.split("_")[2]) >= 4]
keep = lambda cols: [c for c in cols if d[c].nunique() > 1]
d[keep(left)].to_csv("tests/data/digits_left.csv", index=False)
d[keep(right)].to_csv("tests/data/digits_right.csv", index=False)
print("wrote tests/data/{iris,wine,digits_left,digits_right}.csv")
