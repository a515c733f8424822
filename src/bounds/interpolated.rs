//! The interpolated bound I_α of Poole et al. 2019 (section 2.4).

use super::{Bound, BoundKind, BoundValue, LogBaseline, prepare};
use crate::error::{Error, Result};
use crate::numerics::{log_add_exp, log_sum_exp};
use crate::real::Real;
use nalgebra::DMatrix;

/// The interpolated lower bound I_α (Poole et al. 2019, eq. 12): TUBA whose baseline mixes the
/// leave-one-out InfoNCE partition estimate with a log-baseline `a(y)`:
///
/// ```text
/// m_k(y_i)  = (1/(N−1)) Σ_{l≠k} e^{S_li}                     (column i without row k)
/// B_ki      = log( α·m_k(y_i) + (1 − α)·e^{a(y_i)} )
/// I_α       = 1 + mean_{i, k≠i} (S_ii − B_ki) − mean_{i, k≠i} e^{S_ki − B_ii}
/// ```
///
/// `α = 0` is TUBA with baseline `a`; `α = 1` is a leave-one-out InfoNCE (normalised over the
/// `x` candidates of each `y`). Intermediate α trades InfoNCE's low variance against TUBA's low
/// bias: for every critic and baseline `I_α ≤ 1 + log((N−1)/α)` per batch (the positive term is
/// at most `log((N−1)/α)`, the partition term at most 1), rather than InfoNCE's `log N`.
///
/// The gradient is exact (derived by hand, checked by finite differences); leave-one-out sums
/// that would cancel catastrophically (the column maximum left out) are summed directly. The
/// gradient with respect to the log-baseline, for a learned baseline
/// ([`Bound::log_baseline_grad`]), with `c = 1/(N(N−1))`:
///
/// ```text
/// ∂I_α/∂a_i = c(1 − α) e^{a_i} [ e^{−2B_ii} Σ_{k≠i} e^{S_ki} − Σ_{k≠i} e^{−B_ki} ]
/// ```
#[derive(Clone, Debug)]
pub struct Interpolated<T: Real = f32> {
    alpha: f64,
    /// `ln a(y_j)`; set a per-sample baseline before each evaluation.
    pub log_baseline: LogBaseline<T>,
    v: Vec<f64>,
    b: Vec<f64>,
    ln_u: Vec<f64>,
    baseline_grad: Vec<T>,
}

impl<T: Real> Interpolated<T> {
    /// I_α with α ∈ [0, 1] and the given log-baseline.
    pub fn new(alpha: f64, log_baseline: LogBaseline<T>) -> Result<Self> {
        if !(0.0..=1.0).contains(&alpha) {
            return Err(Error::param("interpolated alpha", alpha, "must lie in [0, 1]"));
        }
        Ok(Interpolated {
            alpha,
            log_baseline,
            v: Vec::new(),
            b: Vec::new(),
            ln_u: Vec::new(),
            baseline_grad: Vec::new(),
        })
    }

    /// α.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
}

impl<T: Real> Bound<T> for Interpolated<T> {
    fn name(&self) -> &'static str {
        "interpolated"
    }
    fn label(&self) -> String {
        format!("I_α(α={})", self.alpha)
    }
    fn kind(&self) -> BoundKind {
        BoundKind::Lower
    }

    fn evaluate(&mut self, scores: &DMatrix<T>, grad: &mut DMatrix<T>) -> Result<BoundValue> {
        let n = prepare(scores, grad)?;
        self.log_baseline.check(n)?;
        let (alpha, nm1) = (self.alpha, (n - 1) as f64);
        let c = 1.0 / (n as f64 * nm1);
        let (ln_alpha, ln_1m_alpha) = (alpha.ln(), (1.0 - alpha).ln());
        let (ln_nm1, ln_c) = (nm1.ln(), c.ln());
        self.v.resize(n, 0.0);
        self.b.resize(n, 0.0);
        self.ln_u.resize(n, 0.0);
        self.baseline_grad.resize(n, T::zero());
        let (mut joint, mut marg) = (0.0f64, 0.0f64);
        let s = scores.as_slice();
        let g = grad.as_mut_slice();
        for (i, (scol, gcol)) in s.chunks_exact(n).zip(g.chunks_exact_mut(n)).enumerate() {
            let a = self.log_baseline.at(i).to_f64();
            let v = &mut self.v;
            for (vk, sk) in v.iter_mut().zip(scol) {
                *vk = sk.to_f64();
            }
            // Leave-one-out log-sums ln U_k = ln Σ_{l≠k} e^{v_l}: subtract from the total, except
            // for the maximum, whose complement is summed directly (no cancellation).
            let k1 = (0..n).fold(0, |best, k| if v[k] > v[best] { k } else { best });
            let m1 = v[k1];
            let total: f64 = v.iter().map(|x| (x - m1).exp()).sum();
            for k in 0..n {
                self.ln_u[k] = if k == k1 {
                    log_sum_exp((0..n).filter(|&l| l != k1).map(|l| v[l]))
                } else {
                    m1 + (total - (v[k] - m1).exp()).ln()
                };
                self.b[k] = log_add_exp(ln_alpha + self.ln_u[k] - ln_nm1, ln_1m_alpha + a);
            }
            let b = &self.b;
            let vi = v[i];
            joint += (0..n).filter(|&k| k != i).map(|k| vi - b[k]).sum::<f64>();
            marg += (self.ln_u[i] - b[i]).exp();
            // ∂/∂a_i through both terms' baselines (see the type's docs).
            // ln W_k = ln Σ_{j≠i, j≠k} e^{−B_j}; the largest term's complement is summed directly.
            let ln_w = log_sum_exp((0..n).filter(|&j| j != i).map(|j| -b[j]));
            self.baseline_grad[i] =
                T::of(c * (1.0 - alpha) * ((a + self.ln_u[i] - 2.0 * b[i]).exp() - (a + ln_w).exp()));
            let jmax = (0..n)
                .filter(|&j| j != i)
                .fold(usize::MAX, |best, j| if best == usize::MAX || b[j] < b[best] { j } else { best });
            for k in 0..n {
                let ln_w_excl = if k == i {
                    ln_w
                } else if k == jmax {
                    log_sum_exp((0..n).filter(|&j| j != i && j != k).map(|j| -b[j]))
                } else {
                    ln_w + (-(-b[k] - ln_w).exp()).ln_1p()
                };
                // −c·α/(N−1)·e^{v_k}·W_k, through the joint term's baselines.
                let mut d = -(ln_c + ln_alpha - ln_nm1 + v[k] + ln_w_excl).exp();
                if k == i {
                    d += 1.0 / n as f64;
                } else {
                    // −c(1−α)e^{a}e^{v_k}/D_i², through the marginal term's baseline.
                    d -= (ln_c + ln_1m_alpha + a + v[k] - 2.0 * b[i]).exp();
                }
                gcol[k] = T::of(d);
            }
        }
        let value = 1.0 + c * joint - c * marg;
        Ok(BoundValue { value, objective: value })
    }
    fn takes_log_baseline(&self) -> bool {
        true
    }
    fn set_log_baseline(&mut self, log_a: &[T]) -> Result<()> {
        self.log_baseline.set_per_sample(log_a)
    }
    fn log_baseline_grad(&self) -> &[T] {
        &self.baseline_grad
    }
}
