"""Reference values for tests/classical_reference_values.rs (the classical MI estimators).

Run:  python3 tests/reference/classical_reference.py   (numpy, scipy, scikit-learn)

The data are generated bit-identically in Rust and here: splitmix64 → 53-bit uniforms →
approximately normal variates as the sum of 12 uniforms minus 6, then only +, −, × (IEEE
double, no transcendental function, no fused multiply-add), so both sides see the same numbers.

Independent implementations used:
- KSG-1 in 1-d: scikit-learn's `_compute_mi_cc` (what `mutual_info_regression` calls after it
  scales the data and adds noise), i.e. "mutual_info_regression with no added noise";
- KSG-1 and KSG-2 in any dimension: a brute-force O(n²) numpy version written from the paper;
- Gaussian: the formula of Ince et al.'s gcmi `mi_gg` (plug-in and bias-corrected);
- copula: scipy.stats.rankdata (ties averaged) → scipy.stats.norm.ppf(r/(n+1)) → mi_gg;
- Kozachenko–Leonenko: scipy.spatial.cKDTree (p = inf and p = 2), scipy.special digamma/gammaln;
- binned: numpy.histogramdd.
"""

import numpy as np
from scipy.spatial import cKDTree
from scipy.special import digamma, gammaln
from scipy.stats import norm, rankdata
from sklearn.feature_selection._mutual_info import _compute_mi_cc
from sklearn.feature_selection import mutual_info_regression

M64 = (1 << 64) - 1


def normals(seed, n, m):
    """n × m array, row-major draws, each the sum of 12 splitmix64 uniforms minus 6."""
    state = seed & M64
    out = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            s = 0.0
            for _ in range(12):
                state = (state + 0x9E3779B97F4A7C15) & M64
                z = state
                z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
                z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
                z = z ^ (z >> 31)
                s += float(z >> 11) * (1.0 / 9007199254740992.0)
            out[i, j] = s - 6.0
    return out


def dataset(name):
    if name == "A":  # 1-d linear, n = 500
        g = normals(1, 500, 2)
        x = g[:, 0:1]
        y = 0.6 * g[:, 0:1] + 0.8 * g[:, 1:2]
    elif name == "B":  # 1-d cubic, n = 400
        g = normals(2, 400, 2)
        x = g[:, 0:1]
        y = g[:, 0:1] * g[:, 0:1] * g[:, 0:1] + 0.5 * g[:, 1:2]
    elif name == "C":  # 2-d x, 3-d y, n = 300
        g = normals(3, 300, 5)
        x = g[:, 0:2]
        y = np.column_stack([
            0.7 * g[:, 0] + 0.7 * g[:, 2],
            g[:, 1] - 0.5 * g[:, 3],
            g[:, 4] + 0.3 * g[:, 0],
        ])
    else:
        raise ValueError(name)
    return x, y


def ksg_brute(x, y, k, variant):
    n = x.shape[0]
    dx = np.max(np.abs(x[:, None, :] - x[None, :, :]), axis=2)
    dy = np.max(np.abs(y[:, None, :] - y[None, :, :]), axis=2)
    dz = np.maximum(dx, dy)
    np.fill_diagonal(dz, np.inf)
    nx = np.zeros(n)
    ny = np.zeros(n)
    for i in range(n):
        order = np.argsort(dz[i], kind="stable")[:k]
        eps = dz[i, order[-1]]
        others = np.arange(n) != i
        if variant == 1:
            nx[i] = np.sum(dx[i, others] < eps)
            ny[i] = np.sum(dy[i, others] < eps)
        else:
            ex = np.max(dx[i, order])
            ey = np.max(dy[i, order])
            nx[i] = np.sum(dx[i, others] <= ex)
            ny[i] = np.sum(dy[i, others] <= ey)
    if variant == 1:
        return digamma(k) + digamma(n) - np.mean(digamma(nx + 1)) - np.mean(digamma(ny + 1))
    return digamma(k) - 1.0 / k + digamma(n) - np.mean(digamma(nx)) - np.mean(digamma(ny))


