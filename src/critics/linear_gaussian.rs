//! A critic fitted in closed form: the log density ratio of a jointly Gaussian model.
//!
//! On reference rows `z_t = (x_t, y_t)` (a fold's fit rows, after its marginal maps) the joint
//! covariance is estimated with Ledoit & Wolf's (2004) shrinkage towards a multiple of the
//! identity,
//!
//! ```text
//! Σ̂ = (b²/d²)·m·I + (1 − b²/d²)·S,   m = tr S / p,   d² = ‖S − m I‖²_F,
//! b² = min(d², (1/n²) Σ_t ‖z_t z_tᵀ − S‖²_F) = min(d², (Σ_t ‖z_t‖⁴ − n ‖S‖²_F) / n²),
//! ```
//!
//! (`S` the sample covariance of the `n` centred rows, `p = dx + dy`), which keeps `Σ̂`
//! well conditioned where `p` is not small against `n`. The critic is the log density ratio
//! of `N(μ̂, Σ̂)` to the product of its marginals,
//!
//! ```text
//! S(x, y) = −x̃ᵀ Λ_xy ỹ + ½ x̃ᵀ (Σ̂_xx⁻¹ − Λ_xx) x̃ + ½ ỹᵀ (Σ̂_yy⁻¹ − Λ_yy) ỹ
//!           − ½ log|Σ̂| + ½ log|Σ̂_xx| + ½ log|Σ̂_yy|,      Λ = Σ̂⁻¹, x̃ = x − μ̂_x, ỹ = y − μ̂_y,
//! ```
//!
//! the optimal critic where the (mapped) data are jointly Gaussian. It needs no training, so
//! many weak linear dependences spread over hundreds of coordinates — which a trained critic
//! reaches only in part within its steps — cost it one covariance. Any function is a critic:
//! a bound evaluated with it on rows outside the reference rows is a valid bound whatever the
//! data's distribution.

use crate::error::{Error, Result};
use nalgebra::{DMatrix, DMatrixView, DVector};

/// The closed-form Gaussian critic of a reference set (see the module docs).
#[derive(Clone, Debug)]
pub struct LinearGaussian {
    mean_x: DVector<f64>,
    mean_y: DVector<f64>,
    /// `−Λ_xy` (`dx × dy`).
    cross: DMatrix<f64>,
    /// `½ (Σ̂_xx⁻¹ − Λ_xx)`.
    quad_x: DMatrix<f64>,
    /// `½ (Σ̂_yy⁻¹ − Λ_yy)`.
    quad_y: DMatrix<f64>,
    constant: f64,
    shrinkage: f64,
}

/// `A⁻¹` and `log |A|` of a symmetric positive definite `A`, or an error naming `what`.
fn inverse_and_log_det(a: DMatrix<f64>, what: &str) -> Result<(DMatrix<f64>, f64)> {
    let chol = a.cholesky().ok_or_else(|| Error::Singular {
        what: what.into(),
        why: "not positive definite after shrinkage (a constant column?)".into(),
    })?;
    let log_det = 2.0 * chol.l_dirty().diagonal().iter().map(|v| v.ln()).sum::<f64>();
    Ok((chol.inverse(), log_det))
}

