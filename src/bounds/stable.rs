//! Numerically stable building blocks shared by the bounds: max-shifted log-sum-exp,
//! softplus and the logistic function. Everything here works on column-major `n × n` slices
//! (`s[j * n + i]` is row `i`, column `j`), sweeping columns so memory is read contiguously.

use crate::real::Real;

/// `ln(1 + e^x)` without overflow.
#[inline]
pub fn softplus<T: Real>(x: T) -> T {
    let zero = T::zero();
    x.max(zero) + (-x.abs()).exp().ln_1p()
}

/// `1 / (1 + e^{-x})` without overflow.
#[inline]
pub fn sigmoid<T: Real>(x: T) -> T {
    let one = T::one();
    if x >= T::zero() {
        one / (one + (-x).exp())
    } else {
        let e = x.exp();
        e / (one + e)
    }
}

/// `ln(e^a + e^b)` in `f64`.
#[inline]
pub fn log_add_exp(a: f64, b: f64) -> f64 {
    if a == f64::NEG_INFINITY {
        return b;
    }
    if b == f64::NEG_INFINITY {
        return a;
    }
    let m = a.max(b);
    m + ((a - m).exp() + (b - m).exp()).ln()
}

/// Per-row maxima of a column-major `n × n` matrix, written into `max` (length `n`).
pub fn row_max<T: Real>(s: &[T], n: usize, max: &mut [T]) {
    max[..n].copy_from_slice(&s[..n]);
    for col in s.chunks_exact(n).skip(1) {
        for (m, &v) in max.iter_mut().zip(col) {
            if v > *m {
                *m = v;
            }
        }
    }
}

/// Max-shifted `ln mean_{i≠j} e^{g(s_ij, j)}` over the `n(n−1)` off-diagonal entries, where `g`
/// maps a score and its column to the exponent (identity, a baseline shift, a clamp).
/// Returns `(log_mean_exp, shift)`; the shift is the maximum exponent used.
pub fn offdiag_log_mean_exp<T: Real>(s: &[T], n: usize, g: impl Fn(T, usize) -> T) -> (f64, T) {
    let mut m = -T::max_finite();
    for (j, col) in s.chunks_exact(n).enumerate() {
        for (i, &v) in col.iter().enumerate() {
            if i != j {
                m = m.max(g(v, j));
            }
        }
    }
    let mut sum = 0.0f64;
    for (j, col) in s.chunks_exact(n).enumerate() {
        let mut colsum = T::zero();
        for (i, &v) in col.iter().enumerate() {
            if i != j {
                colsum += (g(v, j) - m).exp();
            }
        }
        sum += colsum.to_f64();
    }
    let count = (n * (n - 1)) as f64;
    (m.to_f64() + (sum / count).ln(), m)
}

/// Mean of the diagonal, accumulated in `f64`.
pub fn diag_mean<T: Real>(s: &[T], n: usize) -> f64 {
    (0..n).map(|i| s[i * n + i].to_f64()).sum::<f64>() / n as f64
}
