//! `mibound features` and `mibound matrix` on integer-valued columns (digits' pixels, counts):
//! detection notes name each column by its header name and say how to declare it a measurement,
//! `--continuous` declares it, and `--discrete none` turns detection off for the features only
//! (a class target stays a class). Release mode, fixed seeds.

use crate::common;

use common::{mibound, temp_dir};
use mibound::data::VarKind;
use mibound::estimators::classical::{TieNoise, feature_mi};
use nalgebra::DMatrix;
use std::path::Path;

const N: usize = 400;

/// A table: `pix0` (6 whole-number levels) and `pix1` (3) carry the class, `m` is a measurement
/// that does not, `target` has 3 classes.
fn table() -> DMatrix<f64> {
    let g = common::splitmix_normals(31, N, 3);
    DMatrix::from_fn(N, 4, |i, j| {
        let class = (i % 3) as f64;
        match j {
            0 => (class * 2.0 + g[(i, 0)]).round().clamp(0.0, 5.0),
            1 => ((class + g[(i, 1)]) / 1.5).round().clamp(0.0, 2.0),
            2 => g[(i, 2)],
            _ => class,
        }
    })
}

fn write(dir: &Path, m: &DMatrix<f64>) -> String {
    let mut s = String::from("pix0,pix1,m,target\n");
    for i in 0..m.nrows() {
        let cells: Vec<String> = (0..m.ncols()).map(|j| format!("{:?}", m[(i, j)])).collect();
        s += &(cells.join(",") + "\n");
    }
    let p = dir.join("pixels.csv");
    std::fs::write(&p, s).unwrap();
    p.to_str().unwrap().to_string()
}

/// `features --json` with `extra`: (JSON, stderr).
fn features(file: &str, extra: &[&str]) -> (serde_json::Value, String) {
    let out = mibound().args(["features", "--x", file, "--target", "target", "--json"]).args(extra).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{extra:?}: {err}");
    (serde_json::from_slice(&out.stdout).unwrap(), err)
}

fn kind_of(v: &serde_json::Value, feature: &str) -> String {
    let rows = v["features"].as_array().unwrap();
    rows.iter().find(|r| r["feature"] == feature).unwrap()["kind"].as_str().unwrap().to_string()
}

fn mi_of(v: &serde_json::Value, feature: &str) -> f64 {
    let rows = v["features"].as_array().unwrap();
    rows.iter().find(|r| r["feature"] == feature).unwrap()["mi"].as_f64().unwrap()
}

#[test]
fn integer_columns_are_noted_by_name_and_declared_continuous_on_request() {
    let dir = temp_dir("cli-features", "continuous");
    let m = table();
    let f = write(&dir, &m);
    // Detected: a note per column, by index and header name, with the option that overrides it.
    let (v, err) = features(&f, &[]);
    assert!(
        err.contains(
            "note: column 0 ('pix0') of the table has 6 distinct integer values: treated as discrete (read it as a measurement with --continuous 'pix0')"
        ),
        "{err}"
    );
    assert!(err.contains("column 1 ('pix1') of the table has 3 distinct"), "{err}");
    assert_eq!(
        (kind_of(&v, "pix0"), kind_of(&v, "m"), v["target_kind"].as_str()),
        ("discrete".into(), "continuous".into(), Some("discrete"))
    );
    // --continuous: that column is a measurement, without a note; the others are still detected.
    let (v, err) = features(&f, &["--continuous", "pix0"]);
    assert!(!err.contains("'pix0'") && err.contains("'pix1'"), "{err}");
    assert_eq!((kind_of(&v, "pix0"), kind_of(&v, "pix1")), ("continuous".into(), "discrete".into()));
    // The library's numbers for those kinds (the same noise seed, 0).
    let kinds = [VarKind::Continuous, VarKind::Discrete, VarKind::Continuous];
    let y: Vec<f64> = m.column(3).iter().copied().collect();
    let lib = feature_mi(m.columns(0, 3), &kinds, &y, VarKind::Discrete, 3, &TieNoise::Seeded(0), &[]).unwrap().0;
    for (j, name) in ["pix0", "pix1", "m"].iter().enumerate() {
        assert_eq!(mi_of(&v, name), lib[j], "{name}");
    }
    // --discrete none: no feature detected, the class target still a class.
    let (v, _) = features(&f, &["--discrete", "none"]);
    assert_eq!(
        (kind_of(&v, "pix0"), kind_of(&v, "pix1"), v["target_kind"].as_str()),
        ("continuous".into(), "continuous".into(), Some("discrete"))
    );
    // --continuous target: regression.
    let (v, _) = features(&f, &["--continuous", "target"]);
    assert_eq!(v["target_kind"], "continuous");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn contradictory_or_unknown_declarations_are_refused_by_name() {
    let dir = temp_dir("cli-features", "refused");
    let f = write(&dir, &table());
    for (extra, needles) in [
        (
            &["--discrete", "pix0", "--continuous", "pix0"][..],
            &["--continuous", "pix0", "also declared --discrete"][..],
        ),
        (&["--continuous", "nosuch"][..], &["--continuous", "nosuch", "names no selected column"][..]),
    ] {
        let out = mibound().args(["features", "--x", &f, "--target", "target"]).args(extra).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(needles.iter().all(|n| err.contains(n)), "{extra:?}: {err}");
    }
    // matrix takes --continuous too.
    let out = mibound().args(["matrix", "--x", &f, "--continuous", "pix0,pix1", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["kinds"], serde_json::json!(["continuous", "continuous", "continuous", "discrete"]));
    std::fs::remove_dir_all(&dir).ok();
}
