//! Conditional mutual information `I(X; Y | Z)` and a test of conditional independence.
//!
//! **Frenzel–Pompe KSG** ([`cmi_ksg`]). With `ε_i` the max-norm distance from row `i` to its
//! k-th nearest neighbour in the joint space `(x, y, z)` (row `i` excluded), and strict counts
//! of the other rows within `ε_i` in the subspaces `(x, z)`, `(y, z)` and `z`,
//!
//! `Î(X; Y | Z) = ψ(k) − ⟨ψ(n_xz + 1) + ψ(n_yz + 1) − ψ(n_z + 1)⟩`
//!
//! (Frenzel & Pompe 2007, eq. 7; KSG-1's construction applied to
//! `I(X;Y|Z) = H(X,Z) + H(Y,Z) − H(X,Y,Z) − H(Z)`). This is ennemi's `estimate_mi(…, cond=…)`
//! and Runge's CMIknn statistic. The [`ConditionalEstimator`] standardises each column and adds
//! scikit-learn's tie-breaking noise first, as [`super::Ksg`] does.
//!
//! **Gaussian** ([`gaussian_cmi`]). For jointly normal variables
//! `I(X; Y | Z) = ½ ln(|Σ_xz| |Σ_yz| / (|Σ_z| |Σ_xyz|))`, computed by the chain rule
//! `I(X; (Y, Z)) − I(X; Z)` from [`super::gaussian_mi`], whose bias corrections combine into
//! gcmi's `cmi_ggg(…, biascorrect=True)` correction
//! `−½[Σ_{i≤d_xz} + Σ_{i≤d_yz} − Σ_{i≤d_xyz} − Σ_{i≤d_z}] ψ((N − i)/2)` exactly.
//!
//! **Test of conditional independence** ([`ci_test`]): Runge (2018)'s local permutation test.
//! A global permutation of `x` destroys its dependence on `z` too: it samples the null
//! `X ⊥ (Y, Z)`, not `X ⊥ Y | Z`, and the statistic's distribution under the two differs (the
//! estimator's bias depends on how `x` depends on `z`), so its level is not controlled. Instead,
//! for each permutation, each row
//! `i` takes the `x` of a row drawn among the `k_perm` nearest neighbours of `z_i` in `z`-space
//! (row `i` included), preferring rows not yet used: rows are visited in a random order, each
//! row's neighbour list is shuffled, and the first unused neighbour is taken (the last one when
//! all are used). This keeps `p(x | z)` approximately and breaks only the dependence of `x` on
//! `y` given `z`. The p-value is `(1 + #{b : T_b ≥ T}) / (1 + B)` with `T` the Frenzel–Pompe
//! statistic. It is exact only as `k_perm`-neighbourhoods shrink; its level is measured in
//! `tests/conditional_independence.rs` (3 of 200 rejections at 5 % on a common cause, 49 of
//! 50 on a collider, n = 250).
//!
//! References: S. Frenzel, B. Pompe, *Partial mutual information for coupling analysis of
//! multivariate time series*, Phys. Rev. Lett. 99, 204101 (2007); J. Runge, *Conditional
//! independence testing based on a nearest-neighbor estimator of conditional mutual
//! information*, AISTATS 2018 (tigramite's `CMIknn`); R. A. A. Ince et al. 2017 (gcmi).

use super::interval::DEFAULT_SUBSAMPLES;
use super::knn::{self, Norm};
use super::ksg::{add_tie_noise, standardize};
use super::{Core, DEFAULT_K, digamma, digamma_table, gaussian_mi, row_major, run};
use crate::bounds::{BoundKind, BoundSpec};
use crate::data::rng;
use crate::error::{Error, Result};
use crate::estimators::significance::PermutationTest;
use crate::estimators::{Estimate, EstimatorSpec, SettingsUsed, check_given, check_inputs, side_by_side};
use crate::rng::shuffle;
use nalgebra::DMatrixView;
use rand::RngExt;
use rayon::prelude::*;

