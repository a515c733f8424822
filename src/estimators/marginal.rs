//! Maps applied to each coordinate before a neural critic sees the data.
//!
//! Mutual information is invariant under any invertible map of each coordinate, so the
//! estimators may choose the map that makes the critic's job easiest. Heavy tails (Student-t,
//! `y³`) and odd marginals (uniform, bimodal, discrete) produce held-out rows whose scores the
//! critic never saw the like of; the default map removes them:
//!
//! - `copula` (default): each coordinate through its empirical CDF (ranks, fitted on the
//!   training rows only, with mid-ranks for ties and linear interpolation between training
//!   values) and the standard normal quantile function, `z = Φ⁻¹((r + ½)/n)` (the Hazen
//!   positions of [`crate::ranks`]). Held-out values beyond the training range are clamped to
//!   the extreme ranks, so every transformed value lies within `±Φ⁻¹(1 − 1/(2n))` (±3.7 for
//!   n = 4000). Strictly monotone, hence MI-preserving on continuous data.
//! - `standardize`: `(v − mean)/sd` with the training rows' mean and sd.
//! - `none`: the data as given.

use crate::error::{Error, Result};
use crate::ranks::{PlottingPosition, tie_runs};
use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

/// Which map each coordinate goes through (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MarginalTransform {
    /// The data as given.
    None,
    /// Training mean and sd.
    Standardize,
    /// Ranks → normal scores, fitted on the training rows.
    #[default]
    Copula,
}

impl std::str::FromStr for MarginalTransform {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "none" => Ok(MarginalTransform::None),
            "standardize" | "standardise" => Ok(MarginalTransform::Standardize),
            "copula" => Ok(MarginalTransform::Copula),
            other => Err(Error::Unknown {
                kind: "marginal transform",
                name: other.into(),
                known: "none, standardize, copula".into(),
            }),
        }
    }
}

impl std::fmt::Display for MarginalTransform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            MarginalTransform::None => "none",
            MarginalTransform::Standardize => "standardize",
            MarginalTransform::Copula => "copula",
        })
    }
}

/// One fitted column map.
#[derive(Clone, Debug)]
enum ColumnMap {
    Identity,
    Affine {
        mean: f64,
        sd: f64,
    },
    /// Sorted training values with their mid-ranks (ties share one), and n.
    Ranks {
        values: Vec<f64>,
        ranks: Vec<f64>,
        n: f64,
    },
    /// A class label: one indicator column per level seen on the training rows (sorted); a
    /// level the training rows never had maps to all zeros.
    OneHot {
        levels: Vec<f64>,
    },
}

impl ColumnMap {
    /// Columns this map writes.
    fn width(&self) -> usize {
        match self {
            ColumnMap::OneHot { levels } => levels.len(),
            _ => 1,
        }
    }
}

/// A [`MarginalTransform`] fitted on training rows, to apply to any rows.
#[derive(Clone, Debug)]
pub struct FittedTransform {
    cols: Vec<ColumnMap>,
}

impl MarginalTransform {
    /// Fits the map of every column of `m` on the rows `rows`. `what` names the matrix in errors
    /// (`"x"`): a column constant on the training rows cannot be standardised.
    pub fn fit(self, m: &DMatrix<f64>, rows: &[usize], what: &str) -> Result<FittedTransform> {
        self.fit_with_labels(m, rows, what, &[])
    }

