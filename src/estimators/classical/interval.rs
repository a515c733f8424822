//! Intervals for the classical estimators: subsampling without replacement (half-samples).
//!
//! A naive bootstrap is wrong for nearest-neighbour estimators: resampling with replacement
//! puts duplicate points at distance 0, which KSG and Kozachenko–Leonenko read as infinitely
//! dense regions, so the bootstrap distribution is shifted and too narrow. Subsampling without
//! replacement (Politis & Romano 1994; Politis, Romano & Wolf, *Subsampling*, 1999) keeps every
//! point distinct.
//!
//! The scheme, for an estimate `θ̂` from `n` rows:
//!
//! 1. draw `B` subsets of `m = min(⌊n/2⌋, M)` rows without replacement (seeded; `M =`
//!    [`MAX_SUBSAMPLE_ROWS`]) and compute `θ̂_b`. Subsampling asks for `m → ∞` and `m/n → 0`
//!    (Politis, Romano & Wolf 1999, ch. 2): half-samples serve small `n`, and the cap keeps the
//!    interval's cost bounded for large `n` (100 half-samples of 10⁵ rows cost 50 full estimates;
//!    100 subsets of 1000 rows cost about one);
//! 2. rescale the deviations, `δ_b = √(m/(n−m)) · (θ̂_b − θ̂)`: for an asymptotically linear
//!    estimator, `Var(θ̂_m | data) ≈ σ²(n−m)/(m n)` for sampling without replacement while
//!    `Var(θ̂) ≈ σ²/n`, so the factor makes the spread of `δ_b` that of `θ̂` (it is 1 for even
//!    `n`);
//! 3. centre them, `c_b = δ_b − mean(δ)`: the mean shift between `m` and `n` rows is the change
//!    of the estimator's bias with sample size (large for KSG in high dimension), which an
//!    interval for the sampling variability must not absorb. It is reported as the diagnostic
//!    `subsample_shift`;
//! 4. the interval is `[θ̂ − q₀.₉₇₅(c), θ̂ − q₀.₀₂₅(c)]` with linearly interpolated quantiles.
//!
//! The interval describes the estimator's sampling variability at this `n`; it does not cover a
//! systematic bias (KSG in high dimension, the binned estimate's plug-in bias).

use super::super::{Interval, Warning, WarningCode};
use crate::error::Result;
use crate::rng::Stream;
use nalgebra::DMatrixView;
use rand::RngExt;
use rayon::prelude::*;

/// Default number of subsamples for an interval.
pub const DEFAULT_SUBSAMPLES: usize = 100;

/// The largest subsample `m` (module docs, step 1).
pub const MAX_SUBSAMPLE_ROWS: usize = 1000;

/// An estimator as a function of the rows of `x` and `y`.
pub type EstimateFn<'a> = dyn Fn(DMatrixView<'_, f64>, DMatrixView<'_, f64>) -> Result<f64> + Sync + 'a;

/// The result of [`subsampling_interval`].
#[derive(Clone, Debug)]
pub struct Subsampled {
    /// The 95 % interval (degenerate, `[θ̂, θ̂]`, when no subsampling was possible).
    pub interval: Interval,
    /// The subsample estimates `θ̂_b`.
    pub values: Vec<f64>,
    /// Standard deviation of the rescaled deviations `δ_b` (estimates the standard error of `θ̂`).
    pub sd: f64,
    /// `mean(δ_b)`: how much the estimate moves from `n` to `m` rows, rescaled.
    pub shift: f64,
    /// Why there is no interval, when there is none.
    pub warning: Option<Warning>,
}

