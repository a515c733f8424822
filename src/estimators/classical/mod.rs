//! Classical (non-neural) estimators of mutual information, behind the same [`Estimator`]
//! interface as the neural bounds.
//!
//! | name | estimator | module |
//! |---|---|---|
//! | `ksg`, `ksg:k=3`, `ksg:k=5:variant=2` | Kraskov–Stögbauer–Grassberger k-nearest-neighbour estimate (KSG-1 / KSG-2) | [`ksg`] |
//! | `gaussian` (alias `cca`) | `½ ln(|Σx||Σy|/|Σ|)` from the sample covariance, bias-corrected | [`gaussian`] |
//! | `copula` | the Gaussian formula on normal scores of the ranks (Gaussian copula) | [`gaussian`] |
//! | `binned`, `binned:bins=8` | plug-in estimate on an equal-width histogram | [`binned`] |
//! | `discrete`, `discrete:correction=none` | two discrete sides: plug-in with Miller–Madow correction | [`discrete`] |
//! | `ross`, `ross:k=3:discrete=x` | one discrete side, one continuous (Ross 2014) | [`mixed`] |
//! | `mixed-ksg`, `mixed-ksg:k=5` | any mixture of discrete and continuous coordinates (Gao et al. 2017) | [`mixed`] |
//!
//! Beyond one pair: [`conditional`] (`I(X; Y | Z)`: Frenzel–Pompe KSG, the Gaussian form, and
//! Runge's local-permutation test of conditional independence) and [`features`] (the MI of every
//! column against a target, scikit-learn's `mutual_info_regression`/`mutual_info_classif`, and
//! the all-pairs matrix). Column kinds ([`crate::data::VarKind`]) decide which estimators apply:
//! [`check_kinds`].
//!
//! All are point estimates ([`Kind::Estimate`]), not bounds, except the copula estimate where
//! each side passes the tests of [`normality`] ([`Kind::Lower`]: [`gaussian`]'s docs). Each comes with a 95 % interval from
//! subsampling without replacement ([`interval`]), and with a plain function that the tests,
//! the command line and other estimators can call directly: [`ksg_mi`], [`gaussian_mi`],
//! [`copula_mi`], [`binned_mi`], and [`kl_entropy`] (Kozachenko–Leonenko differential entropy,
//! e.g. to supply `H(Y)` to Barber–Agakov when no analytic entropy is known).
//!
//! Parameters are parsed by [`EstimatorSpec`] in the crate's one name grammar
//! ([`crate::names`]): `family[:param]…`, each parameter `key=value` or, for the first one, the
//! bare value (`ksg:3` = `ksg:k=3`). An unknown key, a repeated key, a value out of range
//! (`k = 0`, `bins < 2`, a negative number) is an [`Error`], never a panic.
//!
//! References: A. Kraskov, H. Stögbauer, P. Grassberger, *Estimating mutual information*,
//! Phys. Rev. E 69, 066138 (2004); L. F. Kozachenko, N. N. Leonenko, *Sample estimate of the
//! entropy of a random vector*, Probl. Peredachi Inf. 23(2), 9–16 (1987); R. A. A. Ince et al.,
//! *A statistical framework for neuroimaging data analysis based on mutual information
//! estimated via a Gaussian copula*, Hum. Brain Mapp. 38, 1541–1573 (2017) ("gcmi").

pub mod binned;
pub mod conditional;
pub mod discrete;
pub mod entropy;
pub mod features;
pub mod gaussian;
pub mod interval;
mod knn;
pub mod ksg;
pub mod mixed;
pub mod normality;

pub use binned::{Binned, binned_mi, default_bins};
pub use conditional::{
    CiTestConfig, ConditionalEstimator, ConditionalSpec, DEFAULT_CONDITIONAL, GIVEN_LABEL_HINT, ci_test, cmi_ksg,
    gaussian_cmi,
};
pub use discrete::{Discrete, DiscreteCorrection, DiscreteMi, discrete_mi, discrete_mi_codes};
pub use entropy::{EntropyNorm, KozachenkoLeonenko, kl_entropy};
pub use features::{TieNoise, feature_mi, mi_matrix};
pub use gaussian::{
    Copula, Gaussian, canonical_correlations, copula_mi, gaussian_mi, gaussian_mi_plugin, normal_scores,
};
pub use interval::{DEFAULT_SUBSAMPLES, EstimateFn, Subsampled, subsampling_interval};
pub use ksg::{Ksg, KsgMargins, KsgSearch, KsgVariant, ksg_mi, ksg_with, normal_score_blocks};
pub use mixed::{
    MixedKsg, ROSS_DEFAULT_K, Ross, Side, check_kinds, check_label_columns, label_estimator, mixed_ksg_mi,
    reads_labels, ross_mi,
};

pub use crate::numerics::digamma;

use super::{Estimate, Estimator, EstimatorSpec, Kind};
use crate::error::{Error, Result};
use nalgebra::DMatrixView;
use std::time::Instant;