    /// [`MarginalTransform::fit`], with the columns `labels` read as class labels: each becomes
    /// one indicator column per level of its training rows (one-hot), so a critic's first layer
    /// holds one learned vector per level — an embedding — and the codes' order and spacing
    /// mean nothing.
    pub fn fit_with_labels(
        self,
        m: &DMatrix<f64>,
        rows: &[usize],
        what: &str,
        labels: &[usize],
    ) -> Result<FittedTransform> {
        if rows.is_empty() {
            return Err(Error::param("training rows", 0, "cannot fit a marginal transform on no rows"));
        }
        let cols = (0..m.ncols())
            .map(|j| {
                let mut v: Vec<f64> = rows.iter().map(|&i| m[(i, j)]).collect();
                if labels.contains(&j) {
                    // +0.0 and −0.0 are one label (as `data::kinds::codes` reads them).
                    v.iter_mut().for_each(|a| *a += 0.0);
                    v.sort_by(f64::total_cmp);
                    v.dedup();
                    return Ok(ColumnMap::OneHot { levels: v });
                }
                match self {
                    MarginalTransform::None => Ok(ColumnMap::Identity),
                    MarginalTransform::Standardize => {
                        let n = v.len() as f64;
                        let mean = v.iter().sum::<f64>() / n;
                        let sd = (v.iter().map(|a| (a - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0)).sqrt();
                        if sd > 0.0 && sd.is_finite() {
                            Ok(ColumnMap::Affine { mean, sd })
                        } else {
                            Err(Error::param(
                                &format!("{what} column {j}"),
                                "constant",
                                "zero variance on the training rows: drop it",
                            ))
                        }
                    }
                    MarginalTransform::Copula => Ok(ranks(v)),
                }
            })
            .collect::<Result<_>>()?;
        Ok(FittedTransform { cols })
    }
}

/// Sorted distinct values and their mid-ranks (0-based average rank of each tie group).
fn ranks(mut v: Vec<f64>) -> ColumnMap {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let (values, r) = tie_runs(n, |i| v[i]).into_iter().map(|(run, rank)| (v[run.start], rank)).unzip();
    ColumnMap::Ranks { values, ranks: r, n: n as f64 }
}

impl FittedTransform {
    /// The transformed copy of `m` (the fit's columns; a label column becomes its indicator
    /// columns, in place).
    pub fn apply(&self, m: &DMatrix<f64>) -> DMatrix<f64> {
        let width = self.cols.iter().map(ColumnMap::width).sum();
        let mut out = DMatrix::zeros(m.nrows(), width);
        let mut at = 0;
        for (j, map) in self.cols.iter().enumerate() {
            if let ColumnMap::OneHot { levels } = map {
                for (i, v) in m.column(j).iter().enumerate() {
                    if let Ok(l) = levels.binary_search_by(|a| a.total_cmp(&(v + 0.0))) {
                        out[(i, at + l)] = 1.0;
                    }
                }
                at += levels.len();
                continue;
            }
            let mut col = out.column_mut(at);
            col.copy_from(&m.column(j));
            match map {
                ColumnMap::Affine { mean, sd } => col.apply(|v| *v = (*v - mean) / sd),
                ColumnMap::Ranks { values, ranks, n } => col.apply(|v| {
                    let r = interpolated_rank(values, ranks, *v);
                    *v = PlottingPosition::Hazen.normal_score(r, *n);
                }),
                ColumnMap::Identity | ColumnMap::OneHot { .. } => {}
            }
            at += 1;
        }
        out
    }

    /// `mapped` (what [`FittedTransform::apply`] returned) with, for each column that is not a
    /// label's indicator, its square appended, centred and scaled as a standard normal's would
    /// be: `(z² − 1)/√2`. For normal scores these are the magnitudes a critic needs where the
    /// dependence acts through them — a shared scale (a multivariate Student-t), a rotation
    /// that depends on the radius (a spiral), noise whose size depends on the other side —
    /// which a ReLU network otherwise builds piece by piece. They are functions of the mapped
    /// coordinates, so a critic of both is a critic of the data: every bound stays valid, and
    /// invariant under monotone maps of the coordinates with normal scores.
    pub fn with_squares(&self, mapped: &DMatrix<f64>) -> DMatrix<f64> {
        let mut numeric = Vec::new();
        let mut at = 0;
        for map in &self.cols {
            if !matches!(map, ColumnMap::OneHot { .. }) {
                numeric.push(at);
            }
            at += map.width();
        }
        let width = mapped.ncols();
        DMatrix::from_fn(mapped.nrows(), width + numeric.len(), |i, j| match j.checked_sub(width) {
            None => mapped[(i, j)],
            Some(k) => (mapped[(i, numeric[k])].powi(2) - 1.0) * std::f64::consts::FRAC_1_SQRT_2,
        })
    }
}

/// The rank of `v` among the training values: the mid-rank of an equal value, linear
/// interpolation between the neighbouring values' mid-ranks, the extreme ranks beyond them.
fn interpolated_rank(values: &[f64], ranks: &[f64], v: f64) -> f64 {
    let k = values.partition_point(|&a| a < v);
    if k == values.len() {
        return ranks[k - 1];
    }
    if values[k] == v || k == 0 {
        return ranks[k];
    }
    let t = (v - values[k - 1]) / (values[k] - values[k - 1]);
    ranks[k - 1] + t * (ranks[k] - ranks[k - 1])
}

#[cfg(test)]
mod tests {
    use super::*;
    use statrs::distribution::{ContinuousCDF, Normal};

