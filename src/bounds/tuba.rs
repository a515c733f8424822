//! TUBA and NWJ (Nguyen, Wainwright & Jordan 2010; Poole et al. 2019).

use super::{Bound, BoundKind, BoundValue, LogBaseline, prepare};
use crate::error::Result;
use crate::numerics::{offdiag_exp_grad, offdiag_log_mean_exp};
use crate::real::Real;
use nalgebra::DMatrix;

/// Evaluates `1 + mean_i (S_ii − a_i) − mean_{i≠j} e^{S_ij − a_j}` and its gradient, with
/// `a_j = ln a(y_j)` the log-baseline of column `j`.
pub(crate) fn tuba_eval<T: Real>(
    scores: &DMatrix<T>,
    grad: &mut DMatrix<T>,
    log_a: impl Fn(usize) -> T,
) -> Result<BoundValue> {
    let n = prepare(scores, grad)?;
    let s = scores.as_slice();
    let (lme, m) = offdiag_log_mean_exp(s, n, |v, j| v - log_a(j));
    let joint = (0..n).map(|i| (s[i * n + i] - log_a(i)).to_f64()).sum::<f64>() / n as f64;
    let value = 1.0 + joint - lme.exp();
    // ∂/∂S_ii = 1/N; ∂/∂S_ij = −e^{S_ij − a_j} / (N(N−1)), shifted by the maximum exponent m.
    let log_scale = -((n * (n - 1)) as f64).ln();
    offdiag_exp_grad(s, grad.as_mut_slice(), n, T::of(1.0 / n as f64), m, log_scale, log_a);
    Ok(BoundValue { value, objective: value })
}

/// TUBA, the tractable unnormalised Barber–Agakov bound with a log-baseline `a(y)`
/// (Poole et al. 2019, eq. 7):
///
/// ```text
/// I_TUBA = 1 + E_p[f(x,y) − a(y)] − E_{p(x)p(y)}[e^{f(x,y) − a(y)}]
///        = 1 + mean_i (S_ii − a_i) − mean_{i≠j} e^{S_ij − a_j}
/// ∂/∂S_ii = 1/N,   ∂/∂S_ij = −e^{S_ij − a_j} / (N(N−1))   (i ≠ j)
/// ```
///
/// Unbiased for its expectation, tight when `f = a(y) + log p(y|x)/p(y)`; high variance when
/// `I` is large because of the exponential term.
///
/// `∂/∂a_j = −Σ_i ∂/∂S_ij` (the value depends on column `j` only through `S_ij − a_j`), exposed
/// by [`Bound::log_baseline_grad`] for a learned baseline.
#[derive(Clone, Debug)]
pub struct Tuba<T: Real = f32> {
    /// `ln a(y_j)`; set a per-sample baseline before each evaluation.
    pub log_baseline: LogBaseline<T>,
    baseline_grad: Vec<T>,
}

impl<T: Real> Tuba<T> {
    /// TUBA with the given log-baseline.
    pub fn new(log_baseline: LogBaseline<T>) -> Self {
        Tuba { log_baseline, baseline_grad: Vec::new() }
    }
}

impl<T: Real> Bound<T> for Tuba<T> {
    fn name(&self) -> &'static str {
        "tuba"
    }
    fn label(&self) -> String {
        "TUBA".into()
    }
    fn kind(&self) -> BoundKind {
        BoundKind::Lower
    }
    fn evaluate(&mut self, scores: &DMatrix<T>, grad: &mut DMatrix<T>) -> Result<BoundValue> {
        self.log_baseline.check(scores.ncols())?;
        let b = &self.log_baseline;
        let v = tuba_eval(scores, grad, |j| b.at(j))?;
        let n = scores.nrows();
        self.baseline_grad.clear();
        self.baseline_grad
            .extend(grad.as_slice().chunks_exact(n).map(|col| T::of(-col.iter().map(|g| g.to_f64()).sum::<f64>())));
        Ok(v)
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

/// NWJ (Nguyen, Wainwright & Jordan 2010), also called f-GAN KL or MINE-f: TUBA with the
/// constant baseline `a(y) = e`:
///
/// ```text
/// I_NWJ = 1 + mean_i (S_ii − 1) − mean_{i≠j} e^{S_ij − 1} = E_p[f] − e^{−1} E_q[e^f]
/// ```
///
/// Tight and unbiased at `f* = 1 + log p(y|x)/p(y)`.
#[derive(Clone, Debug, Default)]
pub struct Nwj;

impl Nwj {
    /// A new NWJ bound.
    pub fn new() -> Self {
        Nwj
    }
}

impl<T: Real> Bound<T> for Nwj {
    fn name(&self) -> &'static str {
        "nwj"
    }
    fn label(&self) -> String {
        "NWJ".into()
    }
    fn kind(&self) -> BoundKind {
        BoundKind::Lower
    }
    fn evaluate(&mut self, scores: &DMatrix<T>, grad: &mut DMatrix<T>) -> Result<BoundValue> {
        tuba_eval(scores, grad, |_| T::one())
    }
}
