//! Nearest-neighbour estimates of `I(X; Y)` when a variable is discrete or mixed.
//!
//! **Ross (2014)**, one discrete and one continuous side (what scikit-learn's
//! `mutual_info_classif` computes for a continuous feature against a class label, its
//! `_compute_mi_cd`). Rows whose label occurs once are dropped; `N` is the number of rows kept.
//! For row `i` with label `ℓ` occurring `N_ℓ` times, let `k_i = min(k, N_ℓ − 1)`, `d_i` the
//! distance from `c_i` to its `k_i`-th nearest neighbour **among the rows of the same label**,
//! and `m_i = #{j : ‖c_j − c_i‖ < d_i}` over all kept rows, row `i` included (scikit-learn takes
//! `≤ nextafter(d_i, 0)`, the same set; when `d_i = 0`, the rows equal to `c_i`). Then
//!
//! `Î = ψ(N) + ⟨ψ(k_i)⟩ − ⟨ψ(N_ℓ(i))⟩ − ⟨ψ(m_i)⟩`.
//!
//! Distances are max-norms (in one dimension `|c_j − c_i|`, as scikit-learn).
//!
//! **Mixed KSG (Gao et al. 2017)**, any mixture of discrete and continuous coordinates on either
//! side, ties included. With `ρ_i` the max-norm distance from row `i` to its k-th nearest
//! neighbour in the joint space (row `i` excluded):
//!
//! - if `ρ_i > 0`: `k̃_i = k`, `n_x(i) = #{j : ‖x_j − x_i‖ < ρ_i}`, `n_y(i)` likewise;
//! - if `ρ_i = 0` (row `i` sits on an atom): `k̃_i` = the rows equal to `(x_i, y_i)`, `n_x(i)`
//!   = the rows with `x_j = x_i`, `n_y(i)` likewise;
//!
//! counts including row `i`, and `Î = ⟨ψ(k̃_i) + ln N − ψ(n_x(i)) − ψ(n_y(i))⟩`. This is the
//! estimator of the authors' published code (`Mixed_KSG`, which takes `≤ ρ_i − 10⁻¹⁵` for the
//! strict count); the paper writes `ln(n + 1)` for `ψ(n)` with counts excluding `i`, which
//! differs by `O(1/n)` per row. On continuous data it is KSG-1 with `ln N` for `ψ(N)`; on
//! discrete data it is the plug-in estimate (up to the same digamma-versus-log terms).
//!
//! [`check_kinds`] decides which estimators accept which column kinds.
//!
//! References: B. C. Ross, *Mutual information between discrete and continuous data sets*,
//! PLoS ONE 9(2), e87357 (2014); W. Gao, S. Kannan, S. Oh, P. Viswanath, *Estimating mutual
//! information for discrete-continuous mixtures*, NeurIPS 2017.

use super::interval::DEFAULT_SUBSAMPLES;
use super::knn::{self, Norm};
use super::ksg::{add_tie_noise, scale_column, standardize};
use super::{Core, digamma, row_major, run};
use crate::data::VarKind;
use crate::data::kinds::{LabelColumns, codes, side_kind};
use crate::data::rng;
use crate::error::{Error, Result};
use crate::estimators::{Estimate, Estimator, EstimatorSpec, Kind, SettingsUsed, check_inputs};
use nalgebra::{DMatrix, DMatrixView};

/// How many rows share each row's code (row `i` included).
fn multiplicity(codes: &[u32], levels: usize) -> Vec<u32> {
    let mut count = vec![0u32; levels];
    codes.iter().for_each(|&c| count[c as usize] += 1);
    codes.iter().map(|&c| count[c as usize]).collect()
}

