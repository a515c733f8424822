//! The discrete, mixed and conditional estimators, per-feature MI and the all-pairs matrix
//! against independent references (scikit-learn 1.9.1, ennemi 1.6.0, Gao et al.'s Mixed_KSG,
//! gcmi's formula, brute-force numpy), to 1e-9.
//!
//! The constants were printed by `tests/reference/discrete_reference.py` (Python 3.12.1,
//! numpy 2.5.5, scipy 1.18.1) and, for the mixed KSG with declared labels,
//! `tests/reference/mixed_labels_reference.py` (Python 3.11.7, numpy 2.4.6, scipy 1.17.1), and
//! pasted unchanged. The data are generated bit-identically here
//! and there (the splitmix64 normals of `classical_reference.py`; labels are counts of
//! thresholds crossed); the first rows are checked against the script's printout first.

use mibound::data::VarKind;
use mibound::data::kinds::LabelColumns;
use mibound::estimators::classical::{
    ConditionalSpec, Ross, Side, TieNoise, cmi_ksg, discrete_mi, feature_mi, gaussian_cmi, mi_matrix, mixed_ksg_mi,
    ross_mi,
};
use mibound::estimators::{Estimator, EstimatorSpec};
use nalgebra::DMatrix;

use crate::common;
use common::splitmix_normals as normals;

// ---- printed by tests/reference/discrete_reference.py ----
// data D: x[0..4] = [1.0, 3.0, 3.0, 2.0], y[0..4] = [2.0, 3.0, 3.0, 2.0]; E: x[0] = 2.7633226881578894
const PLUGIN_D: f64 = 0.2717712288923338;
const MM_D: f64 = 0.2642712288923338;
// data E
const ROSS_E_K3: f64 = 0.24231202117639072;
const ROSS_E_K5: f64 = 0.24993424661663255;
// data F
const ROSS_F_K3: f64 = 0.20068284558200844;
// data G
const MIXED_G_K3: f64 = 0.2401327086090947;
const MIXED_G_K5: f64 = 0.26566169835020365;
const MIXED_E_K5: f64 = 0.25099936258731537;
// data H
const CMI_H_K3: f64 = -0.045821233152234964;
const CMI_H_K5: f64 = -0.026099298086354583;
const GCMI_H: f64 = 0.016539312977538856;
// data I
const CMI_I_K3: f64 = -0.003674856485011424;
const CMI_I_K5: f64 = 0.034018702796343;
const GCMI_I: f64 = 0.011174922294852507;
// data J
const MIR_J: [f64; 4] = [0.4207925817104754, 0.14588772186647203, 0.04653436683080758, 0.0];
const MIC_J: [f64; 4] = [0.24918858500334684, 0.08238082193201701, 0.04167385224075584, 0.0];
const MATRIX_J: [[f64; 4]; 4] = [
    [f64::NAN, -0.011200692388570133, 0.007344955765431926, 0.42079258171047584],
    [-0.011200692388570133, f64::NAN, -0.01198041243845882, 0.14588772186647248],
    [0.007344955765431926, -0.01198041243845882, f64::NAN, -0.0181740955573515],
    [0.42079258171047584, 0.14588772186647248, -0.0181740955573515, f64::NAN],
];
// ---- end of printout ----

// ---- printed by tests/reference/mixed_labels_reference.py (Gao et al.'s Mixed_KSG on one-hot
// labels scaled beyond every measured distance, and a brute-force discrete-metric version,
// agreeing to 1e-9; permuting the codes leaves both unchanged) ----
const MIXED_LABELS_G_K3: f64 = 0.23990267152731343;
const MIXED_LABELS_G_K5: f64 = 0.2643726539489198;
const MIXED_LABELS_E_K5: f64 = 0.2509345799498327;
const MIXED_LABELS_K_K3: f64 = 0.6716286707044625;
const MIXED_LABELS_K_K5: f64 = 0.41559209138994874;
// ---- end of printout ----

/// The agreement required (the 1e-9).
const TOL: f64 = 1e-9;

fn close(what: &str, got: f64, want: f64) {
    assert!((got - want).abs() <= TOL, "{what}: got {got:.17}, reference {want:.17}, |Δ| = {:.3e}", (got - want).abs());
}

fn thresholds(v: f64, ts: &[f64]) -> f64 {
    ts.iter().filter(|&&t| v > t).count() as f64
}

fn col(n: usize, f: impl Fn(usize) -> f64) -> DMatrix<f64> {
    DMatrix::from_fn(n, 1, |i, _| f(i))
}