impl LinearGaussian {
    /// The critic fitted on reference rows `x_ref`, `y_ref` (`n ≥ 2` rows each).
    pub fn fit(x_ref: DMatrixView<'_, f64>, y_ref: DMatrixView<'_, f64>) -> Result<Self> {
        let (n, dx, dy) = (x_ref.nrows(), x_ref.ncols(), y_ref.ncols());
        if n < 2 || y_ref.nrows() != n || dx == 0 || dy == 0 {
            return Err(Error::Shape {
                what: "reference rows of the Gaussian critic".into(),
                expected: "n ≥ 2 rows of x and of y, each with a column".into(),
                got: format!("{} × {dx} and {} × {dy}", n, y_ref.nrows()),
            });
        }
        let p = dx + dy;
        let mut z = DMatrix::<f64>::zeros(n, p);
        z.columns_mut(0, dx).copy_from(&x_ref);
        z.columns_mut(dx, dy).copy_from(&y_ref);
        let mean = DVector::from_iterator(p, z.column_iter().map(|c| c.mean()));
        for (j, mut c) in z.column_iter_mut().enumerate() {
            c.add_scalar_mut(-mean[j]);
        }
        let nf = n as f64;
        let s = z.tr_mul(&z) / nf;
        let m = s.trace() / p as f64;
        let d2 = (&s - DMatrix::<f64>::identity(p, p) * m).norm_squared();
        let fourth: f64 = z.row_iter().map(|r| r.norm_squared().powi(2)).sum();
        let b2 = ((fourth - nf * s.norm_squared()) / (nf * nf)).clamp(0.0, d2);
        let shrinkage = if d2 > 0.0 { b2 / d2 } else { 1.0 };
        let sigma = &s * (1.0 - shrinkage) + DMatrix::<f64>::identity(p, p) * (shrinkage * m);
        let (lambda, log_det) = inverse_and_log_det(sigma.clone(), "covariance of the Gaussian critic")?;
        let (inv_xx, log_det_x) =
            inverse_and_log_det(sigma.view((0, 0), (dx, dx)).into_owned(), "covariance of x in the Gaussian critic")?;
        let (inv_yy, log_det_y) =
            inverse_and_log_det(sigma.view((dx, dx), (dy, dy)).into_owned(), "covariance of y in the Gaussian critic")?;
        Ok(LinearGaussian {
            mean_x: mean.rows(0, dx).into_owned(),
            mean_y: mean.rows(dx, dy).into_owned(),
            cross: -lambda.view((0, dx), (dx, dy)).into_owned(),
            quad_x: (inv_xx - lambda.view((0, 0), (dx, dx))) * 0.5,
            quad_y: (inv_yy - lambda.view((dx, dx), (dy, dy))) * 0.5,
            constant: 0.5 * (log_det_x + log_det_y - log_det),
            shrinkage,
        })
    }

    /// Ledoit & Wolf's shrinkage weight `b²/d²` of the fit, in `[0, 1]`.
    pub fn shrinkage(&self) -> f64 {
        self.shrinkage
    }

    /// The score matrix `S_ij = S(x_i, y_j)` of the rows of `x` against the rows of `y`.
    pub fn scores(&self, x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>) -> DMatrix<f64> {
        let centred = |m: DMatrixView<'_, f64>, mean: &DVector<f64>| {
            let mut c = m.into_owned();
            for (j, mut col) in c.column_iter_mut().enumerate() {
                col.add_scalar_mut(-mean[j]);
            }
            c
        };
        let (xc, yc) = (centred(x, &self.mean_x), centred(y, &self.mean_y));
        let quadratic = |c: &DMatrix<f64>, q: &DMatrix<f64>| -> Vec<f64> {
            let cq = c * q;
            cq.row_iter().zip(c.row_iter()).map(|(a, b)| a.dot(&b)).collect()
        };
        let (ax, by) = (quadratic(&xc, &self.quad_x), quadratic(&yc, &self.quad_y));
        let mut s = (&xc * &self.cross) * yc.transpose();
        for (j, mut col) in s.column_iter_mut().enumerate() {
            for (i, v) in col.iter_mut().enumerate() {
                *v += ax[i] + by[j] + self.constant;
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    #[test]
    fn on_many_rows_of_a_gaussian_it_is_the_true_log_density_ratio() {
        // x, y standard normal with correlation 0.6: log p(x,y)/(p(x)p(y)) =
        // −½ log(1 − ρ²) − (ρ²x² − 2ρxy + ρ²y²) / (2(1 − ρ²)).
        let rho: f64 = 0.6;
        let mut g = crate::rng::rng(3);
        let n = 200_000;
        let e = DMatrix::from_fn(n, 2, |_, _| -> f64 { g.sample(rand_distr::StandardNormal) });
        let x = e.columns(0, 1).into_owned();
        let y = x.map(|v| rho * v) + e.columns(1, 1).map(|v| (1.0 - rho * rho).sqrt() * v);
        let c = LinearGaussian::fit(x.as_view(), y.as_view()).unwrap();
        let at = |a: f64, b: f64| {
            let (xa, yb) = (DMatrix::from_element(1, 1, a), DMatrix::from_element(1, 1, b));
            c.scores(xa.as_view(), yb.as_view())[(0, 0)]
        };
        let truth = |a: f64, b: f64| {
            -0.5 * (1.0 - rho * rho).ln()
                - (rho * rho * (a * a + b * b) - 2.0 * rho * a * b) / (2.0 * (1.0 - rho * rho))
        };
        for (a, b) in [(0.0, 0.0), (1.0, 1.0), (1.0, -1.0), (-0.5, 2.0)] {
            // Sampling error of a covariance from 2·10⁵ rows: a few thousandths per entry.
            assert!((at(a, b) - truth(a, b)).abs() < 0.03, "({a}, {b}): {} vs {}", at(a, b), truth(a, b));
        }
        assert!(c.shrinkage() < 0.01, "{}", c.shrinkage());
    }
}
