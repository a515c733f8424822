"""Reference values for tests/discrete_reference_values.rs (discrete, mixed and conditional MI,
per-feature MI and the all-pairs matrix).

Run (Python 3.12, numpy 2, scipy, scikit-learn, ennemi):
    ~/.pyenv/versions/3.12.1/bin/python -m venv /tmp/ds-venv312
    /tmp/ds-venv312/bin/pip install ennemi scikit-learn
    /tmp/ds-venv312/bin/python tests/reference/discrete_reference.py

The data are generated bit-identically in Rust and here with the splitmix64 normals of
classical_reference.py; labels are counts of thresholds crossed (exact comparisons), so both
sides see the same numbers. Independent implementations used:
- ennemi is used with its approximate digamma replaced by scipy's (see below);
- discrete plug-in: sklearn.metrics.mutual_info_score and ennemi (discrete_x, discrete_y);
  Miller–Madow: that value + (Kx + Ky - Kxy - 1)/(2N), with the counts from numpy.unique;
- Ross 2014: sklearn.feature_selection._mutual_info._compute_mi_cd (1-d) and ennemi's
  semidiscrete estimator; in 2-d a brute-force numpy version written from the paper (max-norm);
- mixed KSG: Gao et al.'s published Mixed_KSG (github.com/wgao9/mixed_KSG, mixed.py, copied
  unchanged but for Python 3 into gao_mixed_ksg.py) and a brute-force numpy version with exact comparisons;
- Frenzel-Pompe CMI: ennemi.estimate_mi(y, x, cond=z, k=k, preprocess=False) and a brute-force
  numpy version; Gaussian CMI: gcmi's cmi_ggg formula (Ince et al. 2017) with biascorrect;
- per-feature MI: sklearn's mutual_info_regression / mutual_info_classif (random_state=0);
- matrix: ennemi.pairwise_mi(data / data.std(axis=0), k=3, preprocess=False).
"""

import numpy as np
from scipy.special import digamma
from sklearn.feature_selection import mutual_info_classif, mutual_info_regression
from sklearn.feature_selection._mutual_info import _compute_mi_cd
from sklearn.metrics import mutual_info_score
import ennemi
import ennemi._entropy_estimators as ennemi_estimators

# ennemi's own digamma (_psi, an asymptotic expansion) is off by up to ~1e-5 at small integers;
# for 1e-9 agreement its counts are combined with scipy's digamma instead. Nothing else changes.
ennemi_estimators._psi = lambda v: digamma(np.asarray(v, dtype=np.float64))

from classical_reference import normals, mi_gg
from gao_mixed_ksg import mixed_ksg_gao


def count_thresholds(v, ts):
    return sum((v > t).astype(float) for t in ts)


def dataset(name):
    if name == "D":  # two discrete labels, n = 400
        g = normals(11, 400, 2)
        x = count_thresholds(g[:, 0], [-1.0, 0.0, 1.0])
        y = count_thresholds(g[:, 0] + g[:, 1], [-1.5, 0.0, 1.5])
        return x, y
    if name == "E":  # continuous x (1-d), label y in 0..2, n = 500
        g = normals(12, 500, 2)
        y = count_thresholds(g[:, 1], [-0.5, 0.5])
        x = g[:, 0] + y
        return x, y
    if name == "F":  # continuous x (2-d), label y in 0..3, n = 300
        g = normals(13, 300, 3)
        y = count_thresholds(g[:, 2], [-1.0, 0.0, 1.0])
        x = np.column_stack([g[:, 0] + 0.5 * y, g[:, 1] - 0.5 * y])
        return x, y
    if name == "G":  # mixture: discrete x, zero-inflated y, n = 400
        g = normals(14, 400, 3)
        x = count_thresholds(g[:, 0], [-1.0, 0.0, 1.0])
        y = np.where(g[:, 1] > 0.5, 0.0, x + g[:, 2])
        return x, y
    if name == "H":  # x, y, z continuous, 1-d z, n = 400
        g = normals(15, 400, 3)
        z = g[:, 0]
        x = z + 0.5 * g[:, 1]
        y = 0.8 * z + 0.6 * g[:, 2] + 0.3 * x
        return x, y, z[:, None]
    if name == "I":  # x, y continuous, 2-d z, n = 300
        g = normals(16, 300, 4)
        z = g[:, 0:2]
        x = g[:, 0] - g[:, 1] + 0.7 * g[:, 2]
        y = g[:, 0] * g[:, 1] + 0.5 * g[:, 3] + 0.2 * g[:, 2]
        return x, y, z
    if name == "J":  # per-feature: 4 features (column 2 a label), continuous target, n = 500
        g = normals(17, 500, 5)
        lab = count_thresholds(g[:, 2], [-0.5, 0.5])
        X = np.column_stack([g[:, 0], g[:, 1], lab, g[:, 3]])
        y = g[:, 0] + 0.5 * g[:, 1] * g[:, 1] + 0.5 * lab + 0.5 * g[:, 4]
        cls = count_thresholds(y, [0.0, 1.0])
        return X, y, cls
    raise ValueError(name)