/// The interval of the module docs for `value = estimate(x, y)`, from `subsamples` half-samples
/// drawn with `seed`. With `subsamples = 0`, or when half of the rows is fewer than `min_rows`,
/// the interval is `[value, value]`, its method says why, and `warning` is set.
pub fn subsampling_interval(
    x: DMatrixView<'_, f64>,
    y: DMatrixView<'_, f64>,
    value: f64,
    subsamples: usize,
    min_rows: usize,
    seed: u64,
    estimate: &EstimateFn<'_>,
) -> Result<Subsampled> {
    let n = x.nrows();
    let m = (n / 2).min(MAX_SUBSAMPLE_ROWS);
    let none = |why: String| Subsampled {
        interval: Interval::new(value, value, format!("none ({why})")),
        values: Vec::new(),
        sd: f64::NAN,
        shift: f64::NAN,
        warning: Some(Warning::new(WarningCode::NoInterval, format!("no interval: {why}"))),
    };
    if subsamples < 2 {
        return Ok(none(format!("{subsamples} subsamples requested")));
    }
    if m < min_rows.max(2) {
        return Ok(none(format!("half of the {n} rows is fewer than the {} this estimator needs", min_rows.max(2))));
    }
    let mut g = Stream::Subsamples.rng(seed);
    let mut order: Vec<usize> = (0..n).collect();
    // The subsets are drawn in order from the seeded generator, then estimated in parallel.
    let subsets: Vec<Vec<usize>> = (0..subsamples)
        .map(|_| {
            // Partial Fisher–Yates: the first m entries are a uniform m-subset.
            for i in 0..m {
                let j = g.random_range(i..n);
                order.swap(i, j);
            }
            let mut idx = order[..m].to_vec();
            idx.sort_unstable();
            idx
        })
        .collect();
    let results: Vec<Result<f64>> = subsets
        .par_iter()
        .map(|idx| {
            let (xs, ys) = (x.select_rows(idx), y.select_rows(idx));
            estimate(xs.as_view(), ys.as_view())
        })
        .collect();
    let (values, warning) = succeeded(results)?;
    // At the fewest rows an estimator takes (KSG with k + 1 rows) every half-sample can read
    // the same value whatever the data: a zero-width interval would claim a certainty the rows
    // cannot give.
    if values.iter().all(|v| v.to_bits() == values[0].to_bits()) {
        return Ok(none(format!("every one of the {} half-samples of {m} rows read the same value", values.len())));
    }
    let scale = (m as f64 / (n - m) as f64).sqrt();
    let dev: Vec<f64> = values.iter().map(|v| scale * (v - value)).collect();
    let b = dev.len() as f64;
    let shift = dev.iter().sum::<f64>() / b;
    let mut centred: Vec<f64> = dev.iter().map(|d| d - shift).collect();
    let sd = (centred.iter().map(|c| c * c).sum::<f64>() / (b - 1.0)).sqrt();
    centred.sort_by(f64::total_cmp);
    let interval = Interval::new(
        value - quantile(&centred, 0.975),
        value - quantile(&centred, 0.025),
        format!(
            "subsampling: {} subsets of m = {m} of n = {n} rows without replacement, \
             deviations × √(m/(n−m)), centred, percentile",
            values.len()
        ),
    );
    Ok(Subsampled { interval, values, sd, shift, warning })
}

/// The half-samples' estimates that succeeded. A half-sample can fail where the whole data
/// does not (a rare category or pixel is constant, or two are collinear, in those rows): the
/// interval rests on the others, with a warning, as long as at least half of them (and two)
/// succeed; otherwise the first error.
fn succeeded(results: Vec<Result<f64>>) -> Result<(Vec<f64>, Option<Warning>)> {
    let (total, failed) = (results.len(), results.iter().filter(|r| r.is_err()).count());
    if failed == 0 {
        return Ok((results.into_iter().filter_map(Result::ok).collect(), None));
    }
    if 2 * failed > total || total - failed < 2 {
        return Err(results.into_iter().find_map(Result::err).expect("a failed subsample"));
    }
    let first = results.iter().find_map(|r| r.as_ref().err()).expect("a failed subsample").to_string();
    let warning = Warning::new(
        WarningCode::SubsamplesFailed,
        format!(
            "{failed} of {total} half-samples of the interval could not be estimated (the first: {first}); \
             the interval rests on the other {}",
            total - failed
        ),
    );
    Ok((results.into_iter().filter_map(Result::ok).collect(), Some(warning)))
}

/// The `p`-quantile of sorted values, linearly interpolated (type 7).
pub(crate) fn quantile(sorted: &[f64], p: f64) -> f64 {
    let h = (sorted.len() - 1) as f64 * p;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}
