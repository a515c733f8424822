//! A nearest-neighbour critic: the density ratio read off neighbour counts in a reference set,
//! with nothing to train.
//!
//! Given reference pairs `(x_t, y_t)`, `t = 1..M` (a fold's training rows), let `A(x)` be the
//! `k` reference rows whose `x_t` are nearest to `x` and `B(y)` the `k` whose `y_t` are nearest
//! to `y` (Euclidean). The reference rows in both,
//!
//! ```text
//! c(x, y) = |A(x) ∩ B(y)|,
//! ```
//!
//! estimate `M · P(X ∈ ball(x), Y ∈ ball(y))`, while under independence their expectation is
//! `k²/M`. So `c / (k²/M)` estimates the density ratio `p(x, y)/(p(x) p(y))` averaged over the
//! two balls — the same neighbourhoods KSG counts in (Kraskov et al. 2004), here turned into a
//! critic:
//!
//! ```text
//! S(x, y) = log((c(x, y) + a·k²/M) / ((1 + a)·k²/M))
//! ```
//!
//! with a pseudo-count `a` (here 0.1) so that an empty intersection is finite. Any function is a
//! critic, so a bound evaluated with it on rows outside the reference set is a valid bound; the
//! neural estimate uses it as one more candidate beside the trained critics and keeps it only
//! when it validates higher. It shines where neighbours carry the dependence — clustered data
//! such as images of a few classes — and fades in many smooth dimensions, where neighbours are
//! far (the curse of dimensionality that also biases KSG).

use crate::error::{Error, Result};
use nalgebra::{DMatrix, DMatrixView};

/// Pseudo-count, as a fraction of the independent expectation `k²/M`.
const PSEUDO_COUNT: f64 = 0.1;
/// Query rows per block of the distance computation (bounds its memory to block × M).
const QUERY_BLOCK: usize = 512;

/// The nearest-neighbour critic of a reference set (see the module docs).
#[derive(Clone, Debug)]
pub struct Knn {
    x_ref: DMatrix<f64>,
    y_ref: DMatrix<f64>,
    k: usize,
}

impl Knn {
    /// The critic with reference rows `x_ref`, `y_ref` (`M` rows each) and `k` neighbours
    /// (`1 ≤ k ≤ M`).
    pub fn new(x_ref: DMatrix<f64>, y_ref: DMatrix<f64>, k: usize) -> Result<Self> {
        let m = x_ref.nrows();
        if y_ref.nrows() != m {
            return Err(Error::Shape {
                what: "reference rows of the kNN critic".into(),
                expected: format!("{m} rows of y"),
                got: format!("{}", y_ref.nrows()),
            });
        }
        if k == 0 || k > m {
            return Err(Error::param("kNN critic neighbours k", k, &format!("must lie in 1..={m}")));
        }
        Ok(Knn { x_ref, y_ref, k })
    }

    /// Neighbours `k`.
    pub fn k(&self) -> usize {
        self.k
    }

    /// The score matrix `S_ij = S(x_i, y_j)` of the rows of `x` against the rows of `y`.
    pub fn scores(&self, x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>) -> DMatrix<f64> {
        let m = self.x_ref.nrows();
        let a = nearest(x, &self.x_ref, self.k);
        let b = nearest(y, &self.y_ref, self.k);
        // Which queries of y have reference row t among their neighbours.
        let mut owners: Vec<Vec<u32>> = vec![Vec::new(); m];
        for (j, nb) in b.iter().enumerate() {
            for &t in nb {
                owners[t as usize].push(j as u32);
            }
        }
        let base = (self.k * self.k) as f64 / m as f64;
        let mut counts = DMatrix::<f64>::zeros(x.nrows(), y.nrows());
        for (i, nb) in a.iter().enumerate() {
            for &t in nb {
                for &j in &owners[t as usize] {
                    counts[(i, j as usize)] += 1.0;
                }
            }
        }
        let denominator = ((1.0 + PSEUDO_COUNT) * base).ln();
        counts.map(|c| (c + PSEUDO_COUNT * base).ln() - denominator)
    }
}

/// The indices of the `k` rows of `reference` nearest (Euclidean) to each row of `queries`.
fn nearest(queries: DMatrixView<'_, f64>, reference: &DMatrix<f64>, k: usize) -> Vec<Vec<u32>> {
    let ref_sq: Vec<f64> = reference.row_iter().map(|r| r.norm_squared()).collect();
    let mut out = Vec::with_capacity(queries.nrows());
    let mut d: Vec<(f64, u32)> = Vec::with_capacity(reference.nrows());
    for start in (0..queries.nrows()).step_by(QUERY_BLOCK) {
        let rows = QUERY_BLOCK.min(queries.nrows() - start);
        let q = queries.rows(start, rows);
        // ‖q − r‖² = ‖q‖² + ‖r‖² − 2 q·r; ‖q‖² is the same for every r and does not change the
        // order, so it is left out.
        let dots = q * reference.transpose();
        for i in 0..rows {
            d.clear();
            d.extend(ref_sq.iter().enumerate().map(|(t, &r)| (r - 2.0 * dots[(i, t)], t as u32)));
            d.select_nth_unstable_by(k - 1, |a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            out.push(d[..k].iter().map(|p| p.1).collect());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_shared_neighbours_against_the_independent_expectation() {
        // Reference pairs on a line: x_t = t, y_t = t (t = 0..=7, M = 8). With k = 2, the query
        // x = 0.1 has neighbours {0, 1}; y = 0.9 has {1, 0}: both shared, c = 2, k²/M = 0.5, so
        // S = ln((2 + 0.05) / 0.55). y = 7.1 has {7, 6}: none shared, S = ln(0.05 / 0.55).
        let r = DMatrix::from_fn(8, 1, |t, _| t as f64);
        let critic = Knn::new(r.clone(), r, 2).unwrap();
        let x = DMatrix::from_row_slice(1, 1, &[0.1]);
        let y = DMatrix::from_row_slice(2, 1, &[0.9, 7.1]);
        let s = critic.scores(x.as_view(), y.as_view());
        assert!((s[(0, 0)] - (2.05f64 / 0.55).ln()).abs() < 1e-12);
        assert!((s[(0, 1)] - (0.05f64 / 0.55).ln()).abs() < 1e-12);
    }

    #[test]
    fn refuses_impossible_neighbour_counts() {
        let r = DMatrix::zeros(4, 1);
        assert!(Knn::new(r.clone(), r.clone(), 0).is_err());
        assert!(Knn::new(r.clone(), r.clone(), 5).is_err());
        assert!(Knn::new(r, DMatrix::zeros(3, 1), 2).is_err());
    }
}