/// The columns of `parts` side by side, row-major.
fn concat_rows(parts: &[DMatrixView<'_, f64>]) -> (Vec<f64>, usize) {
    let n = parts[0].nrows();
    let d: usize = parts.iter().map(|p| p.ncols()).sum();
    let mut out = vec![0.0; n * d];
    let mut off = 0;
    for p in parts {
        for (j, col) in p.column_iter().enumerate() {
            for (i, &v) in col.iter().enumerate() {
                out[i * d + off + j] = v;
            }
        }
        off += p.ncols();
    }
    (out, d)
}

/// The Frenzel–Pompe estimate (module docs) of `I(X; Y | Z)` in nats, on the rows as given (no
/// standardisation, no noise). Errors: mismatched rows, an empty side, a non-finite value, `k = 0`
/// or `k ≥ n`.
pub fn cmi_ksg(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, z: DMatrixView<'_, f64>, k: usize) -> Result<f64> {
    if k == 0 {
        return Err(Error::param("cmi k", k, "must be at least 1"));
    }
    check_inputs(x, y, 2)?;
    check_given(x, z)?;
    let n = x.nrows();
    if k >= n {
        return Err(Error::param("cmi k", k, &format!("must be smaller than the number of rows ({n})")));
    }
    let (xyz, d) = concat_rows(&[x, y, z]);
    let eps = knn::knn_map(&xyz, d, k, Norm::Max, |_, e, _| e);
    drop(xyz);
    let count = |parts: &[DMatrixView<'_, f64>]| {
        let (data, d) = concat_rows(parts);
        knn::count_within(&data, d, &eps, true)
    };
    let (nxz, nyz, nz) = (count(&[x, z]), count(&[y, z]), count(&[z]));
    let psi = digamma_table(n + 1);
    let sum: f64 = (0..n).map(|i| psi[nxz[i] as usize + 1] + psi[nyz[i] as usize + 1] - psi[nz[i] as usize + 1]).sum();
    Ok(digamma(k as f64) - sum / n as f64)
}

/// The bias-corrected Gaussian `I(X; Y | Z)` in nats (module docs). Needs
/// `N ≥ d_x + d_y + d_z + 2` rows.
pub fn gaussian_cmi(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, z: DMatrixView<'_, f64>) -> Result<f64> {
    check_inputs(x, y, 2)?;
    check_given(x, z)?;
    Ok(gaussian_mi(x, side_by_side(y, z).as_view())? - gaussian_mi(x, z)?)
}

/// A conditional estimator chosen by name: the conditional form of `ksg:k=K` (Frenzel–Pompe),
/// of `gaussian`, or of a neural lower bound (`infonce`, `smile:5`, …: the chain rule of
/// [`crate::estimators::neural::conditional_estimate`]). Other estimators have no conditional
/// form here.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "family", rename_all = "lowercase")]
pub enum ConditionalSpec {
    /// Frenzel–Pompe with `k` neighbours.
    Ksg {
        /// Neighbours.
        k: usize,
    },
    /// The Gaussian closed form.
    Gaussian,
    /// A neural lower bound, by the chain rule `I(X; (Y, Z)) − I(X; Z)`.
    Neural {
        /// The bound.
        bound: BoundSpec,
    },
}

/// What a user whose x, y or z columns look like class labels is told with `I(X; Y | Z)`
/// (data rule 6, on the command line and in Python).
pub const GIVEN_LABEL_HINT: &str = "every conditional estimator here reads numbers (mibound has no conditional estimator for labels yet): read the estimate with care";

/// The conditional estimators run when none is named (`mibound estimate --given`): Frenzel–Pompe
/// with [`DEFAULT_K`] neighbours (the headline) and the Gaussian form beside it.
pub const DEFAULT_CONDITIONAL: [ConditionalSpec; 2] =
    [ConditionalSpec::Ksg { k: DEFAULT_K }, ConditionalSpec::Gaussian];

impl ConditionalSpec {
    /// The conditional form of `spec`; an error naming the estimators that have one.
    pub fn from_spec(spec: &EstimatorSpec) -> Result<Self> {
        match *spec {
            EstimatorSpec::Ksg { k, variant: 1, normal_scores: false } => Ok(ConditionalSpec::Ksg { k }),
            EstimatorSpec::Gaussian => Ok(ConditionalSpec::Gaussian),
            EstimatorSpec::Neural { bound } if bound.build::<f32>()?.kind() == BoundKind::Lower => {
                Ok(ConditionalSpec::Neural { bound })
            }
            other => Err(Error::param(
                "estimator",
                other,
                "has no conditional form; with a conditioning set use ksg[:k=K] (Frenzel–Pompe), gaussian or a neural lower bound (infonce, smile:5, …)",
            )),
        }
    }

    /// The classical estimator with its default preprocessing and interval. A neural bound
    /// trains critics, with settings: [`crate::estimators::compare_given`] runs it.
    pub fn build(&self) -> Result<ConditionalEstimator> {
        match self {
            ConditionalSpec::Ksg { k: 0 } => return Err(Error::param("cmi k", 0, "must be at least 1")),
            ConditionalSpec::Neural { bound } => return Err(needs_settings(bound)),
            _ => {}
        }
        Ok(ConditionalEstimator { spec: *self, noise: 1e-10, subsamples: DEFAULT_SUBSAMPLES })
    }
}

/// Why a neural conditional spec cannot be built or run as a classical estimator.
fn needs_settings(bound: &BoundSpec) -> Error {
    Error::param(
        "estimator",
        bound,
        "a neural conditional estimate trains critics with the neural settings: run it with compare_given or neural::conditional_estimate",
    )
}

impl std::fmt::Display for ConditionalSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConditionalSpec::Ksg { k } => write!(f, "ksg:k={k}"),
            ConditionalSpec::Gaussian => write!(f, "gaussian"),
            ConditionalSpec::Neural { bound } => write!(f, "{bound}"),
        }
    }
}