/// Data sets D–G of the script and K of `mixed_labels_reference.py`: (x, y).
fn pair(name: char) -> (DMatrix<f64>, DMatrix<f64>) {
    match name {
        'D' => {
            let g = normals(11, 400, 2);
            (
                col(400, |i| thresholds(g[(i, 0)], &[-1.0, 0.0, 1.0])),
                col(400, |i| thresholds(g[(i, 0)] + g[(i, 1)], &[-1.5, 0.0, 1.5])),
            )
        }
        'E' => {
            let g = normals(12, 500, 2);
            let y = col(500, |i| thresholds(g[(i, 1)], &[-0.5, 0.5]));
            (col(500, |i| g[(i, 0)] + y[i]), y)
        }
        'F' => {
            let g = normals(13, 300, 3);
            let y = col(300, |i| thresholds(g[(i, 2)], &[-1.0, 0.0, 1.0]));
            let x =
                DMatrix::from_fn(300, 2, |i, j| if j == 0 { g[(i, 0)] + 0.5 * y[i] } else { g[(i, 1)] - 0.5 * y[i] });
            (x, y)
        }
        'K' => {
            let g = normals(18, 300, 3);
            let ts: Vec<f64> = (0..41).map(|i| (i as f64 - 20.0) / 10.0).collect();
            let x = DMatrix::from_fn(300, 2, |i, j| if j == 0 { thresholds(g[(i, 0)], &ts) } else { g[(i, 1)] });
            (x, col(300, |i| g[(i, 0)] + 0.5 * g[(i, 1)] + 0.5 * g[(i, 2)]))
        }
        _ => {
            let g = normals(14, 400, 3);
            let x = col(400, |i| thresholds(g[(i, 0)], &[-1.0, 0.0, 1.0]));
            let y = col(400, |i| if g[(i, 1)] > 0.5 { 0.0 } else { x[i] + g[(i, 2)] });
            (x, y)
        }
    }
}

/// Data sets H and I: (x, y, z).
fn triple(name: char) -> (DMatrix<f64>, DMatrix<f64>, DMatrix<f64>) {
    if name == 'H' {
        let g = normals(15, 400, 3);
        let x = col(400, |i| g[(i, 0)] + 0.5 * g[(i, 1)]);
        let y = col(400, |i| 0.8 * g[(i, 0)] + 0.6 * g[(i, 2)] + 0.3 * x[i]);
        (x, y, g.columns(0, 1).into_owned())
    } else {
        let g = normals(16, 300, 4);
        let x = col(300, |i| g[(i, 0)] - g[(i, 1)] + 0.7 * g[(i, 2)]);
        let y = col(300, |i| g[(i, 0)] * g[(i, 1)] + 0.5 * g[(i, 3)] + 0.2 * g[(i, 2)]);
        (x, y, g.columns(0, 2).into_owned())
    }
}

/// Data set J: four features (column 2 a label), a continuous target and a class target.
fn features() -> (DMatrix<f64>, Vec<f64>, Vec<f64>) {
    let g = normals(17, 500, 5);
    let lab = |i: usize| thresholds(g[(i, 2)], &[-0.5, 0.5]);
    let x = DMatrix::from_fn(500, 4, |i, j| match j {
        0 => g[(i, 0)],
        1 => g[(i, 1)],
        2 => lab(i),
        _ => g[(i, 3)],
    });
    let y: Vec<f64> =
        (0..500).map(|i| g[(i, 0)] + 0.5 * g[(i, 1)] * g[(i, 1)] + 0.5 * lab(i) + 0.5 * g[(i, 4)]).collect();
    let cls = y.iter().map(|&v| thresholds(v, &[0.0, 1.0])).collect();
    (x, y, cls)
}

fn labels(m: &DMatrix<f64>) -> Vec<u32> {
    m.iter().map(|&v| v as u32).collect()
}

#[test]
fn the_data_are_the_scripts_data() {
    let (x, y) = pair('D');
    assert_eq!(x.rows(0, 4).iter().copied().collect::<Vec<_>>(), vec![1.0, 3.0, 3.0, 2.0]);
    assert_eq!(y.rows(0, 4).iter().copied().collect::<Vec<_>>(), vec![2.0, 3.0, 3.0, 2.0]);
    assert_eq!(pair('E').0[0], 2.7633226881578894);
}

#[test]
fn discrete_plugin_and_miller_madow_match_scikit_learn_and_ennemi() {
    let (x, y) = pair('D');
    let r = discrete_mi(x.as_view(), y.as_view()).unwrap();
    close("plug-in D", r.plugin, PLUGIN_D);
    close("Miller–Madow D", r.miller_madow, MM_D);
    let mut est = EstimatorSpec::parse("discrete").unwrap().build_classical().unwrap();
    let e = est.estimate(x.as_view(), y.as_view(), 1).unwrap();
    close("discrete estimator", e.value, MM_D);
    assert!(e.interval.low < e.value && e.value < e.interval.high, "{:?}", e.interval);
    est = EstimatorSpec::parse("discrete:correction=none").unwrap().build_classical().unwrap();
    close("plug-in estimator", est.estimate(x.as_view(), y.as_view(), 1).unwrap().value, PLUGIN_D);
}

