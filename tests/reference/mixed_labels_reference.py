"""Reference values of the mixed KSG with declared class labels (tests/discrete_reference_values.rs,
`mixed_ksg_mi` with `LabelColumns`).

Run (Python 3.11, numpy 2.4.6, scipy 1.17.1, scikit-learn for classical_reference's imports):
    /tmp/ds-venv/bin/python tests/reference/mixed_labels_reference.py

A label column enters the mixed KSG with the discrete metric: distance 0 between equal labels,
larger than any measured distance between different ones (src/estimators/classical/mixed.rs,
module docs, "Labels"). Two independent computations must agree to 1e-9 before a value is printed:
- Gao et al.'s published Mixed_KSG (gao_mixed_ksg.py, unchanged) on the data with each label
  column replaced by its one-hot encoding times C, C = 2 * (the largest range of a measured column)
  + 1: two different labels are then exactly C apart in the max-norm, two equal ones 0 apart,
  and C exceeds every measured distance, which is the discrete metric as the estimator sees it;
- a brute-force numpy version written from the module docs, with an infinite distance between
  different labels.
The data are those of discrete_reference.py (G, E) and one more set, K, whose 41-level label has
classes smaller than k (so a k-th neighbour can lie in another class); the splitmix64 normals of
classical_reference.py make them bit-identical in Rust. The script also checks that permuting
the label codes leaves both values unchanged, and prints Gao's code on the codes read as numbers,
before and after the permutation (which moves it: the defect the discrete metric removes).
"""

import numpy as np
from scipy.special import digamma

from classical_reference import normals
from gao_mixed_ksg import mixed_ksg_gao


def count_thresholds(v, ts):
    return sum((v > t).astype(float) for t in ts)


def dataset(name):
    """(x, y, label columns of x, label columns of y)."""
    if name == "G":  # discrete_reference.py's G: a 4-level label x, a zero-inflated y, n = 400
        g = normals(14, 400, 3)
        x = count_thresholds(g[:, 0], [-1.0, 0.0, 1.0])
        y = np.where(g[:, 1] > 0.5, 0.0, x + g[:, 2])
        return x[:, None], y[:, None], [0], []
    if name == "E":  # discrete_reference.py's E: continuous x, a 3-level label y, n = 500
        g = normals(12, 500, 2)
        y = count_thresholds(g[:, 1], [-0.5, 0.5])
        x = g[:, 0] + y
        return x[:, None], y[:, None], [], [0]
    if name == "K":  # x = (41-level label, measured), y measured, n = 300
        g = normals(18, 300, 3)
        lab = count_thresholds(g[:, 0], [(i - 20) / 10.0 for i in range(41)])
        x = np.column_stack([lab, g[:, 1]])
        y = g[:, 0] + 0.5 * g[:, 1] + 0.5 * g[:, 2]
        return x, y[:, None], [0], []
    raise ValueError(name)


def measured(m, labels):
    return m[:, [j for j in range(m.shape[1]) if j not in labels]]


def one_hot_scaled(m, labels, c):
    parts = []
    for j in range(m.shape[1]):
        if j in labels:
            levels = np.unique(m[:, j])
            parts.append(c * (m[:, j][:, None] == levels[None, :]).astype(float))
        else:
            parts.append(m[:, [j]])
    return np.column_stack(parts)


def gao_one_hot(x, y, lx, ly, k):
    ranges = [np.ptp(col) for col in np.column_stack([measured(x, lx), measured(y, ly)]).T]
    c = 2.0 * max(ranges) + 1.0
    return mixed_ksg_gao(one_hot_scaled(x, lx, c), one_hot_scaled(y, ly, c), k)


def side_distances(m, labels):
    meas = measured(m, labels)
    d = np.max(np.abs(meas[:, None, :] - meas[None, :, :]), axis=2) if meas.shape[1] else np.zeros((len(m), len(m)))
    for j in labels:
        d = np.where(m[:, j][:, None] == m[:, j][None, :], d, np.inf)
    return d


def mixed_brute(x, y, lx, ly, k):
    n = x.shape[0]
    dx, dy = side_distances(x, lx), side_distances(y, ly)
    dz = np.maximum(dx, dy)
    total = 0.0
    for i in range(n):
        rho = np.sort(np.delete(dz[i], i))[k - 1]
        if rho > 0:
            kt, nx, ny = k, np.sum(dx[i] < rho), np.sum(dy[i] < rho)
        else:
            kt, nx, ny = np.sum(dz[i] == 0), np.sum(dx[i] == 0), np.sum(dy[i] == 0)
        total += digamma(kt) + np.log(n) - digamma(nx) - digamma(ny)
    return total / n


def relabelled(m, labels, seed):
    m = m.copy()
    r = np.random.default_rng(seed)
    for j in labels:
        levels = np.unique(m[:, j])
        new = r.permutation(len(levels)).astype(float)
        m[:, j] = new[np.searchsorted(levels, m[:, j])]
    return m


for name, ks in [("G", (3, 5)), ("E", (5,)), ("K", (3, 5))]:
    x, y, lx, ly = dataset(name)
    print(f"// data {name}")
    for k in ks:
        v = gao_one_hot(x, y, lx, ly, k)
        assert abs(v - mixed_brute(x, y, lx, ly, k)) < 1e-9, (name, k)
        xr, yr = relabelled(x, lx, k), relabelled(y, ly, k)
        assert abs(v - gao_one_hot(xr, yr, lx, ly, k)) < 1e-9, ("relabelled", name, k)
        assert abs(v - mixed_brute(xr, yr, lx, ly, k)) < 1e-9, ("relabelled brute", name, k)
        raw, raw_relabelled = mixed_ksg_gao(x, y, k), mixed_ksg_gao(xr, yr, k)
        print(f"// Gao's code on the codes as numbers: {float(raw)!r}, on permuted codes: {float(raw_relabelled)!r}")
        print(f"const MIXED_LABELS_{name}_K{k}: f64 = {float(v)!r};")
