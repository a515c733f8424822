//! Self-consistency checks of an estimator on the user's own data (Song & Ermon 2020,
//! "Understanding the Limitations of Variational Mutual Information Estimators", §5): three
//! properties every MI estimate should have and that need no true value.
//!
//! 1. **Additivity.** Split the rows at random into two disjoint halves `A` and `B` of `m` rows
//!    and put them side by side: `([x_A, x_B], [y_A, y_B])` holds two independent copies of the
//!    pair, so its MI is exactly `2·I(X; Y)`. The check compares the estimate on it with the
//!    estimate on `(x_A, y_A)` (the same `m` rows, one copy): the ratio should be 2, or rather
//!    what the same estimator reads on a reference Gaussian with these rows, dimensions and MI
//!    (an estimator biased at twice the dimensions reads less than 2 there too: that is not a
//!    failure of this data), within twice its standard error from the two intervals, for the
//!    data's and the reference's, plus 0.2.
//! 2. **Invariance.** MI is unchanged by a strictly monotone map of each coordinate. The check
//!    maps every coordinate through `v ↦ sinh(2 z)` of its standardised value `z`
//!    (heavy-tailed, far from the original scale) and compares the estimates.
//! 3. **Independence.** Shuffling the rows of `y` (seeded) destroys the pairing: the MI of the
//!    shuffled data is 0, and the estimate on it should not exceed its noise.
//!
//! Each check is one or two more estimates with the same settings. A failed check is a reason
//! not to trust the estimator on this data; a passed one is no proof that it is right.

use super::reference::gaussian_like;
use super::{Estimate, Estimator, side_by_side};
use crate::error::Result;
use crate::rng::{derive_seed, rng, shuffle};
use crate::train::Progress;
use nalgebra::{DMatrix, DMatrixView};
use serde::{Deserialize, Serialize};

/// Twice the slack of the additivity ratio around the reference's ratio, before the ratios'
/// standard errors are added (module docs).
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
    /// What the same estimator reads for the ratio on a reference Gaussian with these rows,
    /// dimensions and MI (2 where there is none: labels, or too little MI to judge).
    pub reference_ratio: f64,
    /// How far `additivity_ratio` may lie from `reference_ratio` (module docs).
    pub ratio_allowed: f64,
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
/// steps of the six estimates (four on the data, two on the additivity reference) and can stop them ([`Estimator::estimate_with_progress`]).
pub fn self_check(
    (estimator, doubled_estimator): (&dyn Estimator, &dyn Estimator),
    full: &Estimate,
    labels_free: bool,
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
    let doubled = doubled_estimator.estimate_with_progress(x2.as_view(), y2.as_view(), seed, progress)?;
    let mapped =
        estimator.estimate_with_progress(monotone_map(x).as_view(), monotone_map(y).as_view(), seed, progress)?;
    let mut perm: Vec<usize> = (0..n).collect();
    shuffle(&mut perm, &mut rng(derive_seed(seed, "selfcheck shuffle")));
    let shuffled = estimator.estimate_with_progress(x, y.select_rows(&perm).as_view(), seed, progress)?;

    let mut failures = Vec::new();
    let ratio = if single.value >= ADDITIVITY_MIN_NATS { doubled.value / single.value } else { f64::NAN };
    let half_width = |e: &Estimate| ((e.interval.high - e.interval.low) / 2.0).max(0.0);
    let expected = if ratio.is_nan() || !labels_free {
        2.0
    } else {
        reference_ratio((estimator, doubled_estimator), (x.ncols(), y.ncols(), m), single.value, seed, progress)?
    };
    // The ratio's standard error from the two estimates' intervals (delta method), and as
    // much again for the reference's own.
    let sd = |e: &Estimate| half_width(e) / 1.96 / e.value.abs().max(1e-12);
    let ratio_sd = ratio.abs() * (sd(&single).powi(2) + sd(&doubled).powi(2)).sqrt();
    let allowed = ADDITIVITY_TOLERANCE / 2.0 + 2.0 * std::f64::consts::SQRT_2 * ratio_sd;
    if ratio.is_nan() && single.value >= ADDITIVITY_MIN_NATS || (ratio - expected).abs() > allowed {
        failures.push(format!(
            "additivity: two independent copies side by side read {:.3} against {:.3} for one ({m} rows each), a ratio of {ratio:.2} where the same estimator reads {expected:.2} on a Gaussian with these rows, dimensions and MI (±{allowed:.2})",
            doubled.value, single.value
        ));
    }
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
    // Twice the half-width: about four standard errors, so noise alone fails it rarely even at
    // a few dozen rows.
    let shuffled_tolerance = ABSOLUTE_TOLERANCE.max(2.0 * half_width(&shuffled));
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
        reference_ratio: expected,
        ratio_allowed: allowed,
        mapped: mapped.value,
        shuffled: shuffled.value,
        shuffled_high: shuffled.interval.high,
        failures,
    })
}

/// The additivity ratio `estimator` reads on a reference Gaussian ([`super::reference`]) of
/// `m` rows with `dx`, `dy` columns and MI `mi`, one copy against two side by side (the second
/// copy an independent draw): what a ratio on data with this shape should be, the estimator's
/// own bias included.
fn reference_ratio(
    (estimator, doubled): (&dyn Estimator, &dyn Estimator),
    (dx, dy, m): (usize, usize, usize),
    mi: f64,
    seed: u64,
    progress: Option<&dyn Progress>,
) -> Result<f64> {
    let mut g = rng(derive_seed(seed, "selfcheck reference"));
    let (xa, ya) = gaussian_like(dx, dy, m, mi, &mut g);
    let (xb, yb) = gaussian_like(dx, dy, m, mi, &mut g);
    let single = estimator.estimate_with_progress(xa.as_view(), ya.as_view(), seed, progress)?.value;
    let (x2, y2) = (side_by_side(xa.as_view(), xb.as_view()), side_by_side(ya.as_view(), yb.as_view()));
    let two = doubled.estimate_with_progress(x2.as_view(), y2.as_view(), seed, progress)?.value;
    Ok(if single >= ADDITIVITY_MIN_NATS { two / single } else { 2.0 })
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
