//! The Gaussian (canonical-correlation) estimate and the Gaussian-copula estimate.
//!
//! **Gaussian.** For jointly normal `(X, Y)`, `I(X; Y) = ½ ln(|Σ_x| |Σ_y| / |Σ|)
//! = −½ Σᵢ ln(1 − ρᵢ²)` with `ρᵢ` the canonical correlations. The plug-in estimate
//! ([`gaussian_mi_plugin`]) puts the sample covariance `S` (centred with the sample mean) in
//! place of `Σ`; it is biased upwards (by about `d_x d_y / (2N)` at `I = 0`). [`gaussian_mi`] —
//! what the `gaussian` estimator reports — removes that bias exactly for normal data, as Ince et
//! al.'s gcmi (`mi_gg`, `biascorrect=True`): `(N − 1) S` is Wishart with `N − 1` degrees of
//! freedom, so `E ln|S| = ln|Σ| + d ln(2/(N − 1)) + Σ_{i=1}^{d} ψ((N − i)/2)`, and
//!
//! `Î = Î_plug-in − ½ [Σ_{i≤d_x} ψ((N−i)/2) + Σ_{i≤d_y} ψ((N−i)/2) − Σ_{i≤d_x+d_y} ψ((N−i)/2)]`
//!
//! (the `ln(2/(N − 1))` terms cancel) has expectation exactly `I` under normality. Determinants
//! are taken of the correlation matrix (the scales cancel) by Cholesky factorisation. A constant
//! column or linearly dependent columns (a Cholesky pivot `< 1e-12` of the correlation matrix,
//! i.e. a canonical correlation within about `1e-12` of 1) are an error naming the side.
//!
//! **Gaussian copula** (Ince et al. 2017). Each column is replaced by the normal scores of its
//! ranks, `z = Φ⁻¹(r / (N + 1))`, with ranks `1…N` and tied values given the mean of their ranks;
//! `Φ⁻¹` is statrs' inverse normal CDF. Then the bias-corrected Gaussian formula. The result is
//! consistent when the data are a Gaussian under strictly monotone maps of each coordinate, is
//! in population a lower bound on `I` for one-dimensional `x` and `y` (the normal maximises the
//! joint entropy at a given covariance; Ince et al. 2017), and is unchanged — bit for bit — by
//! any strictly increasing map of a coordinate that keeps distinct values distinct (ranks are all
//! it sees; a decreasing map flips the sign of that coordinate's scores).

use super::interval::DEFAULT_SUBSAMPLES;
use super::{Core, digamma, run};
use crate::error::{Error, Result};
use crate::estimators::{Estimate, Estimator, EstimatorSpec, Kind, SettingsUsed, Warning, WarningCode, check_inputs};
use nalgebra::{DMatrix, DMatrixView};

/// The smallest squared Cholesky pivot of the correlation matrix accepted as non-singular.
const MIN_PIVOT: f64 = 1e-12;

/// Everything the Gaussian formula gives.
#[derive(Clone, Debug, PartialEq)]
pub struct GaussianFit {
    /// Plug-in `½ ln(|S_x| |S_y| / |S|)`.
    pub plugin: f64,
    /// The bias-corrected estimate (module docs).
    pub corrected: f64,
    /// Canonical correlations, largest first (`min(d_x, d_y)` of them).
    pub canonical: Vec<f64>,
}

