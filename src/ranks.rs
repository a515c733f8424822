//! Ranks and normal scores: the one implementation of the rank-based maps the estimators use.
//!
//! A normal score replaces a value by `Φ⁻¹(p)`, with `p` the position of its rank on (0, 1).
//! Ties share the mean of their ranks (the *mid-rank*), so equal values get equal scores. The
//! position follows the plotting-position family `p = (r + 1 − a) / (n + 1 − 2a)`, with `r` the
//! 0-based mid-rank among `n` values (Harter 1984, "Another look at plotting positions"):
//!
//! - [`PlottingPosition::Weibull`], `a = 0`: `p = (r + 1)/(n + 1)`, the convention of Ince et
//!   al. 2017's `copnorm` (their rank `1…n` divided by `n + 1`). The Gaussian-copula estimator
//!   and KSG's `margins=normal` use it, so their values match the reference implementation
//!   (`tests/classical_reference_values.rs`).
//! - [`PlottingPosition::Hazen`], `a = ½`: `p = (r + ½)/n`, the midpoint of the rank's cell.
//!   The neural critics' copula map ([`crate::estimators::marginal`]) uses it: it is fitted on the
//!   training rows and applied to held-out rows by interpolating ranks, and the cell midpoints
//!   keep the extreme scores at `±Φ⁻¹(1 − 1/(2n))`, symmetric about zero.
//!
//! Both are strictly increasing in the rank, hence MI-preserving on continuous data; they differ
//! by `O(1/n)` in each score. They stay two conventions because each is pinned: changing either
//! changes the numbers of the tables that cite it.

use statrs::distribution::{ContinuousCDF, Normal};
use std::ops::Range;

/// Where a rank sits on (0, 1) (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlottingPosition {
    /// `(r + 1)/(n + 1)`.
    Weibull,
    /// `(r + ½)/n`.
    Hazen,
}

impl PlottingPosition {
    /// The position of the 0-based (mid-)rank `r` among `n` values.
    pub fn position(self, r: f64, n: f64) -> f64 {
        match self {
            PlottingPosition::Weibull => (r + 1.0) / (n + 1.0),
            PlottingPosition::Hazen => (r + 0.5) / n,
        }
    }

    /// The normal score `Φ⁻¹(position)` of the 0-based (mid-)rank `r` among `n` values.
    pub fn normal_score(self, r: f64, n: f64) -> f64 {
        Normal::standard().inverse_cdf(self.position(r, n))
    }
}

/// The runs of equal values of a sorted sequence of `n` values (`value(i)` is the `i`-th
/// smallest), each with its 0-based mid-rank: `(positions, mid-rank)`, in ascending order.
pub fn tie_runs(n: usize, value: impl Fn(usize) -> f64) -> Vec<(Range<usize>, f64)> {
    let mut runs = Vec::new();
    let mut start = 0;
    while start < n {
        let mut end = start + 1;
        while end < n && value(end) == value(start) {
            end += 1;
        }
        runs.push((start..end, (start + end - 1) as f64 / 2.0));
        start = end;
    }
    runs
}

/// The normal scores of `values` at `position` (module docs), in the values' order.
pub fn normal_scores(values: &[f64], position: PlottingPosition) -> Vec<f64> {
    let n = values.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut out = vec![0.0; n];
    for (run, rank) in tie_runs(n, |i| values[order[i]]) {
        let z = position.normal_score(rank, n as f64);
        for &i in &order[run] {
            out[i] = z;
        }
    }
    out
}

/// Each column of `m` replaced by its normal scores at Weibull positions (`Φ⁻¹(r / (N + 1))`,
/// Ince et al.'s convention): the Gaussian copula's transform.
pub fn copula_transform(m: nalgebra::DMatrixView<'_, f64>) -> nalgebra::DMatrix<f64> {
    let mut out = nalgebra::DMatrix::zeros(m.nrows(), m.ncols());
    for (j, col) in m.column_iter().enumerate() {
        let v: Vec<f64> = col.iter().copied().collect();
        out.column_mut(j).copy_from_slice(&normal_scores(&v, PlottingPosition::Weibull));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mid_ranks_share_ties() {
        let v = [1.0, 2.0, 2.0, 2.0, 5.0];
        let runs = tie_runs(v.len(), |i| v[i]);
        assert_eq!(runs, vec![(0..1, 0.0), (1..4, 2.0), (4..5, 4.0)]);
    }

    #[test]
    fn positions_are_the_documented_formulas() {
        // Weibull: rank 1 of 4 (0-based 0) → 1/5; Hazen: (0 + ½)/4 = 1/8.
        assert_eq!(PlottingPosition::Weibull.position(0.0, 4.0), 0.2);
        assert_eq!(PlottingPosition::Hazen.position(0.0, 4.0), 0.125);
        // Both symmetric: the middle rank of an odd n sits at ½.
        for p in [PlottingPosition::Weibull, PlottingPosition::Hazen] {
            assert_eq!(p.position(2.0, 5.0), 0.5);
        }
    }

    #[test]
    fn scores_are_monotone_and_tie_aware() {
        let v = [3.0, -1.0, 3.0, 10.0];
        let z = normal_scores(&v, PlottingPosition::Weibull);
        assert_eq!(z[0], z[2]);
        assert!(z[1] < z[0] && z[0] < z[3]);
        // -1 has rank 1 of 4: Φ⁻¹(1/5) = −0.841621… (scipy.stats.norm.ppf(0.2)).
        assert!((z[1] + 0.841_621_233_572_914_3).abs() < 1e-12);
    }
}
