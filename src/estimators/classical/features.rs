//! Many pairs at once: the MI of every column of a table against a target (scikit-learn's
//! `mutual_info_regression` / `mutual_info_classif`), and the symmetric matrix of MI between all
//! columns of a table.
//!
//! **Per feature** ([`feature_mi`]) follows scikit-learn's `_estimate_mi` step by step:
//!
//! 1. each continuous column of `X` is divided by its standard deviation (`1/N`, not centred:
//!    `scale(X, with_mean=False)`), then gets `1e-10 · max(1, mean|column|) · ε`, `ε ~ N(0, 1)`;
//! 2. a continuous target likewise;
//! 3. each feature against the target: two continuous columns → KSG-1 in one dimension
//!    (`_compute_mi_cc`); one discrete → Ross 2014 ([`super::mixed::ross_mi`],
//!    `_compute_mi_cd`); two discrete → the plug-in ([`super::discrete`], `mutual_info_score`);
//! 4. each value clipped at 0.
//!
//! The noise ([`TieNoise`]) is seeded from our own generator by default, can be switched off, or
//! can be given: pass numpy's `standard_normal` draws in scikit-learn's order (all continuous
//! features as an `n × c` block first, then the target's `n`) and the numbers are
//! scikit-learn's, ties included. On data without ties the noise moves no count and any choice
//! gives scikit-learn's numbers to rounding.
//!
//! **Matrix** ([`mi_matrix`]): the same preprocessing and the same per-pair rules for every pair
//! of columns, not clipped (as ennemi's `pairwise_mi`), symmetric, with `NaN` on the diagonal
//! (`I(X; X)` is infinite for a continuous `X`).
//!
//! **Speed.** Each column is prepared once: scaled, noised, sorted (the one-dimensional range
//! counts of KSG are binary searches in the sorted copy) and, when discrete, coded. A pair of
//! continuous columns then costs one two-dimensional k-d tree (kiddo) for its joint k-NN
//! distances and two binary-search passes. (A sweep of the strip `|x_j − x_i| < ε_i` in sorted
//! order instead of the tree was tried and measured twice as slow: the strip holds ~150 points
//! at n = 10 000.) Features (pairs) run in parallel on rayon's pool; results do not depend on the number
//! of threads.

use super::digamma_table;
use super::discrete::discrete_mi_codes;
use super::knn::{self, Norm, Sorted};
use super::ksg::{add_noise_draws, scale_column};
use super::mixed::ross_mi;
use crate::data::VarKind;
use crate::data::kinds::codes;
use crate::data::rng;
use crate::error::{Error, Result};
use crate::estimators::{Warning, WarningCode, check_inputs};
use nalgebra::{DMatrix, DMatrixView};
use rand::RngExt;
use rand_distr::StandardNormal;
use rayon::prelude::*;

/// scikit-learn's relative size of the tie-breaking noise.
pub const SKLEARN_NOISE: f64 = 1e-10;

/// The tie-breaking noise of [`feature_mi`] and [`mi_matrix`].
#[derive(Clone, Debug, PartialEq)]
pub enum TieNoise {
    /// No noise: the data as scaled.
    Off,
    /// `ε` drawn from our generator, each column's from its own stream, seeded by this seed
    /// and a hash of the column's values: a column gets the same noise wherever it
    /// stands, so reordering the columns permutes the results and changes no number.
    Seeded(u64),
    /// The standard-normal draws `ε` themselves: `x` is `n × c` for the `c` continuous columns
    /// in order, `y` the target's `n` (empty for a discrete target or for [`mi_matrix`]).
    Given {
        /// Draws for the continuous columns.
        x: DMatrix<f64>,
        /// Draws for the target.
        y: Vec<f64>,
    },
}

impl TieNoise {
    /// The same noise for the rows `rows` (ascending) of the data it was made for: given
    /// draws are those of the rows kept (the data rules may leave copies out); seeded noise
    /// is drawn for the columns as they are.
    pub fn rows(&self, rows: &[usize]) -> TieNoise {
        match self {
            TieNoise::Given { x, y } => TieNoise::Given {
                x: x.select_rows(rows),
                y: if y.is_empty() { Vec::new() } else { rows.iter().map(|&i| y[i]).collect() },
            },
            other => other.clone(),
        }
    }
}