#[test]
fn ross_matches_scikit_learn_ennemi_and_the_brute_force_reference() {
    let (x, y) = pair('E');
    close("Ross E k=3", ross_mi(x.as_view(), &labels(&y), 3).unwrap(), ROSS_E_K3);
    close("Ross E k=5", ross_mi(x.as_view(), &labels(&y), 5).unwrap(), ROSS_E_K5);
    let (x, y) = pair('F');
    close("Ross F (2-d) k=3", ross_mi(x.as_view(), &labels(&y), 3).unwrap(), ROSS_F_K3);
    // The estimator (sd scaling, 1e-10 noise) on tie-free x: the same counts.
    let (x, y) = pair('E');
    let mut est = Ross::new(3, Side::Y).unwrap();
    est.subsamples = 0;
    close("Ross estimator E", est.estimate(x.as_view(), y.as_view(), 5).unwrap().value, ROSS_E_K3);
    est.discrete = Side::X;
    close("Ross estimator E, sides swapped", est.estimate(y.as_view(), x.as_view(), 5).unwrap().value, ROSS_E_K3);
}

/// Undeclared columns are numbers: Gao et al.'s code on the codes as they are.
#[test]
fn mixed_ksg_matches_gao_et_al_published_code() {
    let none = LabelColumns::default();
    let (x, y) = pair('G');
    close("mixed G k=3", mixed_ksg_mi(x.as_view(), y.as_view(), &none, 3).unwrap(), MIXED_G_K3);
    close("mixed G k=5", mixed_ksg_mi(x.as_view(), y.as_view(), &none, 5).unwrap(), MIXED_G_K5);
    let (x, y) = pair('E');
    close("mixed E k=5", mixed_ksg_mi(x.as_view(), y.as_view(), &none, 5).unwrap(), MIXED_E_K5);
}

/// Declared labels are categories (the discrete metric): Gao et al.'s code on their one-hot
/// encoding, scaled beyond every measured distance. K's classes smaller than k put a k-th
/// neighbour in another class.
#[test]
fn mixed_ksg_with_labels_matches_gao_et_al_code_on_one_hot_labels() {
    let (lx, ly) = (LabelColumns { x: vec![0], y: vec![] }, LabelColumns { x: vec![], y: vec![0] });
    for (ds, labels, k, want) in [
        ('G', &lx, 3, MIXED_LABELS_G_K3),
        ('G', &lx, 5, MIXED_LABELS_G_K5),
        ('E', &ly, 5, MIXED_LABELS_E_K5),
        ('K', &lx, 3, MIXED_LABELS_K_K3),
        ('K', &lx, 5, MIXED_LABELS_K_K5),
    ] {
        let (x, y) = pair(ds);
        close(&format!("mixed {ds} k={k}, labels"), mixed_ksg_mi(x.as_view(), y.as_view(), labels, k).unwrap(), want);
    }
}

#[test]
fn conditional_mi_matches_ennemi_and_gcmi() {
    for (ds, k3, k5, g) in [('H', CMI_H_K3, CMI_H_K5, GCMI_H), ('I', CMI_I_K3, CMI_I_K5, GCMI_I)] {
        let (x, y, z) = triple(ds);
        close(&format!("FP {ds} k=3"), cmi_ksg(x.as_view(), y.as_view(), z.as_view(), 3).unwrap(), k3);
        close(&format!("FP {ds} k=5"), cmi_ksg(x.as_view(), y.as_view(), z.as_view(), 5).unwrap(), k5);
        close(&format!("Gaussian {ds}"), gaussian_cmi(x.as_view(), y.as_view(), z.as_view()).unwrap(), g);
        let mut est = ConditionalSpec::Gaussian.build().unwrap();
        est.subsamples = 0;
        close(
            &format!("Gaussian estimator {ds}"),
            est.estimate(x.as_view(), y.as_view(), z.as_view(), 0).unwrap().value,
            g,
        );
    }
}

/// `mutual_info_regression` / `mutual_info_classif` with `random_state=0` against ours with our
/// own seeded noise: on tie-free continuous columns the noise moves no count.
#[test]
fn per_feature_mi_matches_scikit_learn() {
    let (x, y, cls) = features();
    let mut kinds = vec![VarKind::Continuous; 4];
    kinds[2] = VarKind::Discrete;
    for noise in [TieNoise::Seeded(0), TieNoise::Off] {
        let got = feature_mi(x.as_view(), &kinds, &y, VarKind::Continuous, 3, &noise, &[]).unwrap().0;
        for j in 0..4 {
            close(&format!("regression feature {j} ({noise:?})"), got[j], MIR_J[j]);
        }
        let got = feature_mi(x.as_view(), &kinds, &cls, VarKind::Discrete, 3, &noise, &[]).unwrap().0;
        for j in 0..4 {
            close(&format!("classif feature {j} ({noise:?})"), got[j], MIC_J[j]);
        }
    }
}

#[test]
fn mi_matrix_matches_ennemi_pairwise_mi() {
    let (x, y, _) = features();
    let data = DMatrix::from_fn(500, 4, |i, j| match j {
        0 => x[(i, 0)],
        1 => x[(i, 1)],
        2 => x[(i, 3)],
        _ => y[i],
    });
    let m = mi_matrix(data.as_view(), &[VarKind::Continuous; 4], 3, &TieNoise::Off, &[]).unwrap().0;
    for i in 0..4 {
        assert!(m[(i, i)].is_nan());
        for j in (0..4).filter(|&j| j != i) {
            close(&format!("matrix ({i}, {j})"), m[(i, j)], MATRIX_J[i][j]);
        }
    }
}