/// Default number of neighbours of KSG (as bmi; scikit-learn uses 3).
pub const DEFAULT_K: usize = 5;

/// Neighbours of KSG where it is the default's headline: on normal scores up to
/// [`super::LOW_DIMENSION`] joint dimensions, and within each block of `ksg-blocks` (also its
/// default `k`), blocks of at most that many dimensions.
pub const HEADLINE_K: usize = 3;

/// The classical names, written once: [`NAMES`] and the list of every estimator
/// ([`crate::estimators::EstimatorSpec::NAMES`]) are made of it.
macro_rules! classical_names {
    () => {
        "ksg[:k=5][:variant=1|2][:margins=standard|normal], ksg-blocks[:k=3], gaussian (cca), copula, binned[:bins=B], discrete[:correction=mm|none], ross[:k=3][:discrete=y|x], mixed-ksg[:k=5]"
    };
}
pub(crate) use classical_names;

/// The classical names, for error messages and `--help`.
pub const NAMES: &str = classical_names!();

/// Parses a classical estimator name. `None` when the family is not a classical one (the
/// caller then tries the neural names); `Some(Err(..))` for a classical family with bad
/// parameters.
pub(crate) fn parse_spec(s: &str) -> Option<Result<EstimatorSpec>> {
    let name = crate::names::Name::parse(s);
    let family = name.family.as_str();
    let keys: &[&str] = match family {
        "ksg" => &["k", "variant", "margins"],
        "ksg-blocks" => &["k"],
        "gaussian" | "cca" | "copula" => &[],
        "binned" => &["bins"],
        "discrete" => &["correction"],
        "ross" => &["k", "discrete"],
        "mixed-ksg" => &["k"],
        _ => return None,
    };
    Some(name.params(keys, 1).and_then(|values| {
        let get = |key: &str| values.get(key);
        Ok(match family {
            "ksg" => {
                let k = get("k").map_or(Ok(DEFAULT_K), |v| parse_count("ksg k", v, 1))?;
                let variant = match get("variant") {
                    None | Some("1") => 1,
                    Some("2") => 2,
                    Some(v) => return Err(Error::param("ksg variant", v, "must be 1 or 2")),
                };
                let normal_scores = match get("margins") {
                    None | Some("standard") => false,
                    Some("normal") => true,
                    Some(v) => {
                        return Err(Error::param(
                            "ksg margins",
                            v,
                            "must be standard (each column scaled) or normal (normal scores)",
                        ));
                    }
                };
                EstimatorSpec::Ksg { k, variant, normal_scores }
            }
            "ksg-blocks" => {
                EstimatorSpec::KsgBlocks { k: get("k").map_or(Ok(HEADLINE_K), |v| parse_count("ksg-blocks k", v, 1))? }
            }
            "gaussian" | "cca" => EstimatorSpec::Gaussian,
            "copula" => EstimatorSpec::Copula,
            "discrete" => EstimatorSpec::Discrete {
                miller_madow: match get("correction") {
                    None | Some("mm") | Some("miller-madow") => true,
                    Some("none") => false,
                    Some(v) => return Err(Error::param("discrete correction", v, "must be mm (Miller–Madow) or none")),
                },
            },
            "ross" => EstimatorSpec::Ross {
                k: get("k").map_or(Ok(ROSS_DEFAULT_K), |v| parse_count("ross k", v, 1))?,
                discrete_x: match get("discrete") {
                    None | Some("y") => false,
                    Some("x") => true,
                    Some(v) => {
                        return Err(Error::param("ross discrete", v, "must be x or y (the side holding the label)"));
                    }
                },
            },
            "mixed-ksg" => {
                EstimatorSpec::MixedKsg { k: get("k").map_or(Ok(DEFAULT_K), |v| parse_count("mixed-ksg k", v, 1))? }
            }
            _ => EstimatorSpec::Binned { bins: get("bins").map(|v| parse_count("binned bins", v, 2)).transpose()? },
        })
    }))
}

/// A whole number `≥ min`.
fn parse_count(what: &str, v: &str, min: usize) -> Result<usize> {
    match v.parse::<usize>() {
        Ok(c) if c >= min => Ok(c),
        Ok(c) => Err(Error::param(what, c, &format!("must be at least {min}"))),
        Err(_) => Err(Error::param(what, v, &format!("must be a whole number ≥ {min}"))),
    }
}

