//! Numerically stable building blocks shared by bounds, critics and contrastive losses:
//! max-shifted log-sum-exp, softmax, softplus, the logistic function and column sweeps of score
//! matrices. The matrix helpers work on column-major `n × n` slices (`s[j * n + i]` is row `i`,
//! column `j`), sweeping columns so memory is read contiguously. Also the digamma function the
//! Gaussian bias correction ([`crate::cca`]) and the nearest-neighbour estimators use.

use crate::real::Real;

/// `ln(1 + e^x)` without overflow.
#[inline]
pub fn softplus<T: Real>(x: T) -> T {
    let zero = T::zero();
    x.max(zero) + (-x.abs()).exp().ln_1p()
}

/// `a ← ln(1 + e^z)` element-wise (the softplus unit). For `f32`, `max(z, 0) + ln(1 + t)` with
/// `t = e^{−|z|}` from [`exp_in_place`] and `ln(1 + t) = 2 atanh(s)` by its series, where
/// `s = t/(2 + t)` for `t ≤ √2 − 1` and `s = (t − 1)/(t + 3)` (plus `ln 2`) above, so
/// `|s| ≤ 0.172` and five terms leave a truncation below 10⁻⁸ relative; no branch, so it
/// vectorises. `f64` uses [`softplus`].
pub fn softplus_in_place<T: Real>(z: &[T], a: &mut [T]) {
    if std::any::TypeId::of::<T>() != std::any::TypeId::of::<f32>() {
        a.iter_mut().zip(z).for_each(|(a, &z)| *a = softplus(z));
        return;
    }
    // SAFETY: T is f32 (checked above), so both slices have f32's layout.
    let (z, a) = unsafe {
        (
            std::slice::from_raw_parts(z.as_ptr() as *const f32, z.len()),
            std::slice::from_raw_parts_mut(a.as_mut_ptr() as *mut f32, a.len()),
        )
    };
    a.iter_mut().zip(z).for_each(|(a, &z)| *a = -z.abs());
    exp_f32_dispatch(a);
    a.iter_mut().zip(z).for_each(|(a, &z)| *a = z.max(0.0) + ln_1p_unit_f32(*a));
}

/// `ln(1 + t)` for `t ∈ [0, 1]` (see [`softplus_in_place`]).
#[inline(always)]
fn ln_1p_unit_f32(t: f32) -> f32 {
    const SQRT2_M1: f32 = std::f32::consts::SQRT_2 - 1.0;
    let big = t > SQRT2_M1;
    let s = if big { (t - 1.0) / (t + 3.0) } else { t / (2.0 + t) };
    let s2 = s * s;
    let series = 2.0 * s * (1.0 + s2 * (1.0 / 3.0 + s2 * (1.0 / 5.0 + s2 * (1.0 / 7.0 + s2 * (1.0 / 9.0)))));
    (if big { std::f32::consts::LN_2 } else { 0.0 }) + series
}

/// `d ← d ⊙ σ(z)`, the softplus unit's backward pass, with `a = ln(1 + e^z)` its output:
/// `σ(z) = e^{z − a}` exactly, so one exponential per unit ([`exp_in_place`], vectorised for
/// `f32`, in chunks on the stack) instead of a division and an exponential.
pub fn softplus_backward_in_place<T: Real>(z: &[T], a: &[T], d: &mut [T]) {
    const CHUNK: usize = 256;
    let mut buf = [T::zero(); CHUNK];
    for ((d, z), a) in d.chunks_mut(CHUNK).zip(z.chunks(CHUNK)).zip(a.chunks(CHUNK)) {
        let b = &mut buf[..d.len()];
        b.iter_mut().zip(z.iter().zip(a)).for_each(|(b, (&z, &a))| *b = z - a);
        exp_in_place(b);
        d.iter_mut().zip(b.iter()).for_each(|(d, &s)| *d *= s);
    }
}

