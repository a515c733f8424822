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
//! **Labels.** Gao et al. define the estimator with the max-norm on `R^(dx+dy)`: a discrete
//! coordinate's values are points on a line, and their consistency argument needs only that
//! distinct atoms lie at a positive distance. At finite `n` the spacing matters, though: a k-NN
//! ball that reaches another code counts its rows, so relabelling the codes of a class label
//! moves the estimate (3.37 against 1.07 nats on one data set with many small classes). A
//! declared label column ([`LabelColumns`]) therefore enters with the discrete metric, an
//! instance of the same estimator on a metric space in which distinct atoms are separated:
//! distance 0 between equal labels and larger than any measured distance between different
//! ones. So the k-th neighbour of row `i` is the k-th nearest row with the same labels (over the
//! measured columns), or, when fewer than `k` other rows share its labels, at that larger
//! distance (`ρ_i` infinite, `k̃_i = k`); `n_x(i)` counts rows with `x`'s labels equal and
//! measured columns within `ρ_i`. The estimate is then invariant to any relabelling. With one
//! label column against continuous columns it is Ross's estimate with `ln N` for `ψ(N)` (when
//! every label occurs more than `k` times and no measured values tie); with labels only, the
//! plug-in estimate. A row whose labels `k` rows or fewer share reads about `ψ(k) − ψ(N_ℓ)`
//! nats whatever the dependence, so with many small classes the estimate is biased low (2.34
//! against Ross's 3.26 on 3000 rows of 1000 classes; [`MixedKsg`] warns when more than a tenth
//! of the rows are in such classes). Columns not declared are read as numbers, as Gao et al.'s
//! code does.
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
use crate::estimators::{Estimate, Estimator, EstimatorSpec, Kind, SettingsUsed, Warning, WarningCode, check_inputs};
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
        return Err(Error::param(
            "labels",
            "every label once",
            "Ross's estimate needs a label that occurs twice; a column whose values all differ is a measurement, not a class label: read it as continuous",
        ));
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

/// Gao et al.'s mixed KSG (module docs) of `I(X; Y)`; the columns `labels` names are class
/// labels, compared for equality only (module docs, "Labels"). Errors: as [`super::ksg_mi`], and
/// a label column out of range.
pub fn mixed_ksg_mi(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, labels: &LabelColumns, k: usize) -> Result<f64> {
    if k == 0 {
        return Err(Error::param("mixed-ksg k", k, "must be at least 1"));
    }
    check_inputs(x, y, 2)?;
    let n = x.nrows();
    if k >= n {
        return Err(Error::param("mixed-ksg k", k, &format!("must be smaller than the number of rows ({n})")));
    }
    let labels = labels.validate(x.ncols(), y.ncols())?;
    let (sx, sy) = (Split::new(x, &labels.x), Split::new(y, &labels.y));
    let d = sx.dim + sy.dim;
    let mut joint = vec![0.0; n * d];
    for i in 0..n {
        joint[i * d..i * d + sx.dim].copy_from_slice(&sx.measured[i * sx.dim..(i + 1) * sx.dim]);
        joint[i * d + sx.dim..(i + 1) * d].copy_from_slice(&sy.measured[i * sy.dim..(i + 1) * sy.dim]);
    }
    let pairs = DMatrix::from_fn(n, 2, |i, j| f64::from(if j == 0 { sx.label[i] } else { sy.label[i] }));
    let (joint_label, joint_levels) = codes(pairs.as_view());
    let rho = kth_within_groups(&joint, d, &joint_label, joint_levels, k);
    let nx = count_within_groups(&sx.measured, sx.dim, &sx.label, sx.levels, &rho);
    let ny = count_within_groups(&sy.measured, sy.dim, &sy.label, sy.levels, &rho);
    let mult = |m: DMatrixView<'_, f64>| {
        let (c, l) = codes(m);
        multiplicity(&c, l)
    };
    let xy = DMatrix::from_fn(
        n,
        x.ncols() + y.ncols(),
        |i, j| if j < x.ncols() { x[(i, j)] } else { y[(i, j - x.ncols())] },
    );
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

/// One side of the mixed KSG split into its measured columns (row-major) and one label per row
/// (the codes of its label columns; 0 for every row when it has none).
struct Split {
    measured: Vec<f64>,
    dim: usize,
    label: Vec<u32>,
    levels: usize,
}

