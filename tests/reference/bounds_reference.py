#!/usr/bin/env python3
"""Independent reference values for tests/reference_values.rs.

Pure Python (math only), written from the formulas in docs/bounds.md, not from the Rust code.
Convention: S[i][j] = f(x_i, y_j); diagonal = joint pairs. Run: python3 tests/reference/bounds_reference.py
"""
import math

S = [
    [1.2, -0.3, 0.5, 0.1],
    [0.4, 2.0, -1.1, 0.3],
    [-0.7, 0.2, 0.9, -0.4],
    [0.6, -0.5, 0.0, 1.5],
]
N = len(S)
off = [(i, j) for i in range(N) for j in range(N) if i != j]
diag_mean = sum(S[i][i] for i in range(N)) / N


def lse(v):
    m = max(v)
    return m + math.log(sum(math.exp(x - m) for x in v))


def softplus(x):
    return math.log1p(math.exp(x))


infonce = math.log(N) + sum(S[i][i] - lse(S[i]) for i in range(N)) / N
nwj = 1 + sum(S[i][i] - 1 for i in range(N)) / N - sum(math.exp(S[i][j] - 1) for i, j in off) / len(off)
a = [0.3, -0.2, 0.1, 0.5]  # per-column log-baseline ln a(y_j)
tuba = 1 + sum(S[i][i] - a[i] for i in range(N)) / N - sum(math.exp(S[i][j] - a[j]) for i, j in off) / len(off)
dv = diag_mean - math.log(sum(math.exp(S[i][j]) for i, j in off) / len(off))
js_value = diag_mean - sum(math.exp(S[i][j] - 1) for i, j in off) / len(off)  # NWJ(S), Poole's js_lower_bound
js_shifted_value = 1 + diag_mean - sum(math.exp(S[i][j]) for i, j in off) / len(off)  # NWJ(S + 1)
js_objective = -sum(softplus(-S[i][i]) for i in range(N)) / N - sum(softplus(S[i][j]) for i, j in off) / len(off)
tau = 0.5
smile = diag_mean - math.log(sum(math.exp(max(-tau, min(tau, S[i][j]))) for i, j in off) / len(off))


def interpolated(alpha, a):
    # column i holds the x candidates of y_i; B[k][i] uses column i without row k
    def B(k, i):
        loo = sum(math.exp(S[l][i]) for l in range(N) if l != k) / (N - 1)
        return math.log(alpha * loo + (1 - alpha) * math.exp(a[i]))
    joint = sum(S[i][i] - B(k, i) for i in range(N) for k in range(N) if k != i) / (N * (N - 1))
    marg = sum(math.exp(S[k][i] - B(i, i)) for i in range(N) for k in range(N) if k != i) / (N * (N - 1))
    return 1 + joint - marg


logq = [-1.0, -0.5, -2.0, -1.5]  # noise log-probability of y_j
k = N - 1
nce = -sum(
    softplus(-(S[i][i] - math.log(k) - logq[i]))
    + sum(softplus(S[i][j] - math.log(k) - logq[j]) for j in range(N) if j != i)
    for i in range(N)
) / N

for name, v in [
    ("infonce", infonce), ("nwj", nwj), ("tuba", tuba), ("dv", dv), ("js_value", js_value), ("js_shifted_value", js_shifted_value),
    ("js_objective", js_objective), ("smile_tau_0.5", smile),
    ("interpolated_alpha_0.3", interpolated(0.3, a)), ("interpolated_alpha_1", interpolated(1.0, a)),
    ("nce", nce),
]:
    print(f"{name} = {v:.15f}")

# Upper bounds on the same matrix read as log q(y_j | x_i).
club = diag_mean - sum(S[i][j] for i in range(N) for j in range(N)) / N**2
loo = sum(S[i][i] - (lse([S[j][i] for j in range(N) if j != i]) - math.log(N - 1)) for i in range(N)) / N
ba = 3.0 + diag_mean  # H(Y) = 3 nats
for name, v in [("club", club), ("loo", loo), ("ba_h3", ba)]:
    print(f"{name} = {v:.15f}")