/// One column made ready for many pairs.
struct Column {
    values: Vec<f64>,
    kind: VarKind,
    sorted: Option<Sorted>,
    codes: Vec<u32>,
}

impl Column {
    /// Scales a continuous column (as `scale(with_mean=False)`) and adds `1e-10·max(1, mean|v|)·ε`.
    fn new(mut values: Vec<f64>, kind: VarKind, eps: Option<&mut dyn Iterator<Item = f64>>) -> Self {
        match kind {
            VarKind::Continuous => {
                scale_column(&mut values);
                if let Some(eps) = eps {
                    add_noise_draws(&mut values, SKLEARN_NOISE, eps);
                }
                let sorted = Some(Sorted::new(&values));
                Column { values, kind, sorted, codes: Vec::new() }
            }
            VarKind::Discrete => {
                let c = codes(DMatrixView::from_slice(&values, values.len(), 1)).0;
                Column { values, kind, sorted: None, codes: c }
            }
        }
    }
}

/// KSG-1 of two prepared continuous columns (`_compute_mi_cc`), not clipped.
fn ksg_pair(a: &Column, b: &Column, k: usize, psi: &[f64]) -> f64 {
    let n = a.values.len();
    let joint: Vec<f64> = a.values.iter().zip(&b.values).flat_map(|(&p, &q)| [p, q]).collect();
    let eps = knn::knn_map(&joint, 2, k, Norm::Max, |_, e, _| e);
    let count = |c: &Column| c.sorted.as_ref().expect("continuous").count_within(&c.values, &eps, true);
    let (na, nb) = (count(a), count(b));
    let sum: f64 = na.iter().zip(&nb).map(|(&p, &q)| psi[p as usize + 1] + psi[q as usize + 1]).sum();
    psi[n] + psi[k] - sum / n as f64
}

/// The distance from `v[p]` to its `k`-th nearest neighbour among the sorted `v` (itself
/// excluded, `k < v.len()`): in one dimension the `k` nearest form a run around `p`, grown one
/// value at a time towards the nearer side.
fn kth_distance_sorted(v: &[f64], p: usize, k: usize) -> f64 {
    let (mut lo, mut hi) = (p, p);
    for _ in 0..k {
        if lo == 0 || (hi + 1 < v.len() && v[hi + 1] - v[p] < v[p] - v[lo - 1]) {
            hi += 1;
        } else {
            lo -= 1;
        }
    }
    (v[p] - v[lo]).max(v[hi] - v[p])
}

/// Ross 2014 ([`ross_mi`]) of a prepared continuous column against a discrete one, in one
/// dimension: each label's values sorted once (its k-th neighbour distances by
/// [`kth_distance_sorted`]) and the counts over all rows by binary search in the column's sorted
/// copy, instead of a k-d tree per label and one for the counts. The same sums as [`ross_mi`]
/// (tested against it). `None` when a label occurs once ([`ross_mi`] then drops its row, which
/// the column's sorted copy still holds).
fn ross_pair(c: &Column, d: &Column, k: usize, psi: &[f64]) -> Option<f64> {
    let n = c.values.len();
    let levels = d.codes.iter().max().map_or(0, |&m| m as usize + 1);
    let mut groups: Vec<Vec<f64>> = vec![Vec::new(); levels];
    for (&v, &l) in c.values.iter().zip(&d.codes) {
        groups[l as usize].push(v);
    }
    if groups.iter().any(|g| g.len() == 1) {
        return None;
    }
    let sorted = c.sorted.as_ref().expect("continuous");
    let mut sum = 0.0;
    for g in &mut groups {
        g.sort_by(f64::total_cmp);
        let (m, kl) = (g.len(), k.min(g.len().saturating_sub(1)));
        for p in 0..m {
            let r = kth_distance_sorted(g, p, kl);
            let within = if r > 0.0 { sorted.count_one(g[p], r, true) as usize + 1 } else { sorted.count_equal(g[p]) };
            sum += psi[kl] - psi[m] - psi[within];
        }
    }
    Some(psi[n] + sum / n as f64)
}

