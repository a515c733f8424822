//! A critic fitted in closed form: the log density ratio of a jointly elliptical model,
//! Gaussian or Student-t.
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
//! well conditioned where `p` is not small against `n`. With `Λ = Σ̂⁻¹`, `x̃ = x − μ̂_x`,
//! `ỹ = y − μ̂_y`, the three Mahalanobis forms are
//!
//! ```text
//! Q = z̃ᵀ Λ z̃,   q_x = x̃ᵀ Σ̂_xx⁻¹ x̃,   q_y = ỹᵀ Σ̂_yy⁻¹ ỹ,
//! ```
//!
//! and the critic is the log density ratio `log p(x, y) − log p(x) − log p(y)` of the model
//! with that covariance ([`Tails`]):
//!
//! ```text
//! Gaussian:   S = −½ Q + ½ q_x + ½ q_y + c,        c = ½ (log|Σ̂_xx| + log|Σ̂_yy| − log|Σ̂|),
//! Student ν:  S = −(ν+p)/2 · ln(1 + Q/(ν−2)) + (ν+dx)/2 · ln(1 + q_x/(ν−2))
//!               + (ν+dy)/2 · ln(1 + q_y/(ν−2)) + c
//!               + lnΓ((ν+p)/2) + lnΓ(ν/2) − lnΓ((ν+dx)/2) − lnΓ((ν+dy)/2),
//! ```
//!
//! the Student-t one with scale matrix `Σ̂ (ν−2)/ν` (a multivariate t of `ν > 2` degrees of
//! freedom with covariance `Σ̂`; its marginals are t of the same `ν`; Kotz & Nadarajah 2004,
//! ch. 1), which tends to the Gaussian one as `ν → ∞`. Each is the optimal critic where the
//! (mapped) data follow its model. A Student-t model carries what a covariance cannot: the
//! shared scale of elliptical heavy tails, which makes `‖x‖` and `‖y‖` dependent even where
//! the linear dependence is thin.
//!
//! They need no training, so many weak linear dependences spread over hundreds of coordinates
//! — which a trained critic reaches only in part within its steps — cost them one covariance.
//! Any function is a critic: a bound evaluated with it on rows outside the reference rows is a
//! valid bound whatever the data's distribution.

use crate::error::{Error, Result};
use nalgebra::{DMatrix, DMatrixView, DVector};
use serde::{Deserialize, Serialize};
use statrs::function::gamma::ln_gamma;
use std::sync::Arc;

/// The tails of an [`Elliptical`] critic's model.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tails {
    /// Jointly Gaussian.
    Normal,
    /// Multivariate Student-t with `dof > 2` degrees of freedom.
    Student {
        /// Its degrees of freedom `ν`.
        dof: f64,
    },
}

impl Tails {
    /// The tails, or an error where a Student-t's degrees of freedom are not finite and above 2
    /// (its covariance, which the fit estimates, needs `ν > 2`).
    pub fn checked(self) -> Result<Self> {
        match self {
            Tails::Student { dof } if !(dof > 2.0 && dof.is_finite()) => {
                Err(Error::param("elliptical critic's degrees of freedom", dof, "must be finite and above 2"))
            }
            t => Ok(t),
        }
    }
}

/// The closed-form elliptical critic of a reference set (see the module docs): one fit, shared
/// by the critics of every model's tails.
#[derive(Clone, Debug)]
pub struct Elliptical {
    fit: Arc<Fit>,
    tails: Tails,
}

