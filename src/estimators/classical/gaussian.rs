//! The Gaussian (canonical-correlation) estimate and the Gaussian-copula estimate.
//!
//! **Gaussian.** For jointly normal `(X, Y)`, `I(X; Y) = ½ ln(|Σ_x| |Σ_y| / |Σ|)
//! = −½ Σᵢ ln(1 − ρᵢ²)` with `ρᵢ` the canonical correlations. The plug-in estimate
//! ([`gaussian_mi_plugin`]) puts the sample covariance in place of `Σ` and is biased upwards (by
//! about `d_x d_y / (2N)` at `I = 0`); [`gaussian_mi`] — what the `gaussian` estimator reports —
//! removes that bias exactly for normal data, as Ince et al.'s gcmi. Both come from
//! [`crate::cca::gaussian_fit`], the crate's one implementation of the formula (its docs give
//! the correction); a constant column or linearly dependent columns are an error naming the
//! side.
//!
//! **Gaussian copula** (Ince et al. 2017). Each column is replaced by the normal scores of its
//! ranks, `z = Φ⁻¹(r / (N + 1))`, with ranks `1…N` and tied values given the mean of their ranks;
//! `Φ⁻¹` is statrs' inverse normal CDF. Then the bias-corrected Gaussian formula. The result is
//! consistent when the data are a Gaussian under strictly monotone maps of each coordinate, is
//! in population a lower bound on `I` for one-dimensional `x` and `y` (the normal maximises the
//! joint entropy at a given covariance; Ince et al. 2017), and is unchanged — bit for bit — by
//! any strictly increasing map of a coordinate that keeps distinct values distinct (ranks are all
//! it sees; a decreasing map flips the sign of that coordinate's scores).
//!
//! **The copula estimate as a lower bound.** Where each side's normal scores are jointly normal,
//! the Gaussian-copula MI is at most `I(X; Y)` in population, however the sides depend on each
//! other (the normal maximises the joint entropy at a given covariance, while each side's
//! entropy is then exactly the normal one; [`super::normality`] has the argument). [`Copula`]
//! tests each side (Mardia's skewness and kurtosis on the normal scores, and no tied values) and
//! reports [`Kind::Lower`] where both pass, [`Kind::Estimate`] otherwise; the verdicts are in
//! its settings. A one-dimensional side always passes, as in Ince et al.'s one-dimensional
//! statement. Many weak linear dependences spread over hundreds of coordinates are where this
//! matters: a held-out critic fitted on the training rows is capped by its own estimation
//! noise (40 % of the truth at 256 + 256 dimensions and 10⁴ rows), while the bias-corrected
//! copula estimate reads them whole.

use super::interval::DEFAULT_SUBSAMPLES;
use super::normality::side_normality;
use super::{Core, run};
use crate::error::Result;
use crate::estimators::{Estimate, Estimator, EstimatorSpec, Kind, SettingsUsed, Warning, WarningCode, check_inputs};
use nalgebra::DMatrixView;

pub use crate::cca::GaussianFit;

/// The Gaussian fit of [`crate::cca`] (the one implementation), after the estimators' input
/// checks (paired finite rows). Needs `N ≥ d_x + d_y + 2` rows.
pub fn gaussian_fit(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>) -> Result<GaussianFit> {
    check_inputs(x, y, x.ncols() + y.ncols() + 2)?;
    crate::cca::gaussian_fit(x, y)
}

/// The bias-corrected Gaussian estimate of `I(X; Y)` in nats (module docs); exactly unbiased
/// for normal data.
pub fn gaussian_mi(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>) -> Result<f64> {
    gaussian_fit(x, y).map(|f| f.corrected)
}

/// The plug-in Gaussian estimate `½ ln(|S_x| |S_y| / |S|)` in nats.
pub fn gaussian_mi_plugin(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>) -> Result<f64> {
    gaussian_fit(x, y).map(|f| f.plugin)
}

/// The canonical correlations of `x` and `y`, largest first.
pub fn canonical_correlations(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>) -> Result<Vec<f64>> {
    gaussian_fit(x, y).map(|f| f.canonical)
}

/// Normal scores of `values`: `Φ⁻¹(r / (N + 1))` with `r` the rank (`1…N`, ties averaged), the
/// convention of Ince et al. 2017 ([`crate::ranks`], Weibull positions).
pub fn normal_scores(values: &[f64]) -> Vec<f64> {
    crate::ranks::normal_scores(values, crate::ranks::PlottingPosition::Weibull)
}

pub use crate::ranks::copula_transform;

/// The Gaussian-copula estimate of `I(X; Y)` in nats (module docs).
pub fn copula_mi(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>) -> Result<f64> {
    check_inputs(x, y, x.ncols() + y.ncols() + 2)?;
    gaussian_mi(copula_transform(x).as_view(), copula_transform(y).as_view())
}

/// [`gaussian_fit`] without the columns that are constant in these rows. The estimators refuse
/// a column constant in the user's data ([`crate::cca::refuse_constant`]); one can still be
/// constant in a half-sample of the interval (a pixel of the digit images that is rarely
/// nonzero). A constant coordinate carries no information: `I(X; Y)` is the same without it,
/// and a side with no column left reads 0.
fn fit_varying(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>) -> Result<GaussianFit> {
    use crate::numerics::constant_columns;
    let (cx, cy) = (constant_columns(x), constant_columns(y));
    if cx.is_empty() && cy.is_empty() {
        // Also where the input checks of `gaussian_fit` apply (an empty side, too few rows).
        return gaussian_fit(x, y);
    }
    if cx.len() == x.ncols() || cy.len() == y.ncols() {
        return Ok(GaussianFit { plugin: 0.0, corrected: 0.0, canonical: Vec::new() });
    }
    gaussian_fit(x.remove_columns_at(&cx).as_view(), y.remove_columns_at(&cy).as_view())
}