/// Ross's estimate (module docs) of `I(C; D)` for continuous rows `c` (`n × d`) and labels `d`
/// (`n` codes). Errors: different lengths, `k = 0`, no label occurring twice, a non-finite value.
pub fn ross_mi(c: DMatrixView<'_, f64>, labels: &[u32], k: usize) -> Result<f64> {
    if k == 0 {
        return Err(Error::param("ross k", k, "must be at least 1"));
    }
    check_inputs(c, c, 2)?;
    if labels.len() != c.nrows() {
        return Err(Error::Shape {
            what: "x and y".into(),
            expected: format!("the same number of rows ({} in x)", c.nrows()),
            got: format!("{} rows in y", labels.len()),
        });
    }
    let d = c.ncols();
    let data = row_major(c);
    // Group rows by label.
    let mut by_label: std::collections::BTreeMap<u32, Vec<usize>> = Default::default();
    for (i, &l) in labels.iter().enumerate() {
        by_label.entry(l).or_default().push(i);
    }
    let mut kept: Vec<usize> = Vec::with_capacity(c.nrows());
    let (mut radius, mut k_row, mut label_count) = (vec![0.0; c.nrows()], vec![0usize; c.nrows()], vec![0; c.nrows()]);
    for rows in by_label.values().filter(|r| r.len() > 1) {
        let kl = k.min(rows.len() - 1);
        let sub: Vec<f64> = rows.iter().flat_map(|&i| data[i * d..(i + 1) * d].iter().copied()).collect();
        let r = knn::knn_map(&sub, d, kl, Norm::Max, |_, dist, _| dist);
        for (&i, ri) in rows.iter().zip(r) {
            radius[i] = ri;
            k_row[i] = kl;
            label_count[i] = rows.len();
        }
        kept.extend(rows);
    }
    if kept.is_empty() {
        return Err(Error::param("labels", "every label once", "Ross's estimate needs a label that occurs twice"));
    }
    kept.sort_unstable();
    let n = kept.len();
    let kept_data: Vec<f64> = kept.iter().flat_map(|&i| data[i * d..(i + 1) * d].iter().copied()).collect();
    let kept_r: Vec<f64> = kept.iter().map(|&i| radius[i]).collect();
    let strict = knn::count_within(&kept_data, d, &kept_r, true);
    let kept_m = DMatrix::from_row_slice(n, d, &kept_data);
    let (dup_codes, levels) = codes(kept_m.as_view());
    let dups = multiplicity(&dup_codes, levels);
    let mut sum = 0.0;
    for (t, &i) in kept.iter().enumerate() {
        let m = if kept_r[t] > 0.0 { strict[t] + 1 } else { dups[t] };
        sum += digamma(k_row[i] as f64) - digamma(label_count[i] as f64) - digamma(m as f64);
    }
    Ok(digamma(n as f64) + sum / n as f64)
}

/// Gao et al.'s mixed KSG (module docs) of `I(X; Y)`. Errors: as [`super::ksg_mi`].
pub fn mixed_ksg_mi(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, k: usize) -> Result<f64> {
    if k == 0 {
        return Err(Error::param("mixed-ksg k", k, "must be at least 1"));
    }
    check_inputs(x, y, 2)?;
    let n = x.nrows();
    if k >= n {
        return Err(Error::param("mixed-ksg k", k, &format!("must be smaller than the number of rows ({n})")));
    }
    let (dx, dy) = (x.ncols(), y.ncols());
    let (xr, yr) = (row_major(x), row_major(y));
    let d = dx + dy;
    let mut joint = vec![0.0; n * d];
    for i in 0..n {
        joint[i * d..i * d + dx].copy_from_slice(&xr[i * dx..(i + 1) * dx]);
        joint[i * d + dx..(i + 1) * d].copy_from_slice(&yr[i * dy..(i + 1) * dy]);
    }
    let rho = knn::knn_map(&joint, d, k, Norm::Max, |_, dist, _| dist);
    let nx = knn::count_within(&xr, dx, &rho, true);
    let ny = knn::count_within(&yr, dy, &rho, true);
    let mult = |m: DMatrixView<'_, f64>| {
        let (c, l) = codes(m);
        multiplicity(&c, l)
    };
    let xy = DMatrix::from_row_slice(n, d, &joint);
    let (atoms_x, atoms_y, atoms_xy) = (mult(x), mult(y), mult(xy.as_view()));
    let ln_n = (n as f64).ln();
    let mut sum = 0.0;
    for i in 0..n {
        let (kt, a, b) =
            if rho[i] > 0.0 { (k as u32, nx[i] + 1, ny[i] + 1) } else { (atoms_xy[i], atoms_x[i], atoms_y[i]) };
        sum += digamma(kt as f64) + ln_n - digamma(a as f64) - digamma(b as f64);
    }
    Ok(sum / n as f64)
}

/// Which side of an estimate holds the discrete label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// `x`.
    X,
    /// `y` (the default: a class target).
    Y,
}

