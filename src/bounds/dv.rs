//! Donsker–Varadhan (DV) and MINE (Belghazi et al. 2018).

use super::{Bound, BoundKind, BoundValue, prepare};
use crate::error::{Error, Result};
use crate::numerics::{diag_mean, log_add_exp, offdiag_exp_grad, offdiag_log_mean_exp};
use crate::real::Real;
use nalgebra::DMatrix;

/// Writes `∂/∂S_ii = 1/N`, `∂/∂S_ij = −e^{S_ij − log_denominator} / (N(N−1))`, shifted by the
/// maximum off-diagonal score `m` ([`offdiag_exp_grad`]).
fn partition_grad<T: Real>(s: &[T], g: &mut [T], n: usize, m: T, log_denominator: f64) {
    let log_scale = -log_denominator - ((n * (n - 1)) as f64).ln();
    offdiag_exp_grad(s, g, n, T::of(1.0 / n as f64), m, log_scale, |_| T::zero());
}

/// Donsker–Varadhan lower bound
///
/// ```text
/// I_DV = mean_i S_ii − log mean_{i≠j} e^{S_ij}
/// ∂/∂S_ii = 1/N,   ∂/∂S_ij = −e^{S_ij} / Σ_{k≠l} e^{S_kl}
/// ```
///
/// Invariant to adding a constant to the critic, tight at `f = log p(y|x)/p(y) + c`. The
/// batch estimate of the log-partition is biased (Jensen), so in expectation over batches the
/// value is not a strict lower bound; its variance grows like `e^I`.
#[derive(Clone, Debug, Default)]
pub struct Dv;

impl Dv {
    /// A new DV bound.
    pub fn new() -> Self {
        Dv
    }
}

impl<T: Real> Bound<T> for Dv {
    fn name(&self) -> &'static str {
        "dv"
    }
    fn label(&self) -> String {
        "DV".into()
    }
    fn kind(&self) -> BoundKind {
        BoundKind::Estimate
    }
    fn evaluate(&mut self, scores: &DMatrix<T>, grad: &mut DMatrix<T>) -> Result<BoundValue> {
        let n = prepare(scores, grad)?;
        let s = scores.as_slice();
        let (lme, m) = offdiag_log_mean_exp(s, n, |v, _| v);
        let value = diag_mean(s, n) - lme;
        partition_grad(s, grad.as_mut_slice(), n, m, lme);
        Ok(BoundValue { value, objective: value })
    }
}

/// MINE (Belghazi et al. 2018): the DV value, with the gradient's partition-function
/// denominator replaced by an exponential moving average across steps to reduce the bias of
/// the mini-batch gradient:
///
/// ```text
/// m_t = (1 − r)·m_{t−1} + r·mean_{i≠j} e^{S_ij}        (m_0 = the first batch's mean)
/// value = I_DV(S)
/// objective = mean_i S_ii − mean_{i≠j} e^{S_ij} / m_t    (m_t held fixed)
/// ∂/∂S_ii = 1/N,   ∂/∂S_ij = −e^{S_ij} / (N(N−1)·m_t)
/// ```
///
/// The average is kept in log space, so it cannot overflow. Its state is explicit
/// ([`Mine::log_ema`]) and is part of a training checkpoint.
#[derive(Clone, Debug)]
pub struct Mine {
    rate: f64,
    /// `ln m_t`, `None` before the first batch.
    pub log_ema: Option<f64>,
}

impl Mine {
    /// MINE with EMA rate `r ∈ (0, 1]` (Belghazi et al. use 0.01).
    pub fn new(rate: f64) -> Result<Self> {
        if !(rate > 0.0 && rate <= 1.0) {
            return Err(Error::param("mine EMA rate", rate, "must lie in (0, 1]"));
        }
        Ok(Mine { rate, log_ema: None })
    }

    /// The EMA rate.
    pub fn rate(&self) -> f64 {
        self.rate
    }
}

impl<T: Real> Bound<T> for Mine {
    fn name(&self) -> &'static str {
        "mine"
    }
    fn label(&self) -> String {
        "MINE".into()
    }
    fn kind(&self) -> BoundKind {
        BoundKind::Estimate
    }
    fn evaluate(&mut self, scores: &DMatrix<T>, grad: &mut DMatrix<T>) -> Result<BoundValue> {
        let n = prepare(scores, grad)?;
        let s = scores.as_slice();
        let (lme, m) = offdiag_log_mean_exp(s, n, |v, _| v);
        let log_ema = match self.log_ema {
            None => lme,
            Some(prev) => log_add_exp((1.0 - self.rate).ln() + prev, self.rate.ln() + lme),
        };
        self.log_ema = Some(log_ema);
        let joint = diag_mean(s, n);
        partition_grad(s, grad.as_mut_slice(), n, m, log_ema);
        Ok(BoundValue { value: joint - lme, objective: joint - (lme - log_ema).exp() })
    }
    fn state(&self) -> Vec<f64> {
        self.log_ema.into_iter().collect()
    }
    fn restore(&mut self, state: &[f64]) -> Result<()> {
        match state {
            [] => self.log_ema = None,
            [v] => self.log_ema = Some(*v),
            _ => {
                return Err(Error::Format {
                    context: "mine state".into(),
                    msg: format!("expected ≤ 1 value, got {}", state.len()),
                });
            }
        }
        Ok(())
    }
}