/// The fitted parameters of [`Elliptical`], whatever the tails.
#[derive(Debug)]
struct Fit {
    mean_x: DVector<f64>,
    mean_y: DVector<f64>,
    /// `Λ_xy` (`dx × dy`).
    cross: DMatrix<f64>,
    /// `Λ_xx`, `Λ_yy`.
    joint_x: DMatrix<f64>,
    joint_y: DMatrix<f64>,
    /// `Σ̂_xx⁻¹`, `Σ̂_yy⁻¹`.
    inverse_x: DMatrix<f64>,
    inverse_y: DMatrix<f64>,
    /// `c` of the module docs.
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

impl Elliptical {
    /// The Gaussian critic fitted on reference rows `x_ref`, `y_ref` (`n ≥ 2` rows each); the
    /// others share its fit ([`Elliptical::with_tails`]).
    pub fn fit(x_ref: DMatrixView<'_, f64>, y_ref: DMatrixView<'_, f64>) -> Result<Self> {
        let (n, dx, dy) = (x_ref.nrows(), x_ref.ncols(), y_ref.ncols());
        if n < 2 || y_ref.nrows() != n || dx == 0 || dy == 0 {
            return Err(Error::Shape {
                what: "reference rows of the elliptical critic".into(),
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
        let (lambda, log_det) = inverse_and_log_det(sigma.clone(), "covariance of the elliptical critic")?;
        let (inv_xx, log_det_x) =
            inverse_and_log_det(sigma.view((0, 0), (dx, dx)).into_owned(), "covariance of x in the elliptical critic")?;
        let (inv_yy, log_det_y) = inverse_and_log_det(
            sigma.view((dx, dx), (dy, dy)).into_owned(),
            "covariance of y in the elliptical critic",
        )?;
        let fit = Fit {
            mean_x: mean.rows(0, dx).into_owned(),
            mean_y: mean.rows(dx, dy).into_owned(),
            cross: lambda.view((0, dx), (dx, dy)).into_owned(),
            joint_x: lambda.view((0, 0), (dx, dx)).into_owned(),
            joint_y: lambda.view((dx, dx), (dy, dy)).into_owned(),
            inverse_x: inv_xx,
            inverse_y: inv_yy,
            constant: 0.5 * (log_det_x + log_det_y - log_det),
            shrinkage,
        };
        Ok(Elliptical { fit: Arc::new(fit), tails: Tails::Normal })
    }

    /// The same fit with the model's tails `tails` (a Student-t needs `dof > 2`).
    pub fn with_tails(&self, tails: Tails) -> Result<Self> {
        Ok(Elliptical { fit: Arc::clone(&self.fit), tails: tails.checked()? })
    }

    /// The model's tails.
    pub fn tails(&self) -> Tails {
        self.tails
    }

    /// Ledoit & Wolf's shrinkage weight `b²/d²` of the fit, in `[0, 1]`.
    pub fn shrinkage(&self) -> f64 {
        self.fit.shrinkage
    }

    /// The score matrix `S_ij = S(x_i, y_j)` of the rows of `x` against the rows of `y`.
    pub fn scores(&self, x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>) -> DMatrix<f64> {
        let f = &*self.fit;
        let centred = |m: DMatrixView<'_, f64>, mean: &DVector<f64>| {
            let mut c = m.into_owned();
            for (j, mut col) in c.column_iter_mut().enumerate() {
                col.add_scalar_mut(-mean[j]);
            }
            c
        };
        let (xc, yc) = (centred(x, &f.mean_x), centred(y, &f.mean_y));
        let quadratic = |c: &DMatrix<f64>, q: &DMatrix<f64>| -> Vec<f64> {
            let cq = c * q;
            cq.row_iter().zip(c.row_iter()).map(|(a, b)| a.dot(&b)).collect()
        };
        let (jx, jy) = (quadratic(&xc, &f.joint_x), quadratic(&yc, &f.joint_y));
        let (qx, qy) = (quadratic(&xc, &f.inverse_x), quadratic(&yc, &f.inverse_y));
        // Q_ij = x̃_iᵀ Λ_xx x̃_i + 2 x̃_iᵀ Λ_xy ỹ_j + ỹ_jᵀ Λ_yy ỹ_j.
        let mut s = (&xc * &f.cross) * yc.transpose() * 2.0;
        let (dx, dy) = (xc.ncols() as f64, yc.ncols() as f64);
        match self.tails {
            Tails::Normal => {
                for (j, mut col) in s.column_iter_mut().enumerate() {
                    for (i, v) in col.iter_mut().enumerate() {
                        *v = -0.5 * (*v + jx[i] + jy[j]) + 0.5 * (qx[i] + qy[j]) + f.constant;
                    }
                }
            }
            Tails::Student { dof } => {
                let (r, p) = (1.0 / (dof - 2.0), dx + dy);
                let half = |d: f64| 0.5 * (dof + d);
                let constant =
                    f.constant + ln_gamma(half(p)) + ln_gamma(half(0.0)) - ln_gamma(half(dx)) - ln_gamma(half(dy));
                let side = |q: &[f64], d: f64| -> Vec<f64> { q.iter().map(|v| half(d) * (r * v).ln_1p()).collect() };
                let (ax, by) = (side(&qx, dx), side(&qy, dy));
                for (j, mut col) in s.column_iter_mut().enumerate() {
                    for (i, v) in col.iter_mut().enumerate() {
                        let q = (*v + jx[i] + jy[j]).max(0.0);
                        *v = -half(p) * (r * q).ln_1p() + ax[i] + by[j] + constant;
                    }
                }
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
        let c = Elliptical::fit(x.as_view(), y.as_view()).unwrap();
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

    #[test]
    fn on_many_rows_of_a_student_t_its_student_form_is_the_true_log_density_ratio() {
        // (x, y) = g / √(W/ν), g ~ N(0, R), W ~ χ²_ν: bivariate t with scale R (unit diagonal,
        // correlation ρ) and covariance ν/(ν−2)·R; its marginals are t_ν with unit scale. The log
        // density ratio is ln t₂(z; R) − ln t₁(x) − ln t₁(y), with
        // ln t_k(z; R) = lnΓ((ν+k)/2) − lnΓ(ν/2) − (k/2) ln(νπ) − ½ ln|R| − (ν+k)/2 ln(1 + zᵀR⁻¹z/ν).
        let (rho, nu): (f64, f64) = (0.6, 8.0);
        let mut g = crate::rng::rng(4);
        let n = 200_000;
        let chi = rand_distr::ChiSquared::new(nu).unwrap();
        let mut x = DMatrix::zeros(n, 1);
        let mut y = DMatrix::zeros(n, 1);
        for i in 0..n {
            let (a, b): (f64, f64) = (g.sample(rand_distr::StandardNormal), g.sample(rand_distr::StandardNormal));
            let scale = (g.sample(chi) / nu).sqrt();
            x[(i, 0)] = a / scale;
            y[(i, 0)] = (rho * a + (1.0 - rho * rho).sqrt() * b) / scale;
        }
        let c = Elliptical::fit(x.as_view(), y.as_view()).unwrap().with_tails(Tails::Student { dof: nu }).unwrap();
        let log_t = |k: f64, q: f64, log_det: f64| {
            ln_gamma(0.5 * (nu + k))
                - ln_gamma(0.5 * nu)
                - 0.5 * k * (nu * std::f64::consts::PI).ln()
                - 0.5 * log_det
                - 0.5 * (nu + k) * (q / nu).ln_1p()
        };
        let truth = |a: f64, b: f64| {
            let q = (a * a - 2.0 * rho * a * b + b * b) / (1.0 - rho * rho);
            log_t(2.0, q, (1.0 - rho * rho).ln()) - log_t(1.0, a * a, 0.0) - log_t(1.0, b * b, 0.0)
        };
        for (a, b) in [(0.0, 0.0), (1.0, 1.0), (1.0, -1.0), (-0.5, 2.0), (2.0, -2.0)] {
            let got = c.scores(DMatrix::from_element(1, 1, a).as_view(), DMatrix::from_element(1, 1, b).as_view());
            // Sampling error of a covariance from 2·10⁵ rows of t₈ (excess kurtosis 6/(ν−4) = 1.5):
            // about 0.004 per entry, as in the Gaussian test.
            assert!((got[(0, 0)] - truth(a, b)).abs() < 0.03, "({a}, {b}): {} vs {}", got[(0, 0)], truth(a, b));
        }
        // The Gaussian form of the same fit is far off where the shared scale matters, both far out
        // and against the correlation: −4.28 for −2.33 (its covariance ν/(ν−2)·R, by hand).
        let gauss = c.with_tails(Tails::Normal).unwrap();
        let far = gauss.scores(DMatrix::from_element(1, 1, 2.0).as_view(), DMatrix::from_element(1, 1, -2.0).as_view());
        assert!(far[(0, 0)] < truth(2.0, -2.0) - 1.5, "{} vs {}", far[(0, 0)], truth(2.0, -2.0));
    }

    #[test]
    fn student_tails_need_more_than_two_degrees_of_freedom() {
        let x = DMatrix::from_fn(10, 1, |i, _| i as f64);
        let y = DMatrix::from_fn(10, 1, |i, _| (i * i) as f64);
        let c = Elliptical::fit(x.as_view(), y.as_view()).unwrap();
        for dof in [2.0, 1.0, f64::NAN, f64::INFINITY] {
            assert!(c.with_tails(Tails::Student { dof }).is_err(), "{dof}");
        }
        assert!(c.with_tails(Tails::Student { dof: 2.5 }).is_ok());
    }
}