/// Ross's estimator (`ross`, `ross:k=3:discrete=x`); module docs. The continuous side is scaled
/// and gets tie-breaking noise as scikit-learn's `mutual_info_classif` does (each column divided
/// by its standard deviation, then `noise · max(1, mean|column|) · ε`).
#[derive(Clone, Debug, PartialEq)]
pub struct Ross {
    /// Neighbours (default 3, as scikit-learn).
    pub k: usize,
    /// The discrete side (default y).
    pub discrete: Side,
    /// Relative size of the tie-breaking noise (default 1e-10; 0 for none).
    pub noise: f64,
    /// Subsamples for the interval (default [`DEFAULT_SUBSAMPLES`]; 0 for none).
    pub subsamples: usize,
}

/// Default neighbours of Ross's estimator and of per-feature MI (scikit-learn's `n_neighbors`).
pub const ROSS_DEFAULT_K: usize = 3;

impl Ross {
    /// Ross's estimator with `k` neighbours and the label on `discrete`.
    pub fn new(k: usize, discrete: Side) -> Result<Self> {
        if k == 0 {
            return Err(Error::param("ross k", k, "must be at least 1"));
        }
        Ok(Ross { k, discrete, noise: 1e-10, subsamples: DEFAULT_SUBSAMPLES })
    }
}

/// Divides each column by its standard deviation (`1/N`), not centring, as scikit-learn's
/// `scale(X, with_mean=False)`; constant columns are left alone.
pub fn scale_columns(m: &mut DMatrix<f64>) {
    m.column_iter_mut().for_each(|mut c| scale_column(c.as_mut_slice()));
}

impl Estimator for Ross {
    fn name(&self) -> String {
        EstimatorSpec::Ross { k: self.k, discrete_x: self.discrete == Side::X }.to_string()
    }

    fn kind(&self) -> Kind {
        Kind::Estimate
    }

    fn estimate(&self, x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, seed: u64) -> Result<Estimate> {
        check_inputs(x, y, self.k + 1)?;
        let (c, lab) = match self.discrete {
            Side::Y => (x, y),
            Side::X => (y, x),
        };
        let mut cm = c.into_owned();
        scale_columns(&mut cm);
        if self.noise > 0.0 {
            add_tie_noise(&mut cm, self.noise, &mut rng(seed));
        }
        let k = self.k;
        let core = move |a: DMatrixView<'_, f64>, b: DMatrixView<'_, f64>| -> Result<Core> {
            let value = ross_mi(a, &codes(b).0, k)?;
            Ok(Core { value, values: Vec::new(), warnings: Vec::new() })
        };
        let settings = SettingsUsed::Ross {
            k: self.k,
            discrete: self.discrete,
            noise: self.noise,
            scale: "sd, not centred",
            subsamples: self.subsamples,
        };
        let label = format!("Ross (k={})", self.k);
        run(self.name(), label, settings, cm.as_view(), lab, self.subsamples, self.k + 1, seed, &core).map(|mut e| {
            // `run` saw (continuous, label); report the sides as given.
            if self.discrete == Side::X {
                (e.dim_x, e.dim_y) = (x.ncols(), y.ncols());
            }
            e
        })
    }
}

/// Gao et al.'s mixed KSG behind the [`Estimator`] interface (`mixed-ksg`, `mixed-ksg:k=5`):
/// each column standardised (ties stay ties), no noise (it would break the atoms).
#[derive(Clone, Debug, PartialEq)]
pub struct MixedKsg {
    /// Neighbours (default 5).
    pub k: usize,
    /// Subsamples for the interval (default [`DEFAULT_SUBSAMPLES`]; 0 for none).
    pub subsamples: usize,
}

impl MixedKsg {
    /// The mixed KSG with `k` neighbours.
    pub fn new(k: usize) -> Result<Self> {
        if k == 0 {
            return Err(Error::param("mixed-ksg k", k, "must be at least 1"));
        }
        Ok(MixedKsg { k, subsamples: DEFAULT_SUBSAMPLES })
    }
}

impl Estimator for MixedKsg {
    fn name(&self) -> String {
        EstimatorSpec::MixedKsg { k: self.k }.to_string()
    }

    fn kind(&self) -> Kind {
        Kind::Estimate
    }

    fn estimate(&self, x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, seed: u64) -> Result<Estimate> {
        check_inputs(x, y, self.k + 1)?;
        let (mut xm, mut ym) = (x.into_owned(), y.into_owned());
        standardize(&mut xm);
        standardize(&mut ym);
        let k = self.k;
        let core = move |a: DMatrixView<'_, f64>, b: DMatrixView<'_, f64>| -> Result<Core> {
            Ok(Core { value: mixed_ksg_mi(a, b, k)?, values: Vec::new(), warnings: Vec::new() })
        };
        let settings = SettingsUsed::NearestNeighbours {
            k: self.k,
            norm: "max",
            standardize: true,
            noise: None,
            subsamples: self.subsamples,
        };
        run(
            self.name(),
            format!("mixed KSG (k={})", self.k),
            settings,
            xm.as_view(),
            ym.as_view(),
            self.subsamples,
            k + 1,
            seed,
            &core,
        )
    }
}