/// An estimator of `I(X; Y | Z)` with an interval: Frenzel–Pompe KSG or the Gaussian form.
#[derive(Clone, Debug, PartialEq)]
pub struct ConditionalEstimator {
    /// Which estimate.
    pub spec: ConditionalSpec,
    /// Relative size of KSG's tie-breaking noise (default 1e-10; 0 for none).
    pub noise: f64,
    /// Subsamples for the interval (default [`DEFAULT_SUBSAMPLES`]; 0 for none).
    pub subsamples: usize,
}

impl ConditionalEstimator {
    /// Estimates `I(X; Y | Z)` from paired rows of `x`, `y` and `z`; the same seed gives the same
    /// estimate. The estimate's `dim_y` counts `y`'s columns only.
    pub fn estimate(
        &self,
        x: DMatrixView<'_, f64>,
        y: DMatrixView<'_, f64>,
        z: DMatrixView<'_, f64>,
        seed: u64,
    ) -> Result<Estimate> {
        let (dy, dz) = (y.ncols(), z.ncols());
        let min_rows = match self.spec {
            ConditionalSpec::Ksg { k } => k + 1,
            ConditionalSpec::Gaussian => x.ncols() + dy + dz + 2,
            ConditionalSpec::Neural { bound } => return Err(needs_settings(&bound)),
        };
        check_inputs(x, y, min_rows)?;
        check_given(x, z)?;
        let (mut xm, mut yzm) = (x.into_owned(), side_by_side(y, z));
        let (label, settings) = match self.spec {
            ConditionalSpec::Ksg { k } => {
                standardize(&mut xm);
                standardize(&mut yzm);
                if self.noise > 0.0 {
                    let mut g = rng(seed);
                    add_tie_noise(&mut xm, self.noise, &mut g);
                    add_tie_noise(&mut yzm, self.noise, &mut g);
                }
                (
                    format!("Frenzel–Pompe KSG (k={k})"),
                    SettingsUsed::NearestNeighbours {
                        k,
                        norm: "max",
                        standardize: true,
                        noise: Some(self.noise),
                        subsamples: self.subsamples,
                    },
                )
            }
            ConditionalSpec::Gaussian => (
                "Gaussian CMI".to_string(),
                SettingsUsed::Gaussian { bias_correction: "gcmi", subsamples: self.subsamples },
            ),
            ConditionalSpec::Neural { .. } => unreachable!("refused by the match on min_rows above"),
        };
        let spec = self.spec;
        // `run` subsamples rows of two matrices: carry (y, z) side by side and split here.
        let core = move |a: DMatrixView<'_, f64>, b: DMatrixView<'_, f64>| -> Result<Core> {
            let (yv, zv) = (b.columns(0, dy), b.columns(dy, dz));
            let value = match spec {
                ConditionalSpec::Ksg { k } => cmi_ksg(a, yv, zv, k)?,
                ConditionalSpec::Gaussian => gaussian_cmi(a, yv, zv)?,
                ConditionalSpec::Neural { .. } => unreachable!("refused by the match on min_rows above"),
            };
            Ok(Core { value, values: Vec::new(), warnings: Vec::new() })
        };
        let mut e = run(
            format!("{}|z", self.spec),
            label,
            settings,
            xm.as_view(),
            yzm.as_view(),
            self.subsamples,
            min_rows,
            seed,
            &core,
        )?;
        e.dim_y = dy;
        e.diagnostics.values.insert("dim_z".into(), dz as f64);
        Ok(e)
    }
}

