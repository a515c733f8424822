//! The plug-in estimate of `I(X; Y)` for two discrete variables, with the Miller–Madow bias
//! correction.
//!
//! Each side (one or more discrete columns) is read as one label per row
//! ([`crate::data::kinds::codes`]: a distinct row is a distinct label). With counts `c_xy` of
//! the occupied label pairs and their margins `c_x`, `c_y` over `N` rows:
//!
//! - **plug-in** (the MI of the empirical distribution; scikit-learn's `mutual_info_score`):
//!   `Î = Σ (c_xy/N) ln(N c_xy / (c_x c_y))`;
//! - **Miller–Madow** (Miller 1955): each plug-in entropy is biased down by
//!   `(K − 1)/(2N) + O(N⁻²)` for `K` occupied cells, so with `I = H(X) + H(Y) − H(X, Y)`,
//!   `Î_MM = Î + (K_x + K_y − K_xy − 1)/(2N)`. The correction is usually negative: the plug-in is
//!   biased upward (by about `(K_x − 1)(K_y − 1)/(2N)` at independence).
//!
//! The value is not clipped at 0 (Miller–Madow can go slightly below 0 at independence).
//!
//! **Interval.** Subsampling without replacement ([`super::interval`]), as for the other
//! classical estimators; the delta-method standard error
//! `√((Σ p_xy ℓ_xy² − Î²)/N)`, `ℓ_xy = ln(p_xy/(p_x p_y))` (Basharin 1959 for entropy; the
//! same argument for MI) is reported as the diagnostic `delta_se`. Neither covers the bias left
//! after the correction, which is `O(N⁻²)` only while every cell holds several rows: with
//! `K_xy` near `N` both the estimate and its interval are meaningless, and the estimator says
//! so in a warning (fewer than 5 rows per occupied cell).
//!
//! References: G. A. Miller, *Note on the bias of information estimates*, in Information
//! Theory in Psychology (1955), 95–100; L. Paninski, *Estimation of entropy and mutual
//! information*, Neural Comput. 15, 1191–1253 (2003).

use super::interval::DEFAULT_SUBSAMPLES;
use super::{Core, run};
use crate::data::kinds::codes;
use crate::error::{Error, Result};
use crate::estimators::{Estimate, Estimator, EstimatorSpec, Kind, SettingsUsed, Warning, WarningCode, check_inputs};
use nalgebra::DMatrixView;
use std::collections::HashMap;

/// The plug-in estimate with its correction and cell counts.
#[derive(Clone, Debug, PartialEq)]
pub struct DiscreteMi {
    /// The plug-in `Î` in nats.
    pub plugin: f64,
    /// `Î_MM = Î + (K_x + K_y − K_xy − 1)/(2N)`.
    pub miller_madow: f64,
    /// Occupied labels of x, of y and of the pairs.
    pub levels: (usize, usize, usize),
    /// The delta-method standard error of the plug-in (module docs).
    pub delta_se: f64,
}

/// The plug-in and Miller–Madow estimates from label codes `x` and `y` (any `u32` labels; rows
/// pair up). Errors: different lengths, fewer than 2 rows.
pub fn discrete_mi_codes(x: &[u32], y: &[u32]) -> Result<DiscreteMi> {
    if x.len() != y.len() {
        return Err(Error::Shape {
            what: "x and y".into(),
            expected: format!("the same number of rows ({} in x)", x.len()),
            got: format!("{} rows in y", y.len()),
        });
    }
    let n = x.len();
    if n < 2 {
        return Err(Error::param("rows", n, "the discrete estimate needs at least 2"));
    }
    let mut cx: HashMap<u32, u64> = HashMap::new();
    let mut cy: HashMap<u32, u64> = HashMap::new();
    let mut cxy: HashMap<(u32, u32), u64> = HashMap::new();
    for (&a, &b) in x.iter().zip(y) {
        *cx.entry(a).or_default() += 1;
        *cy.entry(b).or_default() += 1;
        *cxy.entry((a, b)).or_default() += 1;
    }
    let nf = n as f64;
    // Sum in a fixed order (sorted cells) so the value does not depend on hashing.
    let mut cells: Vec<((u32, u32), u64)> = cxy.iter().map(|(&k, &v)| (k, v)).collect();
    cells.sort_unstable();
    let (mut mi, mut second) = (0.0, 0.0);
    for ((a, b), c) in &cells {
        let (c, ca, cb) = (*c as f64, cx[a] as f64, cy[b] as f64);
        let l = (nf * c / (ca * cb)).ln();
        mi += c / nf * l;
        second += c / nf * l * l;
    }
    let (kx, ky, kxy) = (cx.len(), cy.len(), cxy.len());
    let miller_madow = mi + (kx as f64 + ky as f64 - kxy as f64 - 1.0) / (2.0 * nf);
    let delta_se = ((second - mi * mi).max(0.0) / nf).sqrt();
    Ok(DiscreteMi { plugin: mi, miller_madow, levels: (kx, ky, kxy), delta_se })
}