/// [`check_kinds`] of every estimator of `specs` on `dx` columns of x and `dy` of y, of which
/// `labels` are class labels: the one check the command line (`--discrete`) and Python
/// (`discrete_x`/`discrete_y`) make.
pub fn check_label_columns(specs: &[EstimatorSpec], labels: &LabelColumns, dx: usize, dy: usize) -> Result<()> {
    let (kx, ky) = labels.kinds(dx, dy);
    specs.iter().try_for_each(|s| check_kinds(s, &kx, &ky))
}

/// Whether `spec` is an estimator for labels (`discrete`, `ross`, `mixed-ksg`), which reads a
/// discrete column as categories; every other estimator reads values as numbers.
pub fn reads_labels(spec: &EstimatorSpec) -> bool {
    matches!(spec, EstimatorSpec::Discrete { .. } | EstimatorSpec::Ross { .. } | EstimatorSpec::MixedKsg { .. })
}

/// Whether the estimator `spec` can use columns of kinds `x` and `y`: `Ok` or an
/// [`Error::VariableKind`] whose sentence names a better estimator. The neural bounds embed a
/// discrete column (one-hot); the flow, KSG, Gaussian, copula and binned estimators read every
/// value as a number and refuse one; `discrete` needs both sides discrete; `ross` one side discrete (the one it names) and
/// the other continuous; `mixed-ksg` takes anything.
pub fn check_kinds(spec: &EstimatorSpec, x: &[VarKind], y: &[VarKind]) -> Result<()> {
    let first = |side: &'static str, kinds: &[VarKind], want: VarKind| {
        kinds.iter().position(|&k| k != want).map(|column| (side, column, kinds[column]))
    };
    let both = |want: VarKind| first("x", x, want).or_else(|| first("y", y, want));
    let (bad, better) = match *spec {
        // Labels are one-hot encoded for the critic (`NeuralConfig::labels`); the plan refuses
        // a label y for a conditional model q(y|x).
        EstimatorSpec::MixedKsg { .. } | EstimatorSpec::Neural { .. } => return Ok(()),
        EstimatorSpec::Discrete { .. } => (
            both(VarKind::Discrete),
            "use ross (one side discrete, the other continuous) or mixed-ksg (any mixture)".to_string(),
        ),
        EstimatorSpec::Ross { discrete_x, .. } => {
            let (lab, cont, lab_side, cont_side) = if discrete_x { (x, y, "x", "y") } else { (y, x, "y", "x") };
            (
                first(lab_side, lab, VarKind::Discrete).or_else(|| first(cont_side, cont, VarKind::Continuous)),
                format!(
                    "ross needs {lab_side} discrete and {cont_side} continuous; use {} or mixed-ksg (any mixture)",
                    match (side_kind(x), side_kind(y)) {
                        (Some(VarKind::Discrete), Some(VarKind::Discrete)) => "discrete (both sides discrete)",
                        (Some(VarKind::Discrete), Some(VarKind::Continuous)) => "ross:discrete=x",
                        (Some(VarKind::Continuous), Some(VarKind::Discrete)) => "ross:discrete=y",
                        _ => "ksg (both sides continuous)",
                    }
                ),
            )
        }
        _ => (
            both(VarKind::Continuous),
            format!(
                "it would read labels as numbers; use {} or a neural bound such as infonce (labels embedded)",
                match (side_kind(x), side_kind(y)) {
                    (Some(VarKind::Discrete), Some(VarKind::Discrete)) => "discrete (Miller–Madow plug-in)",
                    (Some(VarKind::Continuous), Some(VarKind::Discrete)) => "ross (Ross 2014) or mixed-ksg",
                    (Some(VarKind::Discrete), Some(VarKind::Continuous)) => "ross:discrete=x (Ross 2014) or mixed-ksg",
                    _ => "mixed-ksg (Gao et al. 2017)",
                }
            ),
        ),
    };
    match bad {
        None => Ok(()),
        Some((side, column, kind)) => {
            Err(Error::VariableKind { estimator: spec.to_string(), side, column, kind: kind.name(), better })
        }
    }
}