/// The MI of one pair of prepared columns by the rules of the module docs, not clipped.
fn pair_mi(a: &Column, b: &Column, k: usize, psi: &[f64]) -> Result<f64> {
    let n = a.values.len();
    let view = |c: &Column| DMatrix::from_column_slice(n, 1, &c.values);
    let ross = |c: &Column, d: &Column| match ross_pair(c, d, k, psi) {
        Some(v) => Ok(v),
        None => ross_mi(view(c).as_view(), &d.codes, k),
    };
    match (a.kind, b.kind) {
        (VarKind::Continuous, VarKind::Continuous) => Ok(ksg_pair(a, b, k, psi)),
        (VarKind::Continuous, VarKind::Discrete) => ross(a, b),
        (VarKind::Discrete, VarKind::Continuous) => ross(b, a),
        (VarKind::Discrete, VarKind::Discrete) => discrete_mi_codes(&a.codes, &b.codes).map(|r| r.plugin),
    }
}

/// `n` standard-normal draws for the continuous column `values` under [`TieNoise::Seeded`]`(seed)`:
/// from a stream seeded by `seed` and a hash of the column's values (FNV-1a over their bits),
/// so they depend on nothing but the column, not on where it stands or what stands beside it.
fn column_draws(seed: u64, values: &[f64]) -> std::vec::IntoIter<f64> {
    use crate::rng::{fnv1a, splitmix64};
    let content = fnv1a(values.iter().flat_map(|v| v.to_bits().to_le_bytes()));
    let mut g = rng(splitmix64(seed ^ content));
    (0..values.len()).map(|_| g.sample::<f64, _>(StandardNormal)).collect::<Vec<_>>().into_iter()
}

/// Prepares the columns of `x` with kinds `kinds`, drawing or taking the noise.
fn prepare(x: DMatrixView<'_, f64>, kinds: &[VarKind], noise: &TieNoise) -> Result<Vec<Column>> {
    let (n, p) = x.shape();
    if kinds.len() != p {
        return Err(Error::param("kinds", kinds.len(), &format!("must give one kind per column ({p})")));
    }
    let continuous = kinds.iter().filter(|&&k| k == VarKind::Continuous).count();
    if let TieNoise::Given { x: e, .. } = noise {
        if e.shape() != (n, continuous) {
            return Err(Error::Shape {
                what: "noise draws for x".into(),
                expected: format!("{n} × {continuous} (rows × continuous columns)"),
                got: format!("{} × {}", e.nrows(), e.ncols()),
            });
        }
    }
    let mut c = 0;
    let mut out = Vec::with_capacity(p);
    for (j, &kind) in kinds.iter().enumerate() {
        let values: Vec<f64> = x.column(j).iter().copied().collect();
        let col = match (kind, noise) {
            (VarKind::Discrete, _) | (_, TieNoise::Off) => Column::new(values, kind, None),
            (VarKind::Continuous, TieNoise::Seeded(seed)) => {
                let mut draws = column_draws(*seed, &values);
                Column::new(values, kind, Some(&mut draws))
            }
            (VarKind::Continuous, TieNoise::Given { x: e, .. }) => {
                let mut draws = e.column(c).iter().copied().collect::<Vec<_>>().into_iter();
                Column::new(values, kind, Some(&mut draws))
            }
        };
        c += usize::from(kind == VarKind::Continuous);
        out.push(col);
    }
    Ok(out)
}

fn check_k(k: usize, n: usize) -> Result<()> {
    if k == 0 || k >= n {
        return Err(Error::param(
            "n_neighbors",
            k,
            &format!("must be between 1 and the number of rows − 1 ({})", n - 1),
        ));
    }
    Ok(())
}