    #[test]
    fn label_columns_become_indicators_of_their_training_levels() {
        let m = DMatrix::from_row_slice(4, 2, &[0.5, 2.0, 1.5, 7.0, -1.0, 2.0, 3.0, 9.0]);
        // Column 1 is a label; rows 0–2 train: levels {2, 7}; row 3's level 9 is unseen.
        let f = MarginalTransform::None.fit_with_labels(&m, &[0, 1, 2], "x", &[1]).unwrap();
        let z = f.apply(&m);
        assert_eq!(z.ncols(), 3);
        assert_eq!(z.column(0), m.column(0));
        assert_eq!(z.row(0).iter().copied().collect::<Vec<_>>(), [0.5, 1.0, 0.0]);
        assert_eq!(z.row(1).iter().copied().collect::<Vec<_>>(), [1.5, 0.0, 1.0]);
        assert_eq!(z.row(3).iter().copied().collect::<Vec<_>>(), [3.0, 0.0, 0.0]);
    }

    #[test]
    fn copula_scores_are_monotone_bounded_and_tie_aware() {
        let m = DMatrix::from_column_slice(6, 1, &[3.0, 1.0, 2.0, 2.0, 10.0, -5.0]);
        let f = MarginalTransform::Copula.fit(&m, &[0, 1, 2, 3, 4, 5], "x").unwrap();
        let probe = DMatrix::from_column_slice(7, 1, &[-100.0, -5.0, 1.5, 2.0, 2.5, 10.0, 1e300]);
        let z = f.apply(&probe);
        let bound = Normal::standard().inverse_cdf(1.0 - 0.5 / 6.0);
        for w in z.as_slice().windows(2) {
            assert!(w[0] <= w[1], "not monotone: {z}");
        }
        assert!(z.iter().all(|v| v.is_finite() && v.abs() <= bound + 1e-12));
        // The tie at 2 (ranks 2 and 3) maps to the mid-rank 2.5: p = 3/6, z = 0.
        assert!(z[3].abs() < 1e-12, "{}", z[3]);
        // Beyond the training range: clamped to the extreme ranks.
        assert_eq!((z[0], z[6]), (z[1], z[5]));
    }

    #[test]
    fn squares_follow_the_numeric_columns_and_not_the_labels() {
        let m = DMatrix::from_row_slice(4, 3, &[0.5, 2.0, -1.0, 1.5, 7.0, 3.0, -1.0, 2.0, 0.0, 3.0, 9.0, 2.0]);
        // Column 1 is a label (levels 2, 7 on rows 0–2): [x0, 1{2}, 1{7}, x2, sq(x0), sq(x2)].
        let f = MarginalTransform::None.fit_with_labels(&m, &[0, 1, 2], "x", &[1]).unwrap();
        let (plain, wide) = (f.apply(&m), f.with_squares(&f.apply(&m)));
        assert_eq!((plain.ncols(), wide.ncols()), (4, 6));
        assert_eq!(wide.columns(0, 4), plain.columns(0, 4));
        let sq = |v: f64| (v * v - 1.0) * std::f64::consts::FRAC_1_SQRT_2;
        for i in 0..4 {
            assert_eq!((wide[(i, 4)], wide[(i, 5)]), (sq(m[(i, 0)]), sq(m[(i, 2)])));
        }
        // Normal scores: a standard normal's square minus one over √2 has mean 0 and variance 1.
        let z: Vec<f64> = (0..2000).map(|i| ((i as f64 + 0.37) * 0.618_034).fract()).collect();
        let m = DMatrix::from_column_slice(2000, 1, &z);
        let f = MarginalTransform::Copula.fit(&m, &(0..2000).collect::<Vec<_>>(), "x").unwrap();
        let wide = f.with_squares(&f.apply(&m));
        let s = wide.column(1);
        let (mean, var) = (s.mean(), s.map(|v| v * v).mean() - s.mean().powi(2));
        assert!(mean.abs() < 0.01 && (var - 1.0).abs() < 0.1, "mean {mean}, variance {var}");
    }

    #[test]
    fn standardize_refuses_a_constant_training_column() {
        let m = DMatrix::from_column_slice(3, 1, &[1.0, 1.0, 2.0]);
        assert!(MarginalTransform::Standardize.fit(&m, &[0, 1], "x").is_err());
        assert!(MarginalTransform::Standardize.fit(&m, &[0, 2], "x").is_ok());
        assert!("copula".parse::<MarginalTransform>().is_ok() && "rank".parse::<MarginalTransform>().is_err());
    }
}
