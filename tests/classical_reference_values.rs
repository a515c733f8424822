//! The classical estimators against independent references, to 1e-9 on tie-free data.
//!
//! The constants were printed by `tests/reference/classical_reference.py` (numpy 1.26.4,
//! scipy 1.17.1, scikit-learn 1.9.1) and pasted unchanged. The data are generated bit-identically
//! here and there (splitmix64 → 53-bit uniforms → sum of 12 uniforms − 6, then only +, −, ×);
//! the first row of each data set is checked against the script's printout before anything else.
//!
//! KSG-1 is also checked against a brute-force O(n²) implementation written here from the paper,
//! on the reference data sets and on larger ones that exercise the k-d tree (≤ 12 joint
//! dimensions) and the brute-force path (> 12).

use mibound::estimators::Estimator;
use mibound::estimators::classical::{
    EntropyNorm, Ksg, KsgSearch, KsgVariant, binned_mi, canonical_correlations, copula_mi, digamma, gaussian_mi,
    gaussian_mi_plugin, kl_entropy, ksg_mi, ksg_with,
};
use nalgebra::DMatrix;

use crate::common;
use common::splitmix_normals as normals;

// ---- printed by tests/reference/classical_reference.py ----
// dataset A: n = 500, dx = 1, dy = 1; x[0] = [1.4243480905156511], y[0] = [0.3594854464065362]
const KSG1_A_K3: f64 = 0.16094682360648482;
const KSG2_A_K3: f64 = 0.161291981438207;
const KSG1_A_K5: f64 = 0.15943518826464853;
const KSG2_A_K5: f64 = 0.17097547246982137;
const SKLEARN_CC_A_K3: f64 = 0.16094682360648482;
const SKLEARN_CC_A_K5: f64 = 0.15943518826464853;
const SKLEARN_MIR_A_K3: f64 = 0.16089573325641915;
const GAUSS_A: f64 = 0.1559921355219922;
const GAUSS_PLUGIN_A: f64 = 0.15699715963247385;
const CANON_A_1: f64 = 0.5191115698419159;
const COPULA_A: f64 = 0.15399506414388675;
const KL_MAX_A_K3: f64 = 2.560470618595568;
const KL_EUC_A_K3: f64 = 2.5681304353697474;
const KL_MAX_A_K5: f64 = 2.5419467325439333;
const KL_EUC_A_K5: f64 = 2.533600676103251;
const BINNED_A_B4: f64 = 0.11901259495091307;
const BINNED_A_B8: f64 = 0.20081282734135836;
// dataset B: n = 400, dx = 1, dy = 1; x[0] = [0.5802847116206475], y[0] = [-0.5522633163099103]
const KSG1_B_K3: f64 = 1.0628236304378396;
const KSG2_B_K3: f64 = 1.2870807645880133;
const KSG1_B_K5: f64 = 0.9449529299006922;
const KSG2_B_K5: f64 = 1.2790208666882736;
const SKLEARN_CC_B_K3: f64 = 1.0628236304378396;
const SKLEARN_CC_B_K5: f64 = 0.9449529299006922;
const SKLEARN_MIR_B_K3: f64 = 1.2032486674379097;
const GAUSS_B: f64 = 0.4899371817139011;
const GAUSS_PLUGIN_B: f64 = 0.4911950413589292;
const CANON_B_1: f64 = 0.7909392230708089;
const COPULA_B: f64 = 0.8392946348511634;
const KL_MAX_B_K3: f64 = 2.3308873078172327;
const KL_EUC_B_K3: f64 = 2.306587711006829;
const KL_MAX_B_K5: f64 = 2.4471171822141886;
const KL_EUC_B_K5: f64 = 2.41163911172835;
const BINNED_B_B4: f64 = 0.2345683604255459;
const BINNED_B_B8: f64 = 0.590639352857914;
// dataset C: n = 300, dx = 2, dy = 3; x[0] = [0.16602525475545793, 0.1192914359665398], y[0] = [0.4734656834209736, 0.15845663082437955, -0.16811862825786159]
const KSG1_C_K3: f64 = 1.0126058446855657;
const KSG2_C_K3: f64 = 1.0511346484682877;
const KSG1_C_K5: f64 = 0.9568496553457355;
const KSG2_C_K5: f64 = 1.0014414157259988;
const GAUSS_C: f64 = 1.199439672839505;
const GAUSS_PLUGIN_C: f64 = 1.2095748850933592;
const CANON_C_1: f64 = 0.905292844930893;
const CANON_C_2: f64 = 0.7118916838224802;
const COPULA_C: f64 = 1.160055546401157;
const KL_MAX_C_K3: f64 = 6.159452324215975;
const KL_EUC_C_K3: f64 = 6.140947130597754;
const KL_MAX_C_K5: f64 = 6.200159235899808;
const KL_EUC_C_K5: f64 = 6.177482961978667;
const BINNED_C_B3: f64 = 0.5831075606704007;
// ---- end of printout ----