/// A class label (`what`) must have a value that occurs twice for Ross's estimate against a
/// continuous column; one whose every value occurs once is a measurement read as a label.
fn check_repeats(values: &[f64], what: &str) -> Result<()> {
    let (c, levels) = codes(DMatrixView::from_slice(values, values.len(), 1));
    if levels < c.len() {
        return Ok(());
    }
    Err(Error::param(
        "class label",
        what,
        &format!(
            "each of its {} values occurs once, so it is a measurement, not a label (scikit-learn: \"Unknown label type: continuous\"); read it as continuous",
            c.len()
        ),
    ))
}

/// The name of column `j` for warnings: `column j ('name')`, or `column j` without names.
fn column_name(j: usize, names: &[String]) -> String {
    match names.get(j) {
        Some(name) => format!("column {j} ('{name}')"),
        None => format!("column {j}"),
    }
}

/// What the estimates of [`feature_mi`] and [`mi_matrix`] cannot be trusted
/// for, before any is made (each named by `names`, one per column of `x`, or by position):
///
/// - `k` above half of the `n` rows ([`WarningCode::FewRows`]): the neighbourhoods hold most
///   of the sample, and every estimate is pulled towards 0 (KSG and Ross read the density as
///   constant within them, which holds only for `k ≪ n`);
/// - a continuous column whose values, once scaled (scikit-learn's preprocessing), lie closer
///   together than the tie-breaking noise's standard deviation for more than half of its
///   distinct values ([`WarningCode::HeavyTails`]): one magnitude far beyond the rest (an
///   outlier of 1e160 among values near 1) makes the others indistinguishable after the
///   scaling, and the column's MI is that of the noise (near 0). scikit-learn reads such a
///   column the same way.
fn warnings(x: DMatrixView<'_, f64>, kinds: &[VarKind], k: usize, names: &[String]) -> Vec<Warning> {
    let n = x.nrows();
    let mut out = Vec::new();
    if 2 * k > n {
        let message = format!(
            "k = {k} neighbours is more than half of the {n} rows: each neighbourhood holds most of the sample and every MI is pulled towards 0; use a k well below the number of rows (the default is {})",
            super::ROSS_DEFAULT_K
        );
        out.push(Warning::new(WarningCode::FewRows, message).with("k", k as f64).with("rows", n as f64));
    }
    for (j, _) in kinds.iter().enumerate().filter(|(_, kind)| **kind == VarKind::Continuous) {
        let mut v: Vec<f64> = x.column(j).iter().copied().collect();
        let largest = v.iter().fold(0.0f64, |m, a| m.max(a.abs()));
        scale_column(&mut v);
        let noise = SKLEARN_NOISE * (v.iter().map(|a| a.abs()).sum::<f64>() / n as f64).max(1.0);
        v.sort_by(f64::total_cmp);
        v.dedup();
        let distinct = v.len();
        let lost = v.windows(2).filter(|w| w[1] - w[0] <= noise).count();
        if distinct > 2 && 2 * lost > distinct {
            let message = format!(
                "{}: after scaling by its standard deviation, {lost} of its {distinct} distinct values lie closer to the next than the 1e-10-relative tie-breaking noise (its largest magnitude, {largest:e}, is far beyond the rest), so its MI is that of the noise; transform the column first (a logarithm, or ranks)",
                column_name(j, names)
            );
            out.push(Warning::new(WarningCode::HeavyTails, message).with("column", j as f64));
        }
    }
    out
}