/// [`discrete_mi_codes`] of two discrete sides given as matrices (each distinct row a label).
pub fn discrete_mi(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>) -> Result<DiscreteMi> {
    check_inputs(x, y, 2)?;
    discrete_mi_codes(&codes(x).0, &codes(y).0)
}

/// Which discrete estimate [`Discrete`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DiscreteCorrection {
    /// The plug-in, uncorrected (scikit-learn's `mutual_info_score`).
    None,
    /// Miller–Madow (default).
    MillerMadow,
}

/// The discrete–discrete estimator (`discrete`, `discrete:correction=none`); module docs.
#[derive(Clone, Debug, PartialEq)]
pub struct Discrete {
    /// Bias correction (default Miller–Madow).
    pub correction: DiscreteCorrection,
    /// Subsamples for the interval (default [`DEFAULT_SUBSAMPLES`]; 0 for none).
    pub subsamples: usize,
}

impl Discrete {
    /// The estimator with `correction` and the default interval.
    pub fn new(correction: DiscreteCorrection) -> Self {
        Discrete { correction, subsamples: DEFAULT_SUBSAMPLES }
    }
}

impl Estimator for Discrete {
    fn name(&self) -> String {
        EstimatorSpec::Discrete { miller_madow: self.correction == DiscreteCorrection::MillerMadow }.to_string()
    }

    fn kind(&self) -> Kind {
        Kind::Estimate
    }

    fn estimate(&self, x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, seed: u64) -> Result<Estimate> {
        check_inputs(x, y, 2)?;
        let correction = self.correction;
        let core = move |a: DMatrixView<'_, f64>, b: DMatrixView<'_, f64>| -> Result<Core> {
            let r = discrete_mi(a, b)?;
            let value = match correction {
                DiscreteCorrection::None => r.plugin,
                DiscreteCorrection::MillerMadow => r.miller_madow,
            };
            let (kx, ky, kxy) = r.levels;
            let mut warnings = Vec::new();
            let per_cell = a.nrows() as f64 / kxy as f64;
            if per_cell < 5.0 {
                let message = format!(
                    "{kxy} occupied (x, y) cells for {} rows ({per_cell:.1} rows per cell): the plug-in and its correction are unreliable with fewer than 5 rows per cell",
                    a.nrows()
                );
                warnings.push(Warning::new(WarningCode::SparseCells, message).with("rows_per_cell", per_cell));
            }
            Ok(Core {
                value,
                values: vec![
                    ("plugin".into(), r.plugin),
                    ("miller_madow".into(), r.miller_madow),
                    ("delta_se".into(), r.delta_se),
                    ("levels_x".into(), kx as f64),
                    ("levels_y".into(), ky as f64),
                    ("levels_xy".into(), kxy as f64),
                ],
                warnings,
            })
        };
        let settings = SettingsUsed::Discrete { correction: self.correction, subsamples: self.subsamples };
        let label = match self.correction {
            DiscreteCorrection::None => "discrete plug-in",
            DiscreteCorrection::MillerMadow => "discrete (Miller–Madow)",
        };
        run(self.name(), label.into(), settings, x, y, self.subsamples, 2, seed, &core)
    }
}