/// Writes the canonical name of a classical spec (`ksg:k=5`, `ksg:k=3:variant=2`, `gaussian`,
/// `copula`, `binned`, `binned:bins=8`); `None` for other families.
pub(crate) fn spec_name(spec: &EstimatorSpec) -> Option<String> {
    Some(match *spec {
        EstimatorSpec::Ksg { k, variant, normal_scores } => {
            let v = if variant == 1 { String::new() } else { format!(":variant={variant}") };
            let m = if normal_scores { ":margins=normal" } else { "" };
            format!("ksg:k={k}{v}{m}")
        }
        EstimatorSpec::KsgBlocks { k } => format!("ksg-blocks:k={k}"),
        EstimatorSpec::Gaussian => "gaussian".into(),
        EstimatorSpec::Copula => "copula".into(),
        EstimatorSpec::Binned { bins: None } => "binned".into(),
        EstimatorSpec::Binned { bins: Some(b) } => format!("binned:bins={b}"),
        EstimatorSpec::Discrete { miller_madow: true } => "discrete".into(),
        EstimatorSpec::Discrete { miller_madow: false } => "discrete:correction=none".into(),
        EstimatorSpec::Ross { k, discrete_x: false } => format!("ross:k={k}"),
        EstimatorSpec::Ross { k, discrete_x: true } => format!("ross:k={k}:discrete=x"),
        EstimatorSpec::MixedKsg { k } => format!("mixed-ksg:k={k}"),
        _ => return None,
    })
}

/// Builds a classical estimator with its default settings (standardisation and tie-breaking
/// noise for KSG, [`DEFAULT_SUBSAMPLES`] subsamples for the interval). An error for a neural
/// spec or for out-of-range parameters.
pub fn build(spec: &EstimatorSpec) -> Result<Box<dyn Estimator>> {
    Ok(match *spec {
        EstimatorSpec::Ksg { k, variant, normal_scores } => {
            let margins = if normal_scores { KsgMargins::NormalScores } else { KsgMargins::Standardized };
            Box::new(Ksg { margins, ..Ksg::new(k, KsgVariant::from_number(variant)?)? })
        }
        EstimatorSpec::KsgBlocks { k } => {
            Box::new(Ksg { margins: KsgMargins::NormalScores, blocks: true, ..Ksg::new(k, KsgVariant::Ksg1)? })
        }
        EstimatorSpec::Gaussian => Box::new(Gaussian::default()),
        EstimatorSpec::Copula => Box::new(Copula::default()),
        EstimatorSpec::Binned { bins } => Box::new(Binned::new(bins)?),
        EstimatorSpec::Discrete { miller_madow } => Box::new(Discrete::new(if miller_madow {
            DiscreteCorrection::MillerMadow
        } else {
            DiscreteCorrection::None
        })),
        EstimatorSpec::Ross { k, discrete_x } => Box::new(Ross::new(k, if discrete_x { Side::X } else { Side::Y })?),
        EstimatorSpec::MixedKsg { k } => Box::new(MixedKsg::new(k)?),
        _ => {
            return Err(Error::param("estimator", spec, &format!("not a classical estimator; classical: {NAMES}")));
        }
    })
}

/// `ψ(1), …, ψ(n)` (index `m` holds `ψ(m)`; index 0 is unused).
pub(crate) fn digamma_table(n: usize) -> Vec<f64> {
    let mut t = vec![f64::NAN; n + 1];
    for (m, v) in t.iter_mut().enumerate().skip(1) {
        *v = digamma(m as f64);
    }
    t
}

/// The rows of `m` as one row-major vector.
pub(crate) fn row_major(m: DMatrixView<'_, f64>) -> Vec<f64> {
    let (n, d) = m.shape();
    let mut out = vec![0.0; n * d];
    for j in 0..d {
        for (i, &v) in m.column(j).iter().enumerate() {
            out[i * d + j] = v;
        }
    }
    out
}

/// What an estimator's core returns: its value and named diagnostics.
pub(crate) struct Core {
    pub value: f64,
    pub values: Vec<(String, f64)>,
    pub warnings: Vec<super::Warning>,
}

/// An estimator's core as a function of the rows of `x` and `y`.
pub(crate) type CoreFn<'a> = dyn Fn(DMatrixView<'_, f64>, DMatrixView<'_, f64>) -> Result<Core> + Sync + 'a;

/// Runs `core` on the full sample, then on subsamples for the interval, and packs an
/// [`Estimate`]. `core` must be a deterministic function of its rows.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    name: String,
    label: String,
    settings: super::SettingsUsed,
    x: DMatrixView<'_, f64>,
    y: DMatrixView<'_, f64>,
    subsamples: usize,
    min_rows: usize,
    seed: u64,
    core: &CoreFn<'_>,
) -> Result<Estimate> {
    let start = Instant::now();
    let full = core(x, y)?;
    let sub = subsampling_interval(x, y, full.value, subsamples, min_rows, seed, &|a, b| core(a, b).map(|c| c.value))?;
    let mut diagnostics = super::Diagnostics { warnings: full.warnings, ..Default::default() };
    diagnostics.values.extend(full.values);
    if let Some(w) = sub.warning {
        diagnostics.warnings.push(w);
    }
    if sub.values.len() > 1 {
        diagnostics.values.insert("subsample_sd".into(), sub.sd);
        diagnostics.values.insert("subsample_shift".into(), sub.shift);
    }
    let mut est =
        Estimate::new(name, label, full.value, sub.interval, Kind::Estimate, (x.nrows(), x.ncols(), y.ncols()))
            .with_settings(settings)
            .with_diagnostics(diagnostics);
    est.wall_seconds = start.elapsed().as_secs_f64();
    Ok(est)
}