/// The MI of each column of `x` (kinds `kinds`) against the target `y` (kind `y_kind`), in
/// nats, clipped at 0: scikit-learn's `mutual_info_regression` (continuous `y`) and
/// `mutual_info_classif` (discrete `y`) with `n_neighbors = k` (module docs); and the warnings
/// about what the values cannot be trusted for (a `k` near the number of rows, a
/// column whose scaled values the noise swamps), naming the columns of `x` by `names` (by
/// position when empty). A class label whose every value occurs once is refused (a
/// measurement read as a label).
pub fn feature_mi(
    x: DMatrixView<'_, f64>,
    kinds: &[VarKind],
    y: &[f64],
    y_kind: VarKind,
    k: usize,
    noise: &TieNoise,
    names: &[String],
) -> Result<(Vec<f64>, Vec<Warning>)> {
    let n = x.nrows();
    check_inputs(x, DMatrixView::from_slice(y, y.len(), 1), 2)?;
    check_k(k, n)?;
    let continuous = kinds.contains(&VarKind::Continuous);
    if y_kind == VarKind::Discrete && continuous {
        check_repeats(y, "the target")?;
    }
    if y_kind == VarKind::Continuous {
        for (j, _) in kinds.iter().enumerate().filter(|(_, kind)| **kind == VarKind::Discrete) {
            check_repeats(&x.column(j).iter().copied().collect::<Vec<_>>(), &column_name(j, names))?;
        }
    }
    let mut warned = warnings(x, kinds, k, names);
    if y_kind == VarKind::Continuous {
        let target = warnings(DMatrixView::from_slice(y, n, 1), &[y_kind], 0, &["target".to_string()]);
        warned.extend(
            target
                .into_iter()
                .map(|w| Warning { message: w.message.replacen("column 0 ('target')", "the target", 1), ..w }),
        );
    }
    let cols = prepare(x, kinds, noise)?;
    let target = match (y_kind, noise) {
        (VarKind::Discrete, _) | (_, TieNoise::Off) => Column::new(y.to_vec(), y_kind, None),
        (VarKind::Continuous, TieNoise::Seeded(seed)) => {
            let mut draws = column_draws(*seed, y);
            Column::new(y.to_vec(), y_kind, Some(&mut draws))
        }
        (VarKind::Continuous, TieNoise::Given { y: e, .. }) => {
            if e.len() != n {
                return Err(Error::Shape {
                    what: "noise draws for y".into(),
                    expected: format!("{n} values"),
                    got: format!("{}", e.len()),
                });
            }
            Column::new(y.to_vec(), y_kind, Some(&mut e.iter().copied()))
        }
    };
    let psi = digamma_table(n + 1);
    let mi = cols.par_iter().map(|c| pair_mi(c, &target, k, &psi).map(|v| v.max(0.0))).collect::<Result<_>>()?;
    Ok((mi, warned))
}