/// The agreement required on tie-free data (the 1e-9).
const TOL: f64 = 1e-9;

fn close(what: &str, got: f64, want: f64, tol: f64) {
    assert!(
        (got - want).abs() <= tol,
        "{what}: got {got:.17}, reference {want:.17}, |Δ| = {:.3e} > {tol:e}",
        (got - want).abs()
    );
}

fn dataset(name: char) -> (DMatrix<f64>, DMatrix<f64>) {
    match name {
        'A' => {
            let g = normals(1, 500, 2);
            let x = g.columns(0, 1).into_owned();
            let y = DMatrix::from_fn(500, 1, |i, _| 0.6 * g[(i, 0)] + 0.8 * g[(i, 1)]);
            (x, y)
        }
        'B' => {
            let g = normals(2, 400, 2);
            let x = g.columns(0, 1).into_owned();
            let y = DMatrix::from_fn(400, 1, |i, _| g[(i, 0)] * g[(i, 0)] * g[(i, 0)] + 0.5 * g[(i, 1)]);
            (x, y)
        }
        _ => {
            let g = normals(3, 300, 5);
            let x = g.columns(0, 2).into_owned();
            let y = DMatrix::from_fn(300, 3, |i, j| match j {
                0 => 0.7 * g[(i, 0)] + 0.7 * g[(i, 2)],
                1 => g[(i, 1)] - 0.5 * g[(i, 3)],
                _ => g[(i, 4)] + 0.3 * g[(i, 0)],
            });
            (x, y)
        }
    }
}

#[test]
fn the_data_are_the_scripts_data() {
    let (x, y) = dataset('A');
    assert_eq!((x[(0, 0)], y[(0, 0)]), (1.4243480905156511, 0.3594854464065362));
    let (x, y) = dataset('B');
    assert_eq!((x[(0, 0)], y[(0, 0)]), (0.5802847116206475, -0.5522633163099103));
    let (x, y) = dataset('C');
    assert_eq!((x[(0, 0)], x[(0, 1)]), (0.16602525475545793, 0.1192914359665398));
    assert_eq!((y[(0, 0)], y[(0, 1)], y[(0, 2)]), (0.4734656834209736, 0.15845663082437955, -0.16811862825786159));
}

#[test]
fn ksg_matches_the_brute_force_numpy_reference() {
    let table = [
        ('A', [KSG1_A_K3, KSG2_A_K3, KSG1_A_K5, KSG2_A_K5]),
        ('B', [KSG1_B_K3, KSG2_B_K3, KSG1_B_K5, KSG2_B_K5]),
        ('C', [KSG1_C_K3, KSG2_C_K3, KSG1_C_K5, KSG2_C_K5]),
    ];
    for (ds, refs) in table {
        let (x, y) = dataset(ds);
        let cases = [(3, KsgVariant::Ksg1), (3, KsgVariant::Ksg2), (5, KsgVariant::Ksg1), (5, KsgVariant::Ksg2)];
        for ((k, v), want) in cases.into_iter().zip(refs) {
            let got = ksg_mi(x.as_view(), y.as_view(), k, v).unwrap();
            close(&format!("{v:?} k={k} on {ds}"), got, want, TOL);
            for search in [KsgSearch::Tree, KsgSearch::Scan] {
                let got = ksg_with(x.as_view(), y.as_view(), k, v, search).unwrap().mi;
                close(&format!("{v:?} k={k} {search:?} on {ds}"), got, want, TOL);
            }
        }
    }
}

/// scikit-learn's `mutual_info_regression` with k = 3 (and 5), without its scaling and noise,
/// i.e. its `_compute_mi_cc`, equals KSG-1 in one dimension.
#[test]
fn ksg1_matches_scikit_learn_without_noise() {
    for (ds, k3, k5) in [('A', SKLEARN_CC_A_K3, SKLEARN_CC_A_K5), ('B', SKLEARN_CC_B_K3, SKLEARN_CC_B_K5)] {
        let (x, y) = dataset(ds);
        close(&format!("k=3 on {ds}"), ksg_mi(x.as_view(), y.as_view(), 3, KsgVariant::Ksg1).unwrap(), k3, TOL);
        close(&format!("k=5 on {ds}"), ksg_mi(x.as_view(), y.as_view(), 5, KsgVariant::Ksg1).unwrap(), k5, TOL);
    }
}

