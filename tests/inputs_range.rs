//! Estimators outside the range where their numbers mean something (issue #54): huge
//! magnitudes read as their scaled data, and a warning (or a refusal naming the parameter)
//! wherever a value would be wrong without one — one outlier swamping a column in the
//! per-feature estimates, more binned cells than rows, KSG's k near the number of rows.

use mibound::data::VarKind;
use mibound::estimators::classical::{Binned, Ksg, KsgVariant, TieNoise, feature_mi, mi_matrix};
use mibound::estimators::{Estimator, WarningCode};
use nalgebra::DMatrix;

use crate::common;

/// `n` rows: x (2 columns: one that carries y, one that does not) and y = x₀ + ½ ε.
fn data(n: usize) -> (DMatrix<f64>, Vec<f64>) {
    let g = common::splitmix_normals(54, n, 3);
    let x = DMatrix::from_fn(n, 2, |i, j| g[(i, j)]);
    let y = (0..n).map(|i| g[(i, 0)] + 0.5 * g[(i, 2)]).collect();
    (x, y)
}

/// Values times 1e160 (whose squares overflow) read as the values themselves: the scaling is
/// done in units of the largest magnitude (mutual_info_regression(X * 1e160, y) read [0, 0]).
#[test]
fn huge_magnitudes_read_as_their_scaled_data() {
    let (x, y) = data(300);
    let kinds = [VarKind::Continuous; 2];
    let plain = feature_mi(x.as_view(), &kinds, &y, VarKind::Continuous, 3, &TieNoise::Off, &[]).unwrap().0;
    for scale in [1e160, 1e-160, 1e300] {
        let big = x.map(|v| v * scale);
        let yb: Vec<f64> = y.iter().map(|v| v * scale).collect();
        let (mi, warnings) =
            feature_mi(big.as_view(), &kinds, &yb, VarKind::Continuous, 3, &TieNoise::Off, &[]).unwrap();
        assert!(warnings.is_empty(), "{scale}: {warnings:?}");
        for j in 0..2 {
            assert!((mi[j] - plain[j]).abs() < 1e-9, "{scale}: column {j}: {} vs {}", mi[j], plain[j]);
        }
    }
    assert!(plain[0] > 0.3, "the dependent column reads its MI: {}", plain[0]);
}

/// One value of 1e160 among values near 1: after the scaling the others lie within the
/// 1e-10-relative noise, the column reads the noise's MI, and a warning names it (as
/// scikit-learn, which reads it the same way); so does the matrix.
#[test]
fn one_outlier_that_swamps_a_column_is_named() {
    let (mut x, y) = data(300);
    x[(5, 0)] = 1e160;
    let names = ["a".to_string(), "b".to_string()];
    let kinds = [VarKind::Continuous; 2];
    let (_, warnings) =
        feature_mi(x.as_view(), &kinds, &y, VarKind::Continuous, 3, &TieNoise::Seeded(0), &names).unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0].code, WarningCode::HeavyTails);
    let m = &warnings[0].message;
    assert!(
        m.starts_with("column 0 ('a'): after scaling by its standard deviation, 298 of its 300 distinct values"),
        "{m}"
    );
    assert!(m.contains("1e160") && m.contains("transform the column first"), "{m}");
    let (_, warnings) = mi_matrix(x.as_view(), &kinds, 3, &TieNoise::Seeded(0), &names).unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    // Sparse columns (most values 0) and rounded data are not swamped.
    let sparse = DMatrix::from_fn(300, 2, |i, j| {
        if i % 10 == 0 {
            x[(i, 1)]
        } else if j == 0 {
            0.0
        } else {
            x[(i, 1)]
        }
    });
    let (_, w) = mi_matrix(sparse.as_view(), &kinds, 3, &TieNoise::Seeded(0), &[]).unwrap();
    assert!(w.is_empty(), "{w:?}");
}

/// `k` above half of the rows: a warning with the numbers, for the per-feature estimates
/// and KSG; KSG refuses k ≥ N − 1, where the estimate is 0 by construction.
#[test]
fn k_near_the_number_of_rows_is_warned_or_refused() {
    let (x, y) = data(40);
    let kinds = [VarKind::Continuous; 2];
    let (_, w) = feature_mi(x.as_view(), &kinds, &y, VarKind::Continuous, 21, &TieNoise::Off, &[]).unwrap();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].message.starts_with("k = 21 neighbours is more than half of the 40 rows"), "{}", w[0].message);
    let (_, w) = feature_mi(x.as_view(), &kinds, &y, VarKind::Continuous, 20, &TieNoise::Off, &[]).unwrap();
    assert!(w.is_empty(), "k = N/2 is not warned: {w:?}");
    let ym = DMatrix::from_column_slice(40, 1, &y);
    let xa = x.columns(0, 1);
    let e = Ksg::new(39, KsgVariant::Ksg1).unwrap().estimate(xa, ym.as_view(), 0).unwrap_err().to_string();
    assert_eq!(
        e,
        "invalid ksg k = 39: must be at most the number of rows − 2 (38): with k ≥ N − 1 every neighbourhood is the whole sample and the estimate is 0 whatever the data"
    );
    let warned = |k: usize| {
        let est = Ksg::new(k, KsgVariant::Ksg1).unwrap().estimate(xa, ym.as_view(), 0).unwrap();
        est.diagnostics.warnings.iter().any(|w| w.code == WarningCode::FewRows && w.message.contains("more than half"))
    };
    assert!(warned(38) && warned(21) && !warned(20) && !warned(5));
}

/// More joint cells than rows: the binned estimate reads the binning (300 rows, 60 bins per
/// coordinate, 3600 cells: 1.7 nats for a truth of 0.35), and says so; the default rule's bins
/// are not warned.
#[test]
fn binned_with_more_cells_than_rows_is_warned() {
    let (x, y) = data(300);
    let ym = DMatrix::from_column_slice(300, 1, &y);
    let xa = x.columns(0, 1);
    let sparse = |bins: Option<usize>| {
        let est = Binned::new(bins).unwrap().estimate(xa, ym.as_view(), 0).unwrap();
        est.diagnostics.warnings.into_iter().find(|w| w.code == WarningCode::SparseCells)
    };
    let w = sparse(Some(60)).expect("warned");
    assert!(
        w.message.starts_with("binned with 60 bins per coordinate: 60^2 = 3600 joint cells for 300 rows"),
        "{}",
        w.message
    );
    assert!(
        w.message.ends_with("use at most 7 bins (the default rule, five rows per cell on average)"),
        "{}",
        w.message
    );
    assert!(sparse(Some(1_000_000)).is_some());
    assert!(sparse(None).is_none() && sparse(Some(17)).is_none() && sparse(Some(18)).is_some());
}