fn fit_core(fit: GaussianFit) -> Core {
    let mut values = vec![("plugin".to_string(), fit.plugin)];
    for (i, r) in fit.canonical.iter().enumerate() {
        values.push((format!("canonical_correlation_{}", i + 1), *r));
    }
    Core { value: fit.corrected, values, warnings: Vec::new() }
}

/// The Gaussian / CCA estimator (`gaussian`, alias `cca`); see the module docs.
#[derive(Clone, Debug, PartialEq)]
pub struct Gaussian {
    /// Subsamples for the interval (default [`DEFAULT_SUBSAMPLES`]; 0 for none).
    pub subsamples: usize,
}

impl Default for Gaussian {
    fn default() -> Self {
        Gaussian { subsamples: DEFAULT_SUBSAMPLES }
    }
}

impl Estimator for Gaussian {
    fn name(&self) -> String {
        EstimatorSpec::Gaussian.to_string()
    }

    fn kind(&self) -> Kind {
        Kind::Estimate
    }

    fn estimate(&self, x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, seed: u64) -> Result<Estimate> {
        let min_rows = x.ncols() + y.ncols() + 2;
        let settings =
            SettingsUsed::Gaussian { bias_correction: "gcmi (exact for normal data)", subsamples: self.subsamples };
        check_inputs(x, y, min_rows)?;
        crate::cca::refuse_constant(x, y)?;
        let core = |a: DMatrixView<'_, f64>, b: DMatrixView<'_, f64>| fit_varying(a, b).map(fit_core);
        let mut e = run(self.name(), "Gaussian (CCA)".into(), settings, x, y, self.subsamples, min_rows, seed, &core)?;
        e.diagnostics.warnings.extend(heavy_tail_warnings(x, y));
        Ok(e)
    }
}

/// Excess kurtosis above which [`Gaussian`] warns. A normal column has 0 (sample standard
/// deviation about √(24/n): 0.07 at n = 5000); Student-t with ν = 5 has 6, and ν ≤ 4 none
/// finite, where the sample correlations the CCA read-off rests on are set by a few rows.
pub const HEAVY_TAIL_KURTOSIS: f64 = 10.0;

/// One warning naming the columns whose excess kurtosis exceeds [`HEAVY_TAIL_KURTOSIS`].
fn heavy_tail_warnings(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>) -> Option<Warning> {
    let mut heavy = Vec::new();
    for (name, m) in [("x", x), ("y", y)] {
        for (j, c) in m.column_iter().enumerate() {
            let (_, [m2, _, m4]) = crate::numerics::central_moments(c.iter().copied());
            let k = if m2 > 0.0 { m4 / (m2 * m2) - 3.0 } else { 0.0 };
            if k > HEAVY_TAIL_KURTOSIS {
                heavy.push(format!("{name}[{j}] ({k:.0})"));
            }
        }
    }
    (!heavy.is_empty()).then(|| {
        let message = format!(
            "heavy tails: excess kurtosis above {HEAVY_TAIL_KURTOSIS} in {} (a normal column has 0); the Gaussian (CCA) estimate rests on a few extreme rows and can be far off in either direction; the copula estimate (ranks) and the neural estimates (copula marginals) are not affected",
            heavy.join(", ")
        );
        Warning::new(WarningCode::HeavyTails, message)
    })
}

/// The Gaussian-copula estimator (`copula`); see the module docs.
#[derive(Clone, Debug, PartialEq)]
pub struct Copula {
    /// Subsamples for the interval (default [`DEFAULT_SUBSAMPLES`]; 0 for none).
    pub subsamples: usize,
}

impl Default for Copula {
    fn default() -> Self {
        Copula { subsamples: DEFAULT_SUBSAMPLES }
    }
}

impl Estimator for Copula {
    fn name(&self) -> String {
        EstimatorSpec::Copula.to_string()
    }

    fn kind(&self) -> Kind {
        Kind::Estimate
    }

    /// A lower bound ([`Kind::Lower`]) where each side's normal scores pass the tests of joint
    /// normality ([`side_normality`]); otherwise an estimate ([`Kind::Estimate`]).
    fn estimate(&self, x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, seed: u64) -> Result<Estimate> {
        let min_rows = x.ncols() + y.ncols() + 2;
        check_inputs(x, y, min_rows)?;
        let sides = [side_normality(x), side_normality(y)];
        let settings = SettingsUsed::Copula {
            scores: "Φ⁻¹(rank/(N+1)), ties averaged",
            bias_correction: "gcmi",
            subsamples: self.subsamples,
            lower_bound_when: "each side's normal scores pass Mardia's skewness and kurtosis tests (1 % each), with no tied values",
            sides,
        };
        // Subsamples re-rank their own rows, as the estimator would on that data.
        crate::cca::refuse_constant(x, y)?;
        let core = |a: DMatrixView<'_, f64>, b: DMatrixView<'_, f64>| {
            fit_varying(copula_transform(a).as_view(), copula_transform(b).as_view()).map(fit_core)
        };
        let mut e = run(self.name(), "Gaussian copula".into(), settings, x, y, self.subsamples, min_rows, seed, &core)?;
        if sides.iter().all(|s| s.passes()) {
            e.kind = Kind::Lower;
        }
        Ok(e)
    }
}
