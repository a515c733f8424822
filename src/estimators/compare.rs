//! Several estimators on one data set, with the diagnostics that need all of them.

use super::neural::{TraceRow, estimate_bounds};
use super::significance::{PermutationTest, dependence_test};
use super::{Estimate, EstimatorSpec, Kind, Settings};
use crate::error::{Error, Result};
use nalgebra::DMatrixView;
use serde::{Deserialize, Serialize};

/// The estimates of [`compare`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Comparison {
    /// Rows used.
    pub n_samples: usize,
    /// Dimension of x.
    pub dim_x: usize,
    /// Dimension of y.
    pub dim_y: usize,
    /// One estimate per requested estimator, in the order requested.
    pub estimates: Vec<Estimate>,
    /// Whether the permutation test of independence rejects at the 5 % level (dependence
    /// detected).
    pub significant: bool,
    /// The permutation test of independence behind `significant`.
    pub dependence_test: Option<PermutationTest>,
    /// Diagnostics that concern several estimates (bounds crossing).
    pub warnings: Vec<String>,
    /// Per-step training values and validation checks of the neural estimators, for traces
    /// and plots.
    #[serde(skip)]
    pub trace: Vec<TraceRow>,
}

impl Comparison {
    /// The headline estimate: the first lower bound, else the first estimate.
    pub fn headline(&self) -> Option<&Estimate> {
        self.estimates.iter().find(|e| e.kind == Kind::Lower).or(self.estimates.first())
    }
}

/// Runs every estimator of `specs` on `x`, `y` with `seed`. Neural bounds that share a training
/// objective share their critics (with the same numbers as alone). `progress`, when given, is
/// called with counts of training steps as they are taken.
pub fn compare(
    specs: &[EstimatorSpec],
    settings: &Settings,
    x: DMatrixView<'_, f64>,
    y: DMatrixView<'_, f64>,
    seed: u64,
    progress: Option<&(dyn Fn(u64) + Sync)>,
) -> Result<Comparison> {
    if specs.is_empty() {
        return Err(Error::param("estimators", "(none)", "ask for at least one"));
    }
    let bounds: Vec<_> = specs.iter().filter_map(|s| s.bound()).collect();
    let (mut from_neural, trace) = if bounds.is_empty() {
        (Vec::new().into_iter(), Vec::new())
    } else {
        let run = estimate_bounds(&bounds, &settings.neural, x, y, seed, progress)?;
        (run.estimates.into_iter(), run.trace)
    };
    let mut estimates = Vec::with_capacity(specs.len());
    for s in specs {
        estimates.push(match s.bound() {
            Some(_) => from_neural.next().expect("one neural estimate per bound"),
            None => s.build(settings)?.estimate(x, y, seed)?,
        });
    }
    let mut warnings = Vec::new();
    let headline = estimates.iter().find(|e| e.kind == Kind::Lower);
    // Upper bounds already flagged on their own (below 0 or below the headline lower bound).
    let mut flagged = Vec::new();
    for up in estimates.iter().filter(|e| e.kind == Kind::UpperIfExact) {
        if up.value < 0.0 {
            warnings.push(format!(
                "{} ({:.3}) is below 0, which no upper bound on MI can be: its conditional model q(y|x) is too poor here — ignore it",
                up.label, up.value
            ));
            flagged.push(up.estimator.clone());
        } else if let Some(lo) = headline.filter(|lo| up.value < lo.value) {
            warnings.push(format!(
                "{} ({:.3}) lies below the lower bound {} ({:.3}): it is not an upper bound on this data (its conditional model q(y|x) is too poor) — trust the lower bound, not it",
                up.label, up.value, lo.label, lo.value
            ));
            flagged.push(up.estimator.clone());
        }
    }
    // The classical cross-check: the headline and KSG (or, without KSG, the copula estimate)
    // should not disagree by more than their intervals allow.
    let check = estimates
        .iter()
        .find(|e| e.estimator.starts_with("ksg"))
        .or_else(|| estimates.iter().find(|e| e.estimator == "copula"));
    if let (Some(h), Some(c)) = (headline, check)
        && (h.interval.high < c.interval.low || c.interval.high < h.interval.low)
    {
        let hint = if h.value < c.value {
            format!("{} is a lower bound (and capped at log N); the data may hold more than it shows", h.label)
        } else if c.estimator.starts_with("ksg") && x.ncols() + y.ncols() > 10 {
            format!("KSG underestimates in high dimension ({} + {} here)", x.ncols(), y.ncols())
        } else if c.estimator == "copula" {
            "the copula estimate sees only Gaussian-copula (monotone) dependence".to_string()
        } else {
            "one of them is biased here; compare more estimators".to_string()
        };
        warnings.push(format!(
            "cross-check: {} ({:.3} [{:.3}, {:.3}]) and {} ({:.3} [{:.3}, {:.3}]) disagree by more than their intervals allow; {hint}",
            h.label, h.value, h.interval.low, h.interval.high, c.label, c.value, c.interval.low, c.interval.high
        ));
    }
    // No estimate from n rows can resolve more than about log n nats of spread.
    let ln_n = (x.nrows() as f64).ln();
    for e in &estimates {
        let width = e.interval.high - e.interval.low;
        // A NaN width (a non-finite estimate) is flagged too.
        if width > ln_n || width.is_nan() {
            warnings.push(format!(
                "{}: the 95 % interval [{:.3}, {:.3}] is wider than log n = {ln_n:.2} nats, more than {} rows can support; the estimate is not informative",
                e.label,
                e.interval.low,
                e.interval.high,
                x.nrows()
            ));
        }
    }
    for lo in estimates.iter().filter(|e| e.kind == Kind::Lower) {
        for up in estimates.iter().filter(|e| e.kind == Kind::UpperIfExact && !flagged.contains(&e.estimator)) {
            if lo.interval.low > up.interval.high {
                warnings.push(format!(
                    "bounds cross: the lower bound {} ({:.3}) lies above the upper bound {} ({:.3}); the conditional model q(y|x) is probably too poor — trust neither",
                    lo.label, lo.value, up.label, up.value
                ));
            }
        }
    }
    let test = dependence_test(x, y, seed)?;
    let significant = test.significant(0.05);
    Ok(Comparison {
        n_samples: x.nrows(),
        dim_x: x.ncols(),
        dim_y: y.ncols(),
        estimates,
        significant,
        dependence_test: Some(test),
        warnings,
        trace,
    })
}
