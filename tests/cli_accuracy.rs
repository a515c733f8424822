//! `mibound estimate` with its default settings on simulated data with known MI (release mode,
//! fixed seeds): the acceptance criteria of the CLI issue.

use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mibound"))
}

/// Samples a Gaussian task with `mibound sample` and estimates it with default settings.
fn estimate(name: &str, dim: usize, mi: f64, n: usize, seed: u64) -> serde_json::Value {
    let d = std::env::temp_dir().join(format!("mibound-acc-{}-{name}", std::process::id()));
    let ds = d.to_str().unwrap();
    let s = bin()
        .args([
            "sample",
            "gaussian",
            "--n",
            &n.to_string(),
            "--dim",
            &dim.to_string(),
            "--mi",
            &mi.to_string(),
            "--seed",
            &seed.to_string(),
            "--out",
            ds,
        ])
        .output()
        .unwrap();
    assert!(s.status.success(), "{}", String::from_utf8_lossy(&s.stderr));
    let out = bin()
        .args(["estimate", "--x", &format!("{ds}/x.npy"), "--y", &format!("{ds}/y.npy"), "--json", "--quiet"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::remove_dir_all(&d).ok();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    println!("{name}: {v}");
    v
}

fn field(e: &serde_json::Value) -> (f64, f64, f64) {
    let ci = &e["interval"];
    (e["value"].as_f64().unwrap(), ci["low"].as_f64().unwrap(), ci["high"].as_f64().unwrap())
}

/// Upper bounds are not below the truth by more than their interval: `hi ≥ I`.
fn uppers_not_below(v: &serde_json::Value, mi: f64) {
    let uppers: Vec<_> = v["estimates"].as_array().unwrap().iter().filter(|e| e["kind"] == "upper-if-exact").collect();
    // The default estimators include L1Out: the check must see it.
    assert!(!uppers.is_empty(), "no upper bound among the default estimators");
    for e in uppers {
        let (est, _, hi) = field(e);
        assert!(hi >= mi, "{}: {est} with interval up to {hi} lies below I = {mi}", e["estimator"]);
    }
}

#[test]
fn twenty_dimensional_gaussian_with_two_nats() {
    let v = estimate("d20", 20, 2.0, 5000, 0);
    let (est, lo, _) = field(&v["estimates"][0]);
    assert!((est - 2.0).abs() <= 0.25, "headline {est} not within 0.25 of 2");
    // "Covering I or lying below it" is exactly: the lower end is not above I.
    assert!(lo <= 2.0, "the interval [{lo}, …] lies above the truth");
    assert!(v["significant"].as_bool().unwrap());
    uppers_not_below(&v, 2.0);
}

#[test]
fn five_dimensional_gaussian_with_one_nat() {
    let v = estimate("d5", 5, 1.0, 2000, 1);
    let (est, lo, _) = field(&v["estimates"][0]);
    assert!((est - 1.0).abs() <= 0.15, "headline {est} not within 0.15 of 1");
    assert!(lo <= 1.0);
    uppers_not_below(&v, 1.0);
}

#[test]
fn independent_variables_give_zero_and_no_significance() {
    let v = estimate("indep", 5, 0.0, 2000, 2);
    let (est, _, _) = field(&v["estimates"][0]);
    assert!(est.abs() <= 0.05, "headline {est} not within 0.05 of 0");
    assert!(!v["significant"].as_bool().unwrap(), "flagged as significant");
    uppers_not_below(&v, 0.0);
}
