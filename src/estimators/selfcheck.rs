//! Self-consistency checks of an estimator on the user's own data (Song & Ermon 2020,
//! "Understanding the Limitations of Variational Mutual Information Estimators", §5): three
//! properties every MI estimate should have and that need no true value.
//!
//! 1. **Additivity.** Split the rows at random into two disjoint halves `A` and `B` of `m` rows
//!    and put them side by side: `([x_A, x_B], [y_A, y_B])` holds two independent copies of the
//!    pair, so its MI is exactly `2·I(X; Y)`. The check compares the estimate on it with the
//!    estimate on `(x_A, y_A)` (the same `m` rows, one copy): the ratio should be 2.
//! 2. **Invariance.** MI is unchanged by a strictly monotone map of each coordinate. The check
//!    maps every coordinate through `v ↦ sinh(2 z)` of its standardised value `z`
//!    (heavy-tailed, far from the original scale) and compares the estimates.
//! 3. **Independence.** Shuffling the rows of `y` (seeded) destroys the pairing: the MI of the
//!    shuffled data is 0, and the estimate on it should not exceed its noise.
//!
//! Each check is one or two more estimates with the same settings. A failed check is a reason
//! not to trust the estimator on this data; a passed one is no proof that it is right.

use super::{Estimate, Estimator, side_by_side};
use crate::error::Result;
use crate::rng::{derive_seed, rng, shuffle};
use crate::train::Progress;
use nalgebra::{DMatrix, DMatrixView};
use serde::{Deserialize, Serialize};

/// The additivity ratio must lie within `2 ± ADDITIVITY_TOLERANCE` (issue #25's acceptance
/// band; a ratio of 1.6 means the estimator sees only 80 % of the second copy's information).
pub const ADDITIVITY_TOLERANCE: f64 = 0.4;
/// Below this many nats on the single copy, the additivity ratio is noise and is not judged.
pub const ADDITIVITY_MIN_NATS: f64 = 0.05;
/// An invariance or independence difference is tolerated up to this many nats, or the
/// estimate's own 95 % half-width when larger.
pub const ABSOLUTE_TOLERANCE: f64 = 0.05;

/// The outcome of [`self_check`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SelfCheck {
    /// The estimator checked.
    pub estimator: String,
    /// Its estimate on the data as given.
    pub value: f64,
    /// Rows per half of the additivity check.
    pub half_rows: usize,
    /// Estimate on one half, `(x_A, y_A)`.
    pub single: f64,
    /// Estimate on both halves side by side, `([x_A, x_B], [y_A, y_B])`.
    pub doubled: f64,
    /// `doubled / single` (NaN when `single` is below [`ADDITIVITY_MIN_NATS`]).
    pub additivity_ratio: f64,
    /// Estimate after the monotone map of every coordinate.
    pub mapped: f64,
    /// Estimate with the rows of `y` shuffled.
    pub shuffled: f64,
    /// Upper end of the shuffled estimate's interval.
    pub shuffled_high: f64,
    /// What failed, in words (empty when every check passed).
    pub failures: Vec<String>,
}

impl SelfCheck {
    /// Whether every check passed.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// Runs the three checks of the module docs on `estimator`, whose estimate on `(x, y)` is
/// `full` (computed by the caller, so it is not repeated); `doubled` is the same estimator for
/// two copies side by side (it differs only in which columns it reads as labels). Seeded: the
/// same seed gives the same halves, shuffle and estimates. `progress` is told the training
/// steps of the four estimates and can stop them ([`Estimator::estimate_with_progress`]).
pub fn self_check(
    (estimator, doubled): (&dyn Estimator, &dyn Estimator),
    full: &Estimate,
    x: DMatrixView<'_, f64>,
    y: DMatrixView<'_, f64>,
    seed: u64,
    progress: Option<&dyn Progress>,
) -> Result<SelfCheck> {
    let n = x.nrows();
    let mut rows: Vec<usize> = (0..n).collect();
    shuffle(&mut rows, &mut rng(derive_seed(seed, "selfcheck halves")));
    let m = n / 2;
    let (a, b) = (&rows[..m], &rows[m..2 * m]);
    let (xa, ya) = (x.select_rows(a), y.select_rows(a));
    let (xb, yb) = (x.select_rows(b), y.select_rows(b));
    let single = estimator.estimate_with_progress(xa.as_view(), ya.as_view(), seed, progress)?;
    let (x2, y2) = (side_by_side(xa.as_view(), xb.as_view()), side_by_side(ya.as_view(), yb.as_view()));
    let doubled = doubled.estimate_with_progress(x2.as_view(), y2.as_view(), seed, progress)?;
    let mapped =
        estimator.estimate_with_progress(monotone_map(x).as_view(), monotone_map(y).as_view(), seed, progress)?;
    let mut perm: Vec<usize> = (0..n).collect();
    shuffle(&mut perm, &mut rng(derive_seed(seed, "selfcheck shuffle")));
    let shuffled = estimator.estimate_with_progress(x, y.select_rows(&perm).as_view(), seed, progress)?;

    let mut failures = Vec::new();
    let ratio = if single.value >= ADDITIVITY_MIN_NATS { doubled.value / single.value } else { f64::NAN };
    if (ratio - 2.0).abs() > ADDITIVITY_TOLERANCE {
        failures.push(format!(
            "additivity: two independent copies side by side read {:.3} against {:.3} for one ({m} rows each), a ratio of {ratio:.2} where it must be 2 (±{ADDITIVITY_TOLERANCE})",
            doubled.value, single.value
        ));
    }
    let half_width = |e: &Estimate| ((e.interval.high - e.interval.low) / 2.0).max(0.0);
    let tolerance = ABSOLUTE_TOLERANCE.max(half_width(full)).max(half_width(&mapped));
    let moved = (mapped.value - full.value).abs();
    // A NaN (a failed estimate) fails the check too.
    if moved.is_nan() || moved > tolerance {
        failures.push(format!(
            "invariance: a monotone map of every coordinate (sinh of twice the standardised value) moved the estimate from {:.3} to {:.3}; MI does not change, so the difference ({:+.3}) is the estimator's",
            full.value,
            mapped.value,
            mapped.value - full.value
        ));
    }
    let shuffled_tolerance = ABSOLUTE_TOLERANCE.max(half_width(&shuffled));
    if shuffled.value.is_nan() || shuffled.value > shuffled_tolerance {
        failures.push(format!(
            "independence: with the rows of y shuffled (MI exactly 0) it reads {:.3}, above its noise ({shuffled_tolerance:.3})",
            shuffled.value
        ));
    }
    Ok(SelfCheck {
        estimator: estimator.name(),
        value: full.value,
        half_rows: m,
        single: single.value,
        doubled: doubled.value,
        additivity_ratio: ratio,
        mapped: mapped.value,
        shuffled: shuffled.value,
        shuffled_high: shuffled.interval.high,
        failures,
    })
}

/// Every column standardised (mean 0, sd 1; a constant column is left at 0) and mapped by
/// `z ↦ sinh(2z)`: strictly increasing, so MI is unchanged.
fn monotone_map(m: DMatrixView<'_, f64>) -> DMatrix<f64> {
    let mut out = m.clone_owned();
    let n = m.nrows() as f64;
    for mut c in out.column_iter_mut() {
        let mean = c.iter().sum::<f64>() / n;
        let sd = (c.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n).sqrt();
        let scale = if sd > 0.0 { 1.0 / sd } else { 0.0 };
        for v in c.iter_mut() {
            *v = (2.0 * (*v - mean) * scale).sinh();
        }
    }
    out
}