/// Positions of the columns of `m` whose values are all equal (all of them when `m` has no
/// rows).
pub fn constant_columns(m: nalgebra::DMatrixView<'_, f64>) -> Vec<usize> {
    (0..m.ncols()).filter(|&j| m.column(j).iter().all(|&v| v == m[(0, j)])).collect()
}

/// The mean and the central moments `m2, m3, m4` (sums of `(v − mean)^k` over n) of the values.
pub fn central_moments(v: impl Iterator<Item = f64> + Clone) -> (f64, [f64; 3]) {
    let (mut n, mut sum) = (0.0, 0.0);
    for x in v.clone() {
        n += 1.0;
        sum += x;
    }
    let mean = sum / n;
    let mut m = [0.0; 3];
    for x in v {
        let d = x - mean;
        m[0] += d.powi(2);
        m[1] += d.powi(3);
        m[2] += d.powi(4);
    }
    (mean, m.map(|s| s / n))
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

/// `ln Σ_j e^{v_j}`, shifted by the maximum so no term overflows; `−∞` for an empty iterator
/// (or one of `−∞`s only), `+∞` if any term is `+∞`.
pub fn log_sum_exp(v: impl Iterator<Item = f64> + Clone) -> f64 {
    let m = v.clone().fold(f64::NEG_INFINITY, f64::max);
    if !m.is_finite() {
        return m;
    }
    m + v.map(|x| (x - m).exp()).sum::<f64>().ln()
}

/// `ln mean_j e^{v_j}` (max-shifted); `−∞` for an empty iterator.
pub fn log_mean_exp(v: impl Iterator<Item = f64> + Clone) -> f64 {
    let n = v.clone().count();
    log_sum_exp(v) - (n as f64).ln()
}

/// Replaces `v` by `softmax(v)` (max-shifted) and returns `ln Σ_j e^{v_j}`.
pub fn softmax_in_place(v: &mut [f64]) -> f64 {
    let lse = log_sum_exp(v.iter().copied());
    v.iter_mut().for_each(|x| *x = (*x - lse).exp());
    lse
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
    // The exponentials a chunk at a time through `exp_in_place` (vectorised in f32: the scalar
    // `expf` was 12 % of the CPU of training NWJ critics, `estimate_coverage` under `perf`), in a
    // buffer on the stack (a training step allocates nothing), summed in the same order.
    const CHUNK: usize = 64;
    let mut buf = [T::zero(); CHUNK];
    let mut sum = 0.0f64;
    for (j, col) in s.chunks_exact(n).enumerate() {
        let mut colsum = T::zero();
        for (c, chunk) in col.chunks(CHUNK).enumerate() {
            let b = &mut buf[..chunk.len()];
            b.iter_mut().zip(chunk).for_each(|(o, &v)| *o = g(v, j) - m);
            exp_in_place(b);
            for (o, &e) in b.iter().enumerate() {
                if c * CHUNK + o != j {
                    colsum += e;
                }
            }
        }
        sum += colsum.to_f64();
    }
    let count = (n * (n - 1)) as f64;
    (m.to_f64() + (sum / count).ln(), m)
}

/// Writes the gradient of a partition term `−c · Σ_{i≠j} e^{s_ij − a_j}` into a column-major
/// `n × n` slice: `g_ij = −e^{s_ij − a_j − m} · e^{m + log_scale}` off the diagonal (with
/// `log_scale = ln c`) and `diag` on it. `m` must be the maximum of `s_ij − a_j` over the
/// off-diagonal entries (as returned by [`offdiag_log_mean_exp`]), so every exponential in `T` is
/// at most 1 and cannot overflow; the common factor `e^{m + log_scale}` is computed in `f64`.
///
/// Where the exact gradient is larger than `T` can represent (NWJ at scores above
/// `≈ 89 + ln n(n−1)` in `f32`), the common factor saturates at `T`'s largest finite value
/// instead of becoming `+∞`: every off-diagonal entry is then scaled by the same factor (the
/// largest becomes `T::MAX`), so the partition term's gradient keeps its direction and stays
/// finite; the diagonal is not scaled.
pub fn offdiag_exp_grad<T: Real>(
    s: &[T],
    g: &mut [T],
    n: usize,
    diag: T,
    m: T,
    log_scale: f64,
    a: impl Fn(usize) -> T,
) {
    let max = T::max_finite().to_f64();
    let scale = T::of((m.to_f64() + log_scale).exp().min(max));
    for (j, (scol, gcol)) in s.chunks_exact(n).zip(g.chunks_exact_mut(n)).enumerate() {
        let shift = a(j) + m;
        gcol.iter_mut().zip(scol).for_each(|(o, &v)| *o = v - shift);
        exp_in_place(gcol);
        gcol.iter_mut().for_each(|o| *o = -(*o * scale));
        gcol[j] = diag;
    }
}

/// Mean of the diagonal, accumulated in `f64`.
pub fn diag_mean<T: Real>(s: &[T], n: usize) -> f64 {
    (0..n).map(|i| s[i * n + i].to_f64()).sum::<f64>() / n as f64
}

/// `v ← e^v` element-wise. For `f32` a branch-free Cody–Waite reduction with a degree-6
/// polynomial (relative error < 2·10⁻⁷, i.e. within 2 ulp of `expf`; inputs below −87 give 0,
/// above 88 give +∞) that the compiler vectorises; `f64` uses the library `exp`.
pub fn exp_in_place<T: Real>(v: &mut [T]) {
    if std::any::TypeId::of::<T>() == std::any::TypeId::of::<f32>() {
        // SAFETY: T is f32 (checked above), so the slice has f32's layout.
        let f = unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut f32, v.len()) };
        exp_f32_dispatch(f);
    } else {
        v.iter_mut().for_each(|x| *x = x.exp());
    }
}