def plugin_counts(x, y):
    kx = len(np.unique(x))
    ky = len(np.unique(y))
    kxy = len(np.unique(np.column_stack([x, y]), axis=0))
    return kx, ky, kxy


def ross_brute(c, d, k):
    """Ross 2014 in any dimension with the max-norm, written from the paper."""
    n = c.shape[0]
    dist = np.max(np.abs(c[:, None, :] - c[None, :, :]), axis=2)
    labels, counts = np.unique(d, return_counts=True)
    keep = np.isin(d, labels[counts > 1])
    idx = np.nonzero(keep)[0]
    total = 0.0
    for i in idx:
        same = idx[(d[idx] == d[i]) & (idx != i)]
        kl = min(k, len(same))
        r = np.sort(dist[i, same])[kl - 1]
        m = np.sum(dist[i, idx] < r) if r > 0 else np.sum(dist[i, idx] == 0)
        total += digamma(kl) - digamma(len(same) + 1) - digamma(m)
    return digamma(len(idx)) + total / len(idx)


def mixed_ksg_brute(x, y, k):
    x = x.reshape(len(x), -1)
    y = y.reshape(len(y), -1)
    n = x.shape[0]
    dx = np.max(np.abs(x[:, None, :] - x[None, :, :]), axis=2)
    dy = np.max(np.abs(y[:, None, :] - y[None, :, :]), axis=2)
    dz = np.maximum(dx, dy)
    total = 0.0
    for i in range(n):
        others = np.delete(dz[i], i)
        rho = np.sort(others)[k - 1]
        if rho > 0:
            kt, nx, ny = k, np.sum(dx[i] < rho), np.sum(dy[i] < rho)
        else:
            kt, nx, ny = np.sum(dz[i] == 0), np.sum(dx[i] == 0), np.sum(dy[i] == 0)
        total += digamma(kt) + np.log(n) - digamma(nx) - digamma(ny)
    return total / n


def cmi_brute(x, y, z, k):
    cols = lambda *a: np.column_stack(a)
    x = x.reshape(len(x), -1)
    y = y.reshape(len(y), -1)
    d = lambda m: np.max(np.abs(m[:, None, :] - m[None, :, :]), axis=2)
    dxyz, dxz, dyz, dz = d(cols(x, y, z)), d(cols(x, z)), d(cols(y, z)), d(z)
    n = x.shape[0]
    total = 0.0
    for i in range(n):
        eps = np.sort(np.delete(dxyz[i], i))[k - 1]
        nxz = np.sum(dxz[i] < eps) - 1
        nyz = np.sum(dyz[i] < eps) - 1
        nz = np.sum(dz[i] < eps) - 1
        total += digamma(nxz + 1) + digamma(nyz + 1) - digamma(nz + 1)
    return digamma(k) - total / n