/// Settings of [`ci_test`].
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CiTestConfig {
    /// Neighbours of the Frenzel–Pompe statistic (default [`DEFAULT_K`]).
    pub k: usize,
    /// Size of the `z`-neighbourhoods within which `x` is permuted, row itself included
    /// (default 5, as Runge 2018).
    pub k_perm: usize,
    /// Permutations `B` (default 199).
    pub permutations: usize,
}

impl Default for CiTestConfig {
    fn default() -> Self {
        CiTestConfig { k: DEFAULT_K, k_perm: 5, permutations: 199 }
    }
}

/// One local permutation (module docs): `perm[i]` is the row whose `x` row `i` takes.
fn local_permutation(neighbours: &[Vec<u32>], g: &mut crate::rng::Xoshiro) -> Vec<usize> {
    let n = neighbours.len();
    let mut order: Vec<usize> = (0..n).collect();
    shuffle(&mut order, g);
    let mut used = vec![false; n];
    let mut perm = vec![0usize; n];
    let mut list: Vec<u32> = Vec::new();
    for &i in &order {
        list.clear();
        list.extend_from_slice(&neighbours[i]);
        shuffle(&mut list, g);
        let pick = list.iter().copied().find(|&j| !used[j as usize]).unwrap_or(list[list.len() - 1]) as usize;
        used[pick] = true;
        perm[i] = pick;
    }
    perm
}

/// Runge's local permutation test of `X ⊥ Y | Z` (module docs). The columns are standardised
/// and get tie-breaking noise (seeded) once, before the permutations. Errors: as [`cmi_ksg`],
/// `k_perm = 0` or `k_perm > n`, no permutations.
pub fn ci_test(
    x: DMatrixView<'_, f64>,
    y: DMatrixView<'_, f64>,
    z: DMatrixView<'_, f64>,
    config: &CiTestConfig,
    seed: u64,
) -> Result<PermutationTest> {
    let n = x.nrows();
    if config.permutations == 0 {
        return Err(Error::param("permutations", 0, "must be at least 1"));
    }
    if config.k_perm == 0 || config.k_perm > n {
        return Err(Error::param("k_perm", config.k_perm, &format!("must be between 1 and the number of rows ({n})")));
    }
    let mut g = rng(seed);
    let prep = |m: DMatrixView<'_, f64>, g: &mut crate::rng::Xoshiro| {
        let mut m = m.into_owned();
        standardize(&mut m);
        add_tie_noise(&mut m, 1e-10, g);
        m
    };
    let (xs, ys, zs) = (prep(x, &mut g), prep(y, &mut g), prep(z, &mut g));
    let observed = cmi_ksg(xs.as_view(), ys.as_view(), zs.as_view(), config.k)?;
    let zr = row_major(zs.as_view());
    let neighbours: Vec<Vec<u32>> = if config.k_perm > 1 {
        knn::knn_map(&zr, zs.ncols(), config.k_perm - 1, Norm::Max, |i, _, nb| {
            std::iter::once(i as u32).chain(nb.iter().copied()).collect()
        })
    } else {
        (0..n as u32).map(|i| vec![i]).collect()
    };
    let seeds: Vec<u64> = (0..config.permutations).map(|_| g.random()).collect();
    let null: Vec<f64> = seeds
        .par_iter()
        .map(|&s| {
            let perm = local_permutation(&neighbours, &mut rng(s));
            cmi_ksg(xs.select_rows(&perm).as_view(), ys.as_view(), zs.as_view(), config.k)
        })
        .collect::<Result<_>>()?;
    let at_least = null.iter().filter(|&&t| t >= observed).count();
    Ok(PermutationTest {
        statistic: format!("cmi ksg:k={} with local permutations (k_perm = {})", config.k, config.k_perm),
        observed,
        p_value: (1 + at_least) as f64 / (1 + config.permutations) as f64,
        permutations: config.permutations,
        rows: n,
    })
}