def mi_gg(x, y, biascorrect):
    """gcmi.mi_gg (Ince et al. 2017) in nats; rows are samples here."""
    n, dx = x.shape
    dy = y.shape[1]
    dxy = dx + dy
    xy = np.hstack([x, y])
    xy = xy - xy.mean(axis=0)
    c = xy.T @ xy / (n - 1)
    hx = np.sum(np.log(np.diag(np.linalg.cholesky(c[:dx, :dx]))))
    hy = np.sum(np.log(np.diag(np.linalg.cholesky(c[dx:, dx:]))))
    hxy = np.sum(np.log(np.diag(np.linalg.cholesky(c))))
    if biascorrect:
        psiterms = digamma((n - np.arange(1, dxy + 1)) / 2.0) / 2.0
        dterm = (np.log(2) - np.log(n - 1.0)) / 2.0
        hx = hx - dx * dterm - psiterms[:dx].sum()
        hy = hy - dy * dterm - psiterms[:dy].sum()
        hxy = hxy - dxy * dterm - psiterms.sum()
    return hx + hy - hxy


def canonical(x, y):
    dx = x.shape[1]
    xy = np.hstack([x, y])
    c = np.cov(xy.T)
    lx = np.linalg.cholesky(c[:dx, :dx])
    ly = np.linalg.cholesky(c[dx:, dx:])
    m = np.linalg.solve(lx, c[:dx, dx:]) @ np.linalg.inv(ly).T
    return np.linalg.svd(m, compute_uv=False)


def copnorm(m):
    return np.column_stack([norm.ppf(rankdata(m[:, j]) / (m.shape[0] + 1)) for j in range(m.shape[1])])


def kl(x, k, p):
    n, d = x.shape
    r = cKDTree(x).query(x, k=k + 1, p=p)[0][:, k]
    lnv = d * np.log(2) if p == np.inf else 0.5 * d * np.log(np.pi) - gammaln(0.5 * d + 1)
    return digamma(n) - digamma(k) + lnv + d * np.mean(np.log(r))


def binned(x, y, bins):
    dx = x.shape[1]
    h, _ = np.histogramdd(np.hstack([x, y]), bins=bins)
    n = x.shape[0]
    pxy = h / n
    axes_y = tuple(range(dx, h.ndim))
    axes_x = tuple(range(dx))
    px = pxy.sum(axis=axes_y, keepdims=True)
    py = pxy.sum(axis=axes_x, keepdims=True)
    nz = pxy > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = pxy / (px * py)
    return float(np.sum(pxy[nz] * np.log(ratio[nz])))


def out(name, v):
    print(f"const {name}: f64 = {float(v)!r};")


if __name__ == "__main__":
    for ds in "ABC":
        x, y = dataset(ds)
        print(f"// dataset {ds}: n = {x.shape[0]}, dx = {x.shape[1]}, dy = {y.shape[1]}; x[0] = {x[0].tolist()}, y[0] = {y[0].tolist()}")
        for k in (3, 5):
            out(f"KSG1_{ds}_K{k}", ksg_brute(x, y, k, 1))
            out(f"KSG2_{ds}_K{k}", ksg_brute(x, y, k, 2))
        if ds in "AB":
            for k in (3, 5):
                out(f"SKLEARN_CC_{ds}_K{k}", _compute_mi_cc(x[:, 0], y[:, 0], k))
            out(f"SKLEARN_MIR_{ds}_K3", mutual_info_regression(x, y[:, 0], n_neighbors=3, random_state=0)[0])
        out(f"GAUSS_{ds}", mi_gg(x, y, True))
        out(f"GAUSS_PLUGIN_{ds}", mi_gg(x, y, False))
        for i, r in enumerate(canonical(x, y)):
            out(f"CANON_{ds}_{i + 1}", r)
        out(f"COPULA_{ds}", mi_gg(copnorm(x), copnorm(y), True))
        xy = np.hstack([x, y])
        for k in (3, 5):
            out(f"KL_MAX_{ds}_K{k}", kl(xy, k, np.inf))
            out(f"KL_EUC_{ds}_K{k}", kl(xy, k, 2))
        for bins in (4, 8) if ds != "C" else (3,):
            out(f"BINNED_{ds}_B{bins}", binned(x, y, bins))