/// The public `mutual_info_regression(x, y, n_neighbors=3)` scales each column and adds noise of
/// relative size 1e-10 from its own generator; the `Ksg` estimator does the same with its own
/// seed. On tie-free data the noise moves no neighbour count, so the two agree to rounding of
/// the scaling; 1e-9 is the tolerance.
#[test]
fn ksg_estimator_matches_public_mutual_info_regression() {
    for (ds, want) in [('A', SKLEARN_MIR_A_K3), ('B', SKLEARN_MIR_B_K3)] {
        let (x, y) = dataset(ds);
        let mut est = Ksg::new(3, KsgVariant::Ksg1).unwrap();
        est.subsamples = 0;
        let got = est.estimate(x.as_view(), y.as_view(), 11).unwrap();
        close(&format!("mutual_info_regression on {ds}"), got.value, want, TOL);
    }
}

#[test]
fn gaussian_and_copula_match_gcmi() {
    let (x, y) = dataset('A');
    close("gaussian A", gaussian_mi(x.as_view(), y.as_view()).unwrap(), GAUSS_A, TOL);
    close("plug-in A", gaussian_mi_plugin(x.as_view(), y.as_view()).unwrap(), GAUSS_PLUGIN_A, TOL);
    close("ρ₁ A", canonical_correlations(x.as_view(), y.as_view()).unwrap()[0], CANON_A_1, TOL);
    close("copula A", copula_mi(x.as_view(), y.as_view()).unwrap(), COPULA_A, TOL);
    let (x, y) = dataset('B');
    close("gaussian B", gaussian_mi(x.as_view(), y.as_view()).unwrap(), GAUSS_B, TOL);
    close("plug-in B", gaussian_mi_plugin(x.as_view(), y.as_view()).unwrap(), GAUSS_PLUGIN_B, TOL);
    close("ρ₁ B", canonical_correlations(x.as_view(), y.as_view()).unwrap()[0], CANON_B_1, TOL);
    close("copula B", copula_mi(x.as_view(), y.as_view()).unwrap(), COPULA_B, TOL);
    let (x, y) = dataset('C');
    close("gaussian C", gaussian_mi(x.as_view(), y.as_view()).unwrap(), GAUSS_C, TOL);
    close("plug-in C", gaussian_mi_plugin(x.as_view(), y.as_view()).unwrap(), GAUSS_PLUGIN_C, TOL);
    let rho = canonical_correlations(x.as_view(), y.as_view()).unwrap();
    assert_eq!(rho.len(), 2);
    close("ρ₁ C", rho[0], CANON_C_1, TOL);
    close("ρ₂ C", rho[1], CANON_C_2, TOL);
    close("copula C", copula_mi(x.as_view(), y.as_view()).unwrap(), COPULA_C, TOL);
    // The plug-in value is −½ Σ ln(1 − ρᵢ²).
    let from_rho = -0.5 * rho.iter().map(|r| (1.0 - r * r).ln()).sum::<f64>();
    close("plug-in = −½Σln(1−ρ²)", from_rho, GAUSS_PLUGIN_C, TOL);
}

#[test]
fn kozachenko_leonenko_matches_scipy_kdtree() {
    let table = [
        ('A', [KL_MAX_A_K3, KL_EUC_A_K3, KL_MAX_A_K5, KL_EUC_A_K5]),
        ('B', [KL_MAX_B_K3, KL_EUC_B_K3, KL_MAX_B_K5, KL_EUC_B_K5]),
        ('C', [KL_MAX_C_K3, KL_EUC_C_K3, KL_MAX_C_K5, KL_EUC_C_K5]),
    ];
    for (ds, refs) in table {
        let (x, y) = dataset(ds);
        let mut xy = DMatrix::zeros(x.nrows(), x.ncols() + y.ncols());
        xy.columns_mut(0, x.ncols()).copy_from(&x);
        xy.columns_mut(x.ncols(), y.ncols()).copy_from(&y);
        let cases =
            [(3, EntropyNorm::Max), (3, EntropyNorm::Euclidean), (5, EntropyNorm::Max), (5, EntropyNorm::Euclidean)];
        for ((k, norm), want) in cases.into_iter().zip(refs) {
            close(&format!("KL {norm:?} k={k} on {ds}"), kl_entropy(xy.as_view(), k, norm).unwrap(), want, TOL);
        }
    }
}