impl Split {
    fn new(m: DMatrixView<'_, f64>, label_columns: &[usize]) -> Self {
        let measured: Vec<usize> = (0..m.ncols()).filter(|j| !label_columns.contains(j)).collect();
        let (label, levels) = if label_columns.is_empty() {
            (vec![0; m.nrows()], 1)
        } else {
            codes(m.select_columns(label_columns).as_view())
        };
        Split { measured: row_major(m.select_columns(&measured).as_view()), dim: measured.len(), label, levels }
    }
}

/// The rows of each of `levels` groups (`group[i]` is row `i`'s), in order.
fn rows_by_group(group: &[u32], levels: usize) -> Vec<Vec<usize>> {
    let mut rows = vec![Vec::new(); levels];
    group.iter().enumerate().for_each(|(i, &g)| rows[g as usize].push(i));
    rows
}

/// Rows `rows` of row-major `data` with `d` columns.
fn gather(data: &[f64], d: usize, rows: &[usize]) -> Vec<f64> {
    rows.iter().flat_map(|&i| data[i * d..(i + 1) * d].iter().copied()).collect()
}

/// For each row, the max-norm distance to its k-th nearest other row of its own group (over
/// the `d` measured columns of `data`; 0 when there are none), or infinity when its group holds
/// `k` rows or fewer: a row of another group differs in a label, farther than any measured
/// distance.
fn kth_within_groups(data: &[f64], d: usize, group: &[u32], levels: usize, k: usize) -> Vec<f64> {
    let mut rho = vec![f64::INFINITY; group.len()];
    for rows in rows_by_group(group, levels).iter().filter(|r| r.len() > k) {
        let r = if d == 0 {
            vec![0.0; rows.len()]
        } else if rows.len() == group.len() {
            knn::knn_map(data, d, k, Norm::Max, |_, dist, _| dist)
        } else {
            knn::knn_map(&gather(data, d, rows), d, k, Norm::Max, |_, dist, _| dist)
        };
        rows.iter().zip(r).for_each(|(&i, ri)| rho[i] = ri);
    }
    rho
}

