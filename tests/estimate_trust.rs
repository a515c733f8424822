//! `mibound estimate` on real, non-Gaussian data (issue #16): one test per row of the issue's
//! table of failures, with the library's default settings unless a row says otherwise. Release
//! mode, fixed seeds. Each test asserts what a user must see: a sane number, or a warning that
//! says why the number is not to be trusted.

use mibound::data::Sampler;
use mibound::estimators::{Comparison, EstimatorSpec, Kind, Settings, compare};
use mibound::rng::rng;
use nalgebra::DMatrix;
use std::process::Command;

fn run(specs: &str, x: &DMatrix<f64>, y: &DMatrix<f64>, settings: &Settings, seed: u64) -> Comparison {
    let c =
        compare(&EstimatorSpec::parse_list(specs).unwrap(), settings, x.as_view(), y.as_view(), seed, None).unwrap();
    for e in &c.estimates {
        println!(
            "{:<12} {:>9.3} [{:.3}, {:.3}] {:?}",
            e.label, e.value, e.interval.low, e.interval.high, e.diagnostics.warnings
        );
    }
    println!("significant: {} {:?}; warnings: {:?}", c.significant, c.dependence_test, c.warnings);
    c
}

fn all_warnings(c: &Comparison) -> String {
    c.estimates
        .iter()
        .flat_map(|e| e.diagnostics.warnings.iter())
        .chain(&c.warnings)
        .map(|w| w.message.clone())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The acceptance: within max(0.25, 25 %) of the truth.
fn close(est: f64, truth: f64) -> bool {
    (est - truth).abs() <= (0.25f64).max(0.25 * truth)
}

/// A CSV file with x then y columns, written as tests write them (no index).
fn csv(path: &std::path::Path, x: &DMatrix<f64>, y: &DMatrix<f64>) {
    let mut s = String::new();
    s += &(0..x.ncols())
        .map(|j| format!("X{j}"))
        .chain((0..y.ncols()).map(|j| format!("Y{j}")))
        .collect::<Vec<_>>()
        .join(",");
    s += "\n";
    for i in 0..x.nrows() {
        s += &x.row(i).iter().chain(y.row(i).iter()).map(|v| format!("{v:e}")).collect::<Vec<_>>().join(",");
        s += "\n";
    }
    std::fs::write(path, s).unwrap();
}

fn tmp(name: &str) -> crate::common::TempDir {
    crate::common::temp_dir("trust", name)
}

/// Row 1: bmi's `student-identity-2-2-1` through `mibound bmi` read −7.65 (true 0.43).
#[test]
#[ignore = "acceptance (minutes): run by .ci/run with --ignored"]
fn student_t_through_the_bmi_protocol_is_sane() {
    let task = mibound::tasks::get("student-identity-2-2-1").unwrap();
    let (x, y) = task.draw(5000, 0).unwrap();
    let d = tmp("student");
    let f = d.join("sample");
    csv(&f, &x, &y);
    let out =
        Command::new(env!("CARGO_BIN_EXE_mibound")).args(["bmi", f.to_str().unwrap(), "2", "2"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "the bmi protocol prints exactly one number: {text:?}");
    let v: f64 = text.trim().parse().unwrap();
    let truth = task.true_mi();
    assert!(v.is_finite() && v >= -0.05 && close(v, truth), "bmi protocol: {v} against true {truth}");
    std::fs::remove_dir_all(&d).ok();
}

/// Row 2: the cubic-transformed 5-d Gaussian with I = 1.5 read L1Out −0.37 and SMILE 1.10.
#[test]
#[ignore = "acceptance (minutes): run by .ci/run with --ignored"]
fn cubic_gaussian_estimates_are_close_or_flagged() {
    let task = mibound::data::Transformed::cubic_y(mibound::data::CorrelatedGaussian::with_mi(5, 1.5).unwrap());
    let (x, y) = task.sample(5000, &mut rng(3));
    let c = run("infonce,smile:5,l1out", &x, &y, &Settings::default(), 0);
    let w = all_warnings(&c);
    for e in &c.estimates {
        assert!(
            close(e.value, 1.5) || w.contains(&e.label),
            "{} = {:.3} is neither close to 1.5 nor flagged",
            e.label,
            e.value
        );
    }
    assert!(close(c.headline().unwrap().value, 1.5));
}

/// Row 3: scikit-learn's digits, left vs right image half: L1Out −359.5 [−1251, 532] and
/// CLUB 7915 without a warning. The conditional model must be caught.
#[test]
#[ignore = "acceptance (minutes): run by .ci/run with --ignored"]
fn digits_upper_bounds_that_are_nonsense_are_called_so() {
    let x = mibound::data::files::read_table(std::path::Path::new("tests/data/digits_left.csv")).unwrap().values;
    let y = mibound::data::files::read_table(std::path::Path::new("tests/data/digits_right.csv")).unwrap().values;
    let c = run("infonce,l1out,club", &x, &y, &Settings::default(), 0);
    let head = c.headline().unwrap();
    // KSG reads 2.30 and InfoNCE 2.37 here (the table); the lower bound stays sane.
    assert!(head.value > 1.0 && head.value < (x.nrows() as f64).ln(), "InfoNCE {}", head.value);
    for e in c.estimates.iter().filter(|e| e.kind == Kind::UpperIfExact) {
        let plausible = e.value >= head.value && e.interval.high - e.interval.low < 2.0;
        let flagged = all_warnings(&c).contains(&e.label);
        assert!(
            plausible || flagged,
            "{} = {:.1} [{:.1}, {:.1}] without a warning",
            e.label,
            e.value,
            e.interval.low,
            e.interval.high
        );
    }
    assert!(c.significant);
}

/// Row 4: wine, 6 vs 7 chemistry columns: L1Out −0.50.
#[test]
#[ignore = "acceptance (minutes): run by .ci/run with --ignored"]
fn wine_upper_bound_below_the_lower_bound_is_flagged() {
    let t = mibound::data::files::read_table(std::path::Path::new("tests/data/wine.csv")).unwrap().values;
    // Column 0 is pandas' index.
    let x = t.columns(1, 6).into_owned();
    let y = t.columns(7, 7).into_owned();
    let c = run("infonce,l1out", &x, &y, &Settings::default(), 0);
    let (lo, up) = (&c.estimates[0], &c.estimates[1]);
    assert!(lo.value.is_finite() && lo.value > -0.05);
    if up.value < 0.0 || up.value < lo.value {
        assert!(all_warnings(&c).contains("L1Out"), "L1Out {} below {} without a warning", up.value, lo.value);
    }
}

/// Independent pairs of `n` rows.
fn independent(n: usize, dim: usize, seed: u64) -> (DMatrix<f64>, DMatrix<f64>) {
    mibound::data::CorrelatedGaussian::with_mi(dim, 0.0).unwrap().sample(n, &mut rng(seed))
}

/// Row 5: 500 rows of independent Gaussians: every bound 0.000 [0.000, 0.000], then
/// "dependence detected" (7e-15 > 0) and "bounds cross".
#[test]
#[ignore = "acceptance (minutes): run by .ci/run with --ignored"]
fn independent_rows_are_not_significant_and_nothing_crosses() {
    let (x, y) = independent(500, 5, 11);
    let c = run("infonce,smile:5,l1out", &x, &y, &Settings::default(), 0);
    assert!(!c.significant, "independent data flagged as dependent");
    let t = c.dependence_test.as_ref().unwrap();
    assert!(t.p_value > 0.05, "p = {}", t.p_value);
    assert!(!all_warnings(&c).contains("bounds cross"));
    assert!(c.headline().unwrap().value.abs() < 0.05);
}

/// Row 6: the same 500 independent rows repeated 4 times read 0.612 [0.442, 0.782],
/// "dependence detected": duplicates straddled the folds. Now each set of copies shares a fold.
#[test]
#[ignore = "acceptance (minutes): run by .ci/run with --ignored"]
fn repeated_rows_stay_in_one_fold() {
    let (x0, y0) = independent(500, 5, 12);
    let rep = |m: &DMatrix<f64>| DMatrix::from_fn(2000, m.ncols(), |i, j| m[(i % 500, j)]);
    let (x, y) = (rep(&x0), rep(&y0));
    let c = run("infonce", &x, &y, &Settings::default(), 0);
    let head = c.headline().unwrap();
    assert!(head.value.abs() < 0.05, "{}", head.value);
    assert!(head.interval.low <= 0.0 + 1e-9, "the interval [{}, …] excludes 0", head.interval.low);
    // Counted, not warned of: identical rows share a fold (the data rules drop copies first on
    // every surface; this call skips them).
    assert_eq!(head.diagnostics.values.get("repeated_rows"), Some(&1500.0), "{:?}", head.diagnostics.values);
}

/// Row 7: 600 rows with true MI 13.8: InfoNCE 4.633 and no ceiling warning — test batches were
/// silently 120 rows, not the printed 256.
#[test]
#[ignore = "acceptance (minutes): run by .ci/run with --ignored"]
fn the_ceiling_warning_uses_the_test_batch_actually_used() {
    let task = mibound::data::CorrelatedGaussian::with_mi(10, 13.8).unwrap();
    let (x, y) = task.sample(600, &mut rng(4));
    let c = run("infonce", &x, &y, &Settings::default(), 0);
    let e = &c.estimates[0];
    let eval = e.settings.neural().unwrap().eval_batch;
    assert_eq!(eval, 120, "600 rows in 5 folds: 120 test rows");
    assert!(e.value <= (eval as f64).ln() + 1e-9, "InfoNCE {} above log {eval}", e.value);
    let w = all_warnings(&c);
    assert!(w.contains("ceiling") && w.contains("N = 120"), "{w}");
}

/// Row 8: iris (150 rows) was refused with the defaults ("fewer than the batch"). Now the
/// batch is lowered (the settings say so; a warning only where its log would cap the estimate,
/// which it does not here).
#[test]
#[ignore = "acceptance (minutes): run by .ci/run with --ignored"]
fn iris_works_by_default_with_a_lowered_batch() {
    let t = mibound::data::files::read_table(std::path::Path::new("tests/data/iris.csv")).unwrap().values;
    // Sepal (columns 1–2) against petal (3–4); column 0 is pandas' index.
    let (x, y) = (t.columns(1, 2).into_owned(), t.columns(3, 2).into_owned());
    let c = run("infonce", &x, &y, &Settings::default(), 0);
    let e = &c.estimates[0];
    assert!(e.value.is_finite() && e.value > 0.0, "{}", e.value);
    let batch = serde_json::to_value(&e.settings).unwrap()["batch"].as_u64().unwrap();
    assert!(batch < Settings::default().neural.batch as u64, "batch {batch}");
    assert!(
        e.value < (batch as f64).ln() - 0.5 && !all_warnings(&c).contains("small data set"),
        "{}",
        all_warnings(&c)
    );
    assert!(c.significant, "sepal and petal sizes are dependent");
}