/// The symmetric matrix of MI between all columns of `data` (kinds `kinds`), in nats, not
/// clipped, `NaN` on the diagonal (module docs), with the warnings of [`feature_mi`] naming the
/// columns by `names`. `noise` may be [`TieNoise::Off`], [`TieNoise::Seeded`] or
/// [`TieNoise::Given`] with `n × c` draws (and an empty `y`).
pub fn mi_matrix(
    data: DMatrixView<'_, f64>,
    kinds: &[VarKind],
    k: usize,
    noise: &TieNoise,
    names: &[String],
) -> Result<(DMatrix<f64>, Vec<Warning>)> {
    let (n, p) = data.shape();
    check_inputs(data, data, 2)?;
    check_k(k, n)?;
    if kinds.contains(&VarKind::Continuous) {
        for (j, _) in kinds.iter().enumerate().filter(|(_, kind)| **kind == VarKind::Discrete) {
            check_repeats(&data.column(j).iter().copied().collect::<Vec<_>>(), &column_name(j, names))?;
        }
    }
    let warned = warnings(data, kinds, k, names);
    let cols = prepare(data, kinds, noise)?;
    let psi = digamma_table(n + 1);
    let pairs: Vec<(usize, usize)> = (0..p).flat_map(|i| (i + 1..p).map(move |j| (i, j))).collect();
    let values: Vec<f64> =
        pairs.par_iter().map(|&(i, j)| pair_mi(&cols[i], &cols[j], k, &psi)).collect::<Result<_>>()?;
    let mut m = DMatrix::from_element(p, p, f64::NAN);
    for (&(i, j), v) in pairs.iter().zip(values) {
        m[(i, j)] = v;
        m[(j, i)] = v;
    }
    Ok((m, warned))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_feature_ksg_equals_ksg_mi_on_the_scaled_columns() {
        let mut g = rng(3);
        let x = DMatrix::from_fn(300, 2, |_, _| g.sample::<f64, _>(StandardNormal));
        let y: Vec<f64> = (0..300).map(|i| x[(i, 0)] + 0.5 * g.sample::<f64, _>(StandardNormal)).collect();
        let v = feature_mi(x.as_view(), &[VarKind::Continuous; 2], &y, VarKind::Continuous, 3, &TieNoise::Off, &[])
            .unwrap()
            .0;
        let mut ym = DMatrix::from_column_slice(300, 1, &y);
        let mut xm = x.columns(0, 1).into_owned();
        super::super::mixed::scale_columns(&mut xm);
        super::super::mixed::scale_columns(&mut ym);
        let want = super::super::ksg_mi(xm.as_view(), ym.as_view(), 3, super::super::KsgVariant::Ksg1).unwrap();
        assert!((v[0] - want).abs() < 1e-12, "{} vs {want}", v[0]);
    }

    /// With seeded noise, tied columns in another order give the same matrix, permuted, and
    /// the same per-feature values; another seed moves the tied values (the noise is used).
    #[test]
    fn seeded_noise_follows_the_columns_not_their_order() {
        let mut g = rng(11);
        // Values rounded to 0.1: ties that the noise breaks.
        let m = DMatrix::from_fn(400, 3, |_, _| (g.sample::<f64, _>(StandardNormal) * 10.0).round() / 10.0);
        let m = DMatrix::from_fn(400, 3, |i, j| if j == 2 { m[(i, 0)] + m[(i, 1)] } else { m[(i, j)] });
        let order = [2usize, 0, 1];
        let swapped = DMatrix::from_fn(400, 3, |i, j| m[(i, order[j])]);
        let kinds = [VarKind::Continuous; 3];
        let a = mi_matrix(m.as_view(), &kinds, 3, &TieNoise::Seeded(4), &[]).unwrap().0;
        let b = mi_matrix(swapped.as_view(), &kinds, 3, &TieNoise::Seeded(4), &[]).unwrap().0;
        for i in 0..3 {
            for j in (0..3).filter(|&j| j != i) {
                assert_eq!(b[(i, j)], a[(order[i], order[j])], "({i}, {j})");
            }
        }
        let other = mi_matrix(m.as_view(), &kinds, 3, &TieNoise::Seeded(5), &[]).unwrap().0;
        assert_ne!(other[(0, 2)], a[(0, 2)], "the seed draws the noise that breaks the ties");
        let y: Vec<f64> = m.column(2).iter().copied().collect();
        let f =
            feature_mi(m.columns(0, 2), &kinds[..2], &y, VarKind::Continuous, 3, &TieNoise::Seeded(4), &[]).unwrap().0;
        let sw = DMatrix::from_fn(400, 2, |i, j| m[(i, 1 - j)]);
        let fs =
            feature_mi(sw.as_view(), &kinds[..2], &y, VarKind::Continuous, 3, &TieNoise::Seeded(4), &[]).unwrap().0;
        assert_eq!((fs[0], fs[1]), (f[1], f[0]));
    }

    /// The one-dimensional Ross path against the general [`ross_mi`], with and without ties
    /// (values rounded to one decimal, no noise: zero k-th distances and tied distances).
    #[test]
    fn ross_in_one_dimension_equals_ross_mi() {
        let mut g = rng(5);
        for (round, k, levels) in [(false, 3, 3), (true, 3, 4), (true, 1, 2), (false, 7, 5), (true, 10, 3)] {
            let labels: Vec<f64> = (0..400).map(|_| g.random_range(0..levels) as f64).collect();
            let values: Vec<f64> = labels
                .iter()
                .map(|&l| {
                    let v = l + g.sample::<f64, _>(StandardNormal);
                    if round { (v * 10.0).round() / 10.0 } else { v }
                })
                .collect();
            let c = Column::new(values, VarKind::Continuous, None);
            let d = Column::new(labels, VarKind::Discrete, None);
            let psi = digamma_table(401);
            let fast = ross_pair(&c, &d, k, &psi).unwrap();
            let general = ross_mi(DMatrixView::from_slice(&c.values, 400, 1), &d.codes, k).unwrap();
            assert!((fast - general).abs() < 1e-12, "round {round}, k {k}: {fast} vs {general}");
        }
    }
}
