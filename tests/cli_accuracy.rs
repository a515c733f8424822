//! `mibound estimate` with its default settings on simulated data with known MI (release mode,
//! fixed seeds): the acceptance criteria of the CLI issue.

use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mibound"))
}

/// Samples a Gaussian task with `mibound sample` and estimates it with default settings.
fn estimate(name: &str, dim: usize, mi: f64, n: usize, seed: u64) -> serde_json::Value {
    estimate_with(name, dim, mi, n, seed, &[])
}

/// As [`estimate`], with more arguments for `mibound estimate` (`--estimators …`).
fn estimate_with(name: &str, dim: usize, mi: f64, n: usize, seed: u64, more: &[&str]) -> serde_json::Value {
    let d = crate::common::temp_dir("acc", name);
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
        .args(more)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    println!("{name}: {v}");
    v
}

fn field(e: &serde_json::Value) -> (f64, f64, f64) {
    let ci = &e["interval"];
    (e["value"].as_f64().unwrap(), ci["low"].as_f64().unwrap(), ci["high"].as_f64().unwrap())
}

/// The comparison of `infonce,ksg` is the neural headline and the classical cross-check (KSG):
/// both present, the headline first.
fn headline_and_cross_check(v: &serde_json::Value) {
    let names: Vec<&str> =
        v["estimates"].as_array().unwrap().iter().map(|e| e["estimator"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 2, "estimators: {names:?}");
    assert_eq!(names[0], "infonce", "headline: {names:?}");
    assert!(names[1].starts_with("ksg"), "cross-check: {names:?}");
}

/// The estimate the JSON names as the headline.
fn headline(v: &serde_json::Value) -> &serde_json::Value {
    &v["estimates"][v["headline"].as_u64().expect("a headline index") as usize]
}

/// The default's list above 4 joint dimensions (with 2000 rows or more): the neural bound, the
/// cross-check and the copula estimate (`auto::copula_applies`).
fn default_list(v: &serde_json::Value) {
    let names: Vec<&str> =
        v["estimates"].as_array().unwrap().iter().map(|e| e["estimator"].as_str().unwrap()).collect();
    assert_eq!(names, ["infonce", "ksg:k=5", "copula"], "estimators");
}

/// The default on `mibound sample gaussian` (independent pairs of coordinates, the MI spread
/// evenly): KSG summed over the pairs alone (docs/results.md §22), within `tolerance` of `mi`.
fn summed_over_pairs(v: &serde_json::Value, dim: usize, mi: f64, tolerance: f64) {
    let e = &v["estimates"][0];
    assert_eq!(v["estimates"].as_array().unwrap().len(), 1, "{}", v["estimates"]);
    assert_eq!(e["estimator"], "ksg-blocks:k=3");
    assert_eq!(e["label"].as_str().unwrap(), format!("KSG-1 (k=3, normal scores) summed over {dim} blocks"));
    let (est, _, _) = field(e);
    assert!((est - mi).abs() <= tolerance, "default {est} not within {tolerance} of {mi}");
    assert!(v["significant"].as_bool().unwrap());
}

/// The default (KSG over the 20 pairs) and the neural bound asked for by name each within 0.25
/// of the truth, the bound's interval not above the truth, and KSG on all 40 columns at once,
/// its cross-check, flagged as biased on its own, with no cross-check warning on the headline.
#[test]
#[ignore = "acceptance (minutes): run by .ci/run with --ignored"]
fn twenty_dimensional_gaussian_with_two_nats() {
    summed_over_pairs(&estimate("d20", 20, 2.0, 5000, 0), 20, 2.0, 0.25);
    let v = estimate_with("d20n", 20, 2.0, 5000, 0, &["--estimators", "infonce,ksg"]);
    let (est, lo, _) = field(&v["estimates"][0]);
    assert!((est - 2.0).abs() <= 0.25, "headline {est} not within 0.25 of 2");
    // "Covering I or lying below it" is exactly: the lower end is not above I.
    assert!(lo <= 2.0, "the interval [{lo}, …] lies above the truth");
    assert!(v["significant"].as_bool().unwrap());
    headline_and_cross_check(&v);
    // KSG's downward bias in 40 joint dimensions (it reads ≈ 0.5 here) reaches the user as
    // KSG's own warning; it is no reason to doubt the headline, which is right: the cross-check
    // (judged against KSG's reading on a Gaussian of this shape) stays silent.
    let ksg_warned = v["estimates"][1]["diagnostics"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w["code"] == "high-dimension" && w["message"].as_str().unwrap().contains("downward bias"));
    assert!(ksg_warned, "KSG's own estimate is not flagged: {}", v["estimates"][1]);
    let cross = v["warnings"].as_array().unwrap().iter().any(|w| w["code"] == "cross-check");
    assert!(!cross, "a cross-check warning on a right headline: {}", v["warnings"]);
}

/// The default (KSG over the 5 pairs) and the neural bound asked for by name, each within 0.15
/// of the truth, the bound's interval not above it.
#[test]
#[ignore = "acceptance (minutes): run by .ci/run with --ignored"]
fn five_dimensional_gaussian_with_one_nat() {
    summed_over_pairs(&estimate("d5", 5, 1.0, 2000, 1), 5, 1.0, 0.15);
    let v = estimate_with("d5n", 5, 1.0, 2000, 1, &["--estimators", "infonce,ksg"]);
    let (est, lo, _) = field(&v["estimates"][0]);
    assert!((est - 1.0).abs() <= 0.15, "headline {est} not within 0.15 of 1");
    assert!(lo <= 1.0);
    headline_and_cross_check(&v);
}

/// The permutation p-value of the independence test (`dependence_test.p_value`).
fn p_value(v: &serde_json::Value) -> f64 {
    v["dependence_test"]["p_value"].as_f64().unwrap()
}

/// Independent data against a weakly dependent twin (same d, n and seed; I = 0.1 nats). The
/// headline estimate on independent data is pulled to 0 by construction (the information-free
/// critic is a candidate in validation), so its ±0.05 check is not what this test rests on. What can fail:
/// - the independent data's permutation p-value must exceed 0.05 and `significant` be false
///   (the test is exact: under independence `P(p ≤ 0.05) ≤ 0.05`, so this fixed seed passes
///   with probability ≥ 0.95 and a leak of pairing information would make p small);
/// - the twin must be detected (p ≤ 0.05) and its headline estimate must be positive, i.e. a
///   trained critic beat the information-free one on validation and kept it on held-out rows:
///   a pipeline that always returns 0 or never rejects independence fails here. At n = 2000
///   the KSG statistic's null spread is ≈ 0.01 nats, ten times below 0.1.
///
/// Measured (seed 2, with the 500-step pilot and the test's `derive_seed` streams, 2026-11-25):
/// independent p = 0.18, headline InfoNCE −0.002 [−0.006, 0.002]; twin p = 0.01 (the smallest
/// value 99 permutations give), InfoNCE 0.060 [0.032, 0.089]. Since the copula bound (normal
/// sides), the headline on both is the larger of InfoNCE and it (2026-12-02, independent: the
/// copula 0.001 [−0.006, 0.006]).
#[test]
#[ignore = "acceptance (minutes): run by .ci/run with --ignored"]
fn independent_variables_give_zero_and_no_significance() {
    let v = estimate("indep", 5, 0.0, 2000, 2);
    let (est, _, _) = field(headline(&v));
    assert!(est.abs() <= 0.05, "headline {est} not within 0.05 of 0");
    assert!(!v["significant"].as_bool().unwrap(), "flagged as significant");
    assert!(p_value(&v) > 0.05, "independent data: permutation p-value {} ≤ 0.05", p_value(&v));
    default_list(&v);
    // The cross-check agrees with the truth too: KSG within 0.05 of 0 on independent data.
    let (ksg, _, _) = field(&v["estimates"][1]);
    assert!(ksg.abs() <= 0.05, "KSG {ksg} not within 0.05 of 0");
    let twin = estimate("weak", 5, 0.1, 2000, 2);
    assert!(twin["significant"].as_bool().unwrap(), "I = 0.1 not detected: p = {}", p_value(&twin));
    assert!(p_value(&twin) <= 0.05);
    let (est, lo, _) = field(headline(&twin));
    assert!(est > 0.0 && lo <= 0.1, "weakly dependent twin: headline {est} (low end {lo})");
}