/// For each row `i`, the other rows of its own group within max-norm distance `< radii[i]`
/// over the `d` measured columns of `data` (every other row of the group when `d = 0` and the
/// radius is positive, or when the radius is infinite).
fn count_within_groups(data: &[f64], d: usize, group: &[u32], levels: usize, radii: &[f64]) -> Vec<u32> {
    let mut out = vec![0u32; group.len()];
    for rows in rows_by_group(group, levels) {
        let r: Vec<f64> = rows.iter().map(|&i| radii[i]).collect();
        let counts = if d == 0 {
            r.iter().map(|&ri| if ri > 0.0 { rows.len() as u32 - 1 } else { 0 }).collect()
        } else if rows.len() == group.len() {
            knn::count_within(data, d, &r, true)
        } else {
            knn::count_within(&gather(data, d, &rows), d, &r, true)
        };
        for ((&i, c), ri) in rows.iter().zip(counts).zip(&r) {
            out[i] = if ri.is_infinite() { rows.len() as u32 - 1 } else { c };
        }
    }
    out
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
/// each column standardised (ties stay ties), no noise (it would break the atoms); the
/// declared label columns compared for equality only ([`mixed_ksg_mi`]).
#[derive(Clone, Debug, PartialEq)]
pub struct MixedKsg {
    /// Neighbours (default 5).
    pub k: usize,
    /// Subsamples for the interval (default [`DEFAULT_SUBSAMPLES`]; 0 for none).
    pub subsamples: usize,
    /// The class-label columns of x and y (none by default: every value a number).
    pub labels: LabelColumns,
}

impl MixedKsg {
    /// The mixed KSG with `k` neighbours, every column read as numbers.
    pub fn new(k: usize) -> Result<Self> {
        if k == 0 {
            return Err(Error::param("mixed-ksg k", k, "must be at least 1"));
        }
        Ok(MixedKsg { k, subsamples: DEFAULT_SUBSAMPLES, labels: LabelColumns::default() })
    }

    /// The same estimator with the class-label columns `labels` (as `--discrete` and Python's
    /// `discrete_x`/`discrete_y` declare them).
    pub fn with_labels(self, labels: LabelColumns) -> Self {
        MixedKsg { labels, ..self }
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
        let (k, labels) = (self.k, &self.labels);
        let core = move |a: DMatrixView<'_, f64>, b: DMatrixView<'_, f64>| -> Result<Core> {
            // The estimate first: it checks the label columns against the data.
            let value = mixed_ksg_mi(a, b, labels, k)?;
            Ok(Core { value, values: Vec::new(), warnings: small_classes(a, b, labels, k).into_iter().collect() })
        };
        let settings = SettingsUsed::NearestNeighbours {
            k: self.k,
            norm: if labels.is_empty() { "max" } else { "max over the measured columns; labels equal or not" },
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

/// A warning when more than a tenth of the rows share their labels (x's and y's declared label
/// columns together) with `k` rows or fewer: under the discrete metric their k-th neighbour lies
/// in another class, and each reads about `ψ(k) − ψ(N_ℓ)` nats whatever the dependence.
fn small_classes(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, labels: &LabelColumns, k: usize) -> Option<Warning> {
    if labels.is_empty() {
        return None;
    }
    let both = DMatrix::from_fn(x.nrows(), labels.x.len() + labels.y.len(), |i, j| match labels.x.get(j) {
        Some(&c) => x[(i, c)],
        None => y[(i, labels.y[j - labels.x.len()])],
    });
    let (c, levels) = codes(both.as_view());
    let small = multiplicity(&c, levels).iter().filter(|&&m| m as usize <= k).count() as f64 / x.nrows() as f64;
    (small > 0.1).then(|| {
        let message = format!(
            "mixed KSG (k={k}): {:.0} % of the rows share their labels with {k} rows or fewer, so their k-th neighbour lies in another class and they read almost no information: the estimate is biased low here; ross (one label side) lowers k within small classes",
            100.0 * small
        );
        Warning::new(WarningCode::SparseCells, message).with("small_class_rows", small)
    })
}

/// [`check_kinds`] of every estimator of `specs` on `dx` columns of x and `dy` of y, of which
/// `labels` are class labels: the one check the command line (`--discrete`) and Python
/// (`discrete_x`/`discrete_y`) make.
pub fn check_label_columns(specs: &[EstimatorSpec], labels: &LabelColumns, dx: usize, dy: usize) -> Result<()> {
    let (kx, ky) = labels.kinds(dx, dy);
    specs.iter().try_for_each(|s| check_kinds(s, &kx, &ky))
}

/// The estimator that reads labels as categories for columns of kinds `x` and `y`: `discrete`
/// when both sides are all labels, `ross` (k = [`ROSS_DEFAULT_K`]) when one side is all labels
/// and the other all measurements, `mixed-ksg` (k = [`super::DEFAULT_K`]) for any other mixture.
pub fn label_estimator(x: &[VarKind], y: &[VarKind]) -> EstimatorSpec {
    match (side_kind(x), side_kind(y)) {
        (Some(VarKind::Discrete), Some(VarKind::Discrete)) => EstimatorSpec::Discrete { miller_madow: true },
        (Some(VarKind::Discrete), Some(VarKind::Continuous)) => {
            EstimatorSpec::Ross { k: ROSS_DEFAULT_K, discrete_x: true }
        }
        (Some(VarKind::Continuous), Some(VarKind::Discrete)) => {
            EstimatorSpec::Ross { k: ROSS_DEFAULT_K, discrete_x: false }
        }
        _ => EstimatorSpec::MixedKsg { k: super::DEFAULT_K },
    }
}

/// Whether `spec` is an estimator for labels (`discrete`, `ross`, `mixed-ksg`), which reads a
/// discrete column as categories; every other estimator reads values as numbers.
pub fn reads_labels(spec: &EstimatorSpec) -> bool {
    matches!(spec, EstimatorSpec::Discrete { .. } | EstimatorSpec::Ross { .. } | EstimatorSpec::MixedKsg { .. })
}

/// Whether the estimator `spec` can use columns of kinds `x` and `y`: `Ok` or an
/// [`Error::VariableKind`] whose sentence names a better estimator. The neural bounds embed a
/// discrete column (one-hot) and `auto` chooses an estimator that reads it; the flow, KSG,
/// Gaussian, copula and binned estimators read every
/// value as a number and refuse one; `discrete` needs both sides discrete; `ross` one side discrete (the one it names) and
/// the other continuous; `mixed-ksg` takes anything.
pub fn check_kinds(spec: &EstimatorSpec, x: &[VarKind], y: &[VarKind]) -> Result<()> {
    let first = |side: &'static str, kinds: &[VarKind], want: VarKind| {
        kinds.iter().position(|&k| k != want).map(|column| (side, column, kinds[column]))
    };
    let both = |want: VarKind| first("x", x, want).or_else(|| first("y", y, want));
    let (bad, better) = match *spec {
        // Labels are one-hot encoded for the critic (`NeuralConfig::labels`); the plan refuses
        // a label y for a conditional model q(y|x). `auto` chooses by the kinds
        // (`EstimatorSpec::auto_with_labels`).
        EstimatorSpec::MixedKsg { .. } | EstimatorSpec::Neural { .. } | EstimatorSpec::Auto => return Ok(()),
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