#[inline(always)]
fn exp_f32_slice(v: &mut [f32]) {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    for x in v.iter_mut() {
        let a = x.clamp(-87.0, 88.0);
        let n = (a * LOG2E).round();
        let r = a - n * LN2_HI - n * LN2_LO;
        // e^r on |r| ≤ ln2/2 by its Taylor series to degree 6 (truncation < 1.3·10⁻⁸ relative).
        let p =
            1.0 + r * (1.0 + r * (0.5 + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0))))));
        let scale = f32::from_bits(((n as i32 + 127) as u32) << 23);
        let y = p * scale;
        *x = if *x > 88.0 {
            f32::INFINITY
        } else if *x < -87.0 {
            0.0
        } else {
            y
        };
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn exp_f32_avx2(v: &mut [f32]) {
    exp_f32_slice(v)
}

fn exp_f32_dispatch(v: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        unsafe { exp_f32_avx2(v) };
        return;
    }
    exp_f32_slice(v)
}

/// The digamma function `ψ(x) = Γ'(x)/Γ(x)` for `x > 0`: upward recurrence
/// `ψ(x) = ψ(x + 1) − 1/x` to `x ≥ 10`, then the asymptotic series
/// `ln x − 1/(2x) − Σ B₂ⱼ/(2j x²ʲ)` to `x⁻¹⁴` (truncation error below `1e-17` there).
pub fn digamma(mut x: f64) -> f64 {
    let mut acc = 0.0;
    while x < 10.0 {
        acc -= 1.0 / x;
        x += 1.0;
    }
    let z = 1.0 / (x * x);
    // B2/2, B4/4, …, B14/14.
    let series = z
        * (1.0 / 12.0
            - z * (1.0 / 120.0
                - z * (1.0 / 252.0 - z * (1.0 / 240.0 - z * (1.0 / 132.0 - z * (691.0 / 32760.0 - z / 12.0))))));
    acc + x.ln() - 0.5 / x - series
}