def cmi_ggg(x, y, z):
    """gcmi's cmi_ggg (biascorrect=True) by its chain of entropies: the same as
    mi_gg(x, [y z]) - mi_gg(x, z) term by term (the ln(2/(N-1)) terms cancel)."""
    x = x.reshape(len(x), -1)
    y = y.reshape(len(y), -1)
    n = x.shape[0]
    dx, dy, dz = x.shape[1], y.shape[1], z.shape[1]
    xyz = np.column_stack([x, y, z])
    xyz = xyz - xyz.mean(axis=0)
    c = xyz.T @ xyz / (n - 1)
    ix = list(range(dx))
    iy = list(range(dx, dx + dy))
    iz = list(range(dx + dy, dx + dy + dz))
    def h(idx):
        sub = c[np.ix_(idx, idx)]
        d = len(idx)
        hh = np.sum(np.log(np.diag(np.linalg.cholesky(sub))))
        psiterms = digamma((n - np.arange(1, d + 1)) / 2.0) / 2.0
        dterm = (np.log(2) - np.log(n - 1.0)) / 2.0
        return hh - d * dterm - psiterms.sum()
    return h(ix + iz) + h(iy + iz) - h(ix + iy + iz) - h(iz)


def lit(v):
    return "f64::NAN" if np.isnan(v) else repr(float(v))


def out(name, v):
    print(f"const {name}: f64 = {float(v)!r};")


def agree(a, b, what):
    assert abs(a - b) < 1e-9, (what, a, b)


x, y = dataset("D")
print(f"// data D: x[0..4] = {x[:4].tolist()}, y[0..4] = {y[:4].tolist()}; E: x[0] = {float(dataset('E')[0][0])!r}")
mi = mutual_info_score(x, y)
agree(mi, ennemi.estimate_mi(y, x, discrete_x=True, discrete_y=True, preprocess=False), "plug-in vs ennemi")
kx, ky, kxy = plugin_counts(x, y)
out("PLUGIN_D", mi)
out("MM_D", mi + (kx + ky - kxy - 1) / (2 * len(x)))

print("// data E")
x, y = dataset("E")
for k in (3, 5):
    v = _compute_mi_cd(x, y, k)
    agree(v, ross_brute(x[:, None], y, k), "ross sklearn vs brute")
    agree(v, ennemi.estimate_mi(y, x, k=k, discrete_y=True, preprocess=False), "ross sklearn vs ennemi")
    out(f"ROSS_E_K{k}", v)

print("// data F")
x, y = dataset("F")
out("ROSS_F_K3", ross_brute(x, y, 3))

print("// data G")
x, y = dataset("G")
for k in (3, 5):
    v = mixed_ksg_gao(x, y, k)
    agree(v, mixed_ksg_brute(x, y, k), "gao vs brute")
    out(f"MIXED_G_K{k}", v)
x, y = dataset("E")
out("MIXED_E_K5", mixed_ksg_gao(x, y, 5))

for ds in "HI":
    x, y, z = dataset(ds)
    print(f"// data {ds}")
    for k in (3, 5):
        v = ennemi.estimate_mi(y, x, k=k, cond=z, preprocess=False)
        v = float(np.asarray(v).ravel()[0])
        agree(v, cmi_brute(x, y, z, k), "cmi ennemi vs brute")
        out(f"CMI_{ds}_K{k}", v)
    g = cmi_ggg(x, y, z)
    agree(g, mi_gg(x[:, None], np.column_stack([y, z]), True) - mi_gg(x[:, None], z, True), "chain rule")
    out(f"GCMI_{ds}", g)

print("// data J")
X, y, cls = dataset("J")
for name, v in [
    ("MIR_J", mutual_info_regression(X, y, discrete_features=[2], n_neighbors=3, random_state=0)),
    ("MIC_J", mutual_info_classif(X, cls, discrete_features=[2], n_neighbors=3, random_state=0)),
]:
    print(f"const {name}: [f64; 4] = [{', '.join(lit(a) for a in v)}];")
data = np.column_stack([X[:, [0, 1, 3]], y])
m = ennemi.pairwise_mi(data / data.std(axis=0), k=3, preprocess=False)
print(f"const MATRIX_J: [[f64; 4]; 4] = [{', '.join('[' + ', '.join(lit(a) for a in row) + ']' for row in m)}];")