#[test]
fn binned_matches_numpy_histogramdd() {
    let (x, y) = dataset('A');
    close("binned A 4", binned_mi(x.as_view(), y.as_view(), Some(4)).unwrap(), BINNED_A_B4, TOL);
    close("binned A 8", binned_mi(x.as_view(), y.as_view(), Some(8)).unwrap(), BINNED_A_B8, TOL);
    let (x, y) = dataset('B');
    close("binned B 4", binned_mi(x.as_view(), y.as_view(), Some(4)).unwrap(), BINNED_B_B4, TOL);
    close("binned B 8", binned_mi(x.as_view(), y.as_view(), Some(8)).unwrap(), BINNED_B_B8, TOL);
    let (x, y) = dataset('C');
    close("binned C 3", binned_mi(x.as_view(), y.as_view(), Some(3)).unwrap(), BINNED_C_B3, TOL);
}

/// ψ against values from the DLMF: ψ(1) = −γ, ψ(1/2) = −γ − 2 ln 2, and the recurrence.
#[test]
fn digamma_matches_closed_forms() {
    let gamma = 0.577_215_664_901_532_9;
    close("ψ(1)", digamma(1.0), -gamma, 1e-15);
    close("ψ(1/2)", digamma(0.5), -gamma - 2.0 * std::f64::consts::LN_2, 1e-15);
    // ψ(n) = −γ + H_{n−1}, summed in the order of smallest terms first.
    for n in [2usize, 7, 10, 11, 50, 1000, 100_000] {
        let h: f64 = (1..n).rev().map(|j| 1.0 / j as f64).sum();
        close(&format!("ψ({n})"), digamma(n as f64), -gamma + h, 1e-13);
    }
}

// ---- brute force KSG-1, O(n²), straight from Kraskov et al. (2004), eq. 8 ----

fn maxdist(m: &DMatrix<f64>, i: usize, j: usize) -> f64 {
    (0..m.ncols()).map(|c| (m[(i, c)] - m[(j, c)]).abs()).fold(0.0, f64::max)
}

fn ksg1_brute(x: &DMatrix<f64>, y: &DMatrix<f64>, k: usize) -> f64 {
    let n = x.nrows();
    let mut sum = 0.0;
    for i in 0..n {
        let mut d: Vec<f64> = (0..n).filter(|&j| j != i).map(|j| maxdist(x, i, j).max(maxdist(y, i, j))).collect();
        d.sort_by(f64::total_cmp);
        let eps = d[k - 1];
        let nx = (0..n).filter(|&j| j != i && maxdist(x, i, j) < eps).count();
        let ny = (0..n).filter(|&j| j != i && maxdist(y, i, j) < eps).count();
        sum += statrs::function::gamma::digamma((nx + 1) as f64) + statrs::function::gamma::digamma((ny + 1) as f64);
    }
    statrs::function::gamma::digamma(k as f64) + statrs::function::gamma::digamma(n as f64) - sum / n as f64
}

/// Independent of the Python reference: a different digamma (statrs) and a different search.
/// The tolerance allows for statrs' digamma (relative accuracy ~1e-13 on these arguments).
#[test]
fn ksg1_matches_brute_force_in_the_test() {
    let mut cases: Vec<(String, DMatrix<f64>, DMatrix<f64>)> =
        "ABC".chars().map(|c| (c.to_string(), dataset(c).0, dataset(c).1)).collect();
    // Larger and higher-dimensional: the tree path (joint 6) and the brute-force path (joint 14).
    for (seed, n, dx, dy) in [(7u64, 1500usize, 3usize, 3usize), (8, 400, 7, 7)] {
        let g = normals(seed, n, dx + dy);
        let x = g.columns(0, dx).into_owned();
        let y = DMatrix::from_fn(n, dy, |i, j| 0.8 * g[(i, j)] + 0.6 * g[(i, dx + j)]);
        cases.push((format!("{dx}+{dy} n={n}"), x, y));
    }
    for (name, x, y) in &cases {
        for k in [1, 3, 5] {
            let want = ksg1_brute(x, y, k);
            for search in [KsgSearch::Auto, KsgSearch::Tree, KsgSearch::Scan] {
                let got = ksg_with(x.as_view(), y.as_view(), k, KsgVariant::Ksg1, search).unwrap().mi;
                close(&format!("KSG-1 k={k} {search:?} on {name}"), got, want, TOL);
            }
            // KSG-2: the tree and the scan give identical counts on tie-free data.
            let tree = ksg_with(x.as_view(), y.as_view(), k, KsgVariant::Ksg2, KsgSearch::Tree).unwrap();
            let scan = ksg_with(x.as_view(), y.as_view(), k, KsgVariant::Ksg2, KsgSearch::Scan).unwrap();
            assert_eq!(tree, scan, "KSG-2 k={k} on {name}");
        }
    }
}