/// The Gaussian fit of the module docs. Needs `N ≥ d_x + d_y + 2` rows.
pub fn gaussian_fit(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>) -> Result<GaussianFit> {
    let (dx, dy) = (x.ncols(), y.ncols());
    let d = dx + dy;
    check_inputs(x, y, d + 2)?;
    let n = x.nrows();
    // Joint correlation matrix from the centred columns.
    let mut z = DMatrix::zeros(n, d);
    for (j, src) in x.column_iter().chain(y.column_iter()).enumerate() {
        let (lo, hi) = src.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
        if lo == hi {
            let (side, col) = if j < dx { ("x", j) } else { ("y", j - dx) };
            return Err(Error::param(
                "covariance",
                format!("{side} column {col} constant ({lo})"),
                "is singular: a constant column carries no information; drop it",
            ));
        }
        let mean = src.iter().sum::<f64>() / n as f64;
        let mut col = z.column_mut(j);
        for (t, &v) in col.iter_mut().zip(src.iter()) {
            *t = v - mean;
        }
        let norm = col.norm();
        col /= norm;
    }
    let r = z.transpose() * &z;
    let chol = |m: DMatrix<f64>, what: &str| -> Result<DMatrix<f64>> {
        let l = nalgebra::Cholesky::new(m).map(|c| c.unpack());
        match l {
            Some(l) if l.diagonal().iter().all(|p| p * p >= MIN_PIVOT) => Ok(l),
            _ => Err(Error::param(
                "covariance",
                what,
                "is singular: its columns are linearly dependent (or nearly: a canonical correlation of 1)",
            )),
        }
    };
    let lx = chol(r.view((0, 0), (dx, dx)).into_owned(), "of x")?;
    let ly = chol(r.view((dx, dx), (dy, dy)).into_owned(), "of y")?;
    let lxy = chol(r.clone(), "of (x, y)")?;
    let ln_det = |l: &DMatrix<f64>| 2.0 * l.diagonal().iter().map(|v| v.ln()).sum::<f64>();
    let plugin = 0.5 * (ln_det(&lx) + ln_det(&ly) - ln_det(&lxy));
    let psi_sum = |m: usize| (1..=m).map(|i| digamma((n - i) as f64 / 2.0)).sum::<f64>();
    let corrected = plugin - 0.5 * (psi_sum(dx) + psi_sum(dy) - psi_sum(d));
    // Canonical correlations: singular values of Lx⁻¹ R_xy Ly⁻ᵀ.
    let rxy = r.view((0, dx), (dx, dy)).into_owned();
    let a = lx.solve_lower_triangular(&rxy).unwrap_or(rxy);
    let at = a.transpose();
    let m = ly.solve_lower_triangular(&at).unwrap_or(at);
    let mut canonical: Vec<f64> = m.singular_values().iter().map(|s| s.min(1.0)).collect();
    canonical.sort_by(|p, q| q.total_cmp(p));
    Ok(GaussianFit { plugin, corrected, canonical })
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

/// Each column of `m` replaced by its normal scores ([`normal_scores`]).
pub fn copula_transform(m: DMatrixView<'_, f64>) -> DMatrix<f64> {
    let mut out = DMatrix::zeros(m.nrows(), m.ncols());
    for (j, col) in m.column_iter().enumerate() {
        let v: Vec<f64> = col.iter().copied().collect();
        out.column_mut(j).copy_from_slice(&normal_scores(&v));
    }
    out
}

/// The Gaussian-copula estimate of `I(X; Y)` in nats (module docs).
pub fn copula_mi(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>) -> Result<f64> {
    check_inputs(x, y, x.ncols() + y.ncols() + 2)?;
    gaussian_mi(copula_transform(x).as_view(), copula_transform(y).as_view())
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
        let core = |a: DMatrixView<'_, f64>, b: DMatrixView<'_, f64>| gaussian_fit(a, b).map(fit_core);
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

    fn estimate(&self, x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, seed: u64) -> Result<Estimate> {
        let min_rows = x.ncols() + y.ncols() + 2;
        check_inputs(x, y, min_rows)?;
        let settings = SettingsUsed::Copula {
            scores: "Φ⁻¹(rank/(N+1)), ties averaged",
            bias_correction: "gcmi",
            subsamples: self.subsamples,
        };
        // Subsamples re-rank their own rows, as the estimator would on that data.
        let core = |a: DMatrixView<'_, f64>, b: DMatrixView<'_, f64>| {
            gaussian_fit(copula_transform(a).as_view(), copula_transform(b).as_view()).map(fit_core)
        };
        run(self.name(), "Gaussian copula".into(), settings, x, y, self.subsamples, min_rows, seed, &core)
    }
}
