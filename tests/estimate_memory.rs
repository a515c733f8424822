//! Memory bounded by the batch, not the data: a neural estimate plans its peak memory before
//! any work and refuses, with an error naming the setting to change, one that would exceed
//! the limit it may use (issue #53: 2·10⁵ rows used to abort with "memory allocation of
//! 6400000000 bytes failed" after minutes).

use mibound::Error;
use mibound::bounds::BoundSpec;
use mibound::data::Sampler;
use mibound::estimators::neural::{NeuralConfig, estimate_bounds};
use nalgebra::DMatrix;

/// `n` rows of a 4 + 4-dim Gaussian with 1 nat, from `seed`.
fn data(n: usize, seed: u64) -> (DMatrix<f64>, DMatrix<f64>) {
    let task = mibound::data::CorrelatedGaussian::with_mi(4, 1.0).unwrap();
    task.sample(n, &mut mibound::rng::rng(seed))
}

/// The planned peak in MB of an estimate on `n` rows, read off the refusal at a 1 MB limit.
fn needed_mb(cfg: &NeuralConfig, n: usize) -> u64 {
    let (x, y) = data(n, 1);
    let mut cfg = cfg.clone();
    cfg.max_memory_mb = Some(1);
    // Refused before any training: no training step is counted (a step taken before the
    // refusal would be, as the counter reports the rest when a run ends).
    let steps = std::sync::atomic::AtomicU64::new(0);
    let count = |s: u64| {
        steps.fetch_add(s, std::sync::atomic::Ordering::Relaxed);
    };
    let e = estimate_bounds(&[BoundSpec::InfoNce], &cfg.check().unwrap(), x.as_view(), y.as_view(), 0, Some(&count))
        .expect_err("refused");
    assert_eq!(steps.into_inner(), 0, "refused only after training steps");
    match e {
        Error::Memory { needed_mb, limit_mb, .. } => {
            assert_eq!(limit_mb, 1);
            needed_mb
        }
        other => panic!("expected a memory error, got {other}"),
    }
}

#[test]
fn an_estimate_too_large_for_its_memory_limit_is_refused_naming_the_setting() {
    let (x, y) = data(40_000, 0);
    let mut cfg = NeuralConfig::default();
    // Test batches of the whole test fold (8000 rows): scores of 8000 × 8000 pairs.
    cfg.test_batch = Some(8000);
    cfg.max_memory_mb = Some(300);
    let e = estimate_bounds(&[BoundSpec::InfoNce], &cfg.check().unwrap(), x.as_view(), y.as_view(), 0, None)
        .expect_err("more than 300 MB planned");
    let text = e.to_string();
    assert!(matches!(e, Error::Memory { .. }), "{text}");
    assert!(text.contains("test_batch") && text.contains("max_memory_mb") && text.contains("300 MB"), "{text}");
}

#[test]
fn the_planned_peak_grows_at_most_linearly_in_the_rows_and_stops_at_the_caps() {
    let cfg = NeuralConfig::default();
    let (small, ten_times) = (needed_mb(&cfg, 4_000), needed_mb(&cfg, 40_000));
    assert!(ten_times <= 10 * small, "4000 rows: {small} MB, 40000 rows: {ten_times} MB");
    // Beyond the caps of a fold's rows (2^16 training and 2^16 test rows) and of a test batch
    // (2048 rows) nothing grows.
    let (large, twice) = (needed_mb(&cfg, 400_000), needed_mb(&cfg, 800_000));
    assert_eq!(large, twice, "400000 rows: {large} MB, 800000 rows: {twice} MB");
    assert!(large < 2_000, "{large} MB planned for 4 + 4 columns");
}

/// `mibound estimate` on the rows written to `dir` (x.npy, y.npy), with cheap settings and
/// `extra` options.
fn cli_estimate(dir: &std::path::Path, extra: &[&str]) -> std::process::Output {
    let (x, y) = (dir.join("x.npy"), dir.join("y.npy"));
    let mut args = vec!["estimate", "--x", x.to_str().unwrap(), "--y", y.to_str().unwrap(), "--json"];
    args.extend([
        "--estimators",
        "infonce",
        "--critic",
        "separable",
        "--steps",
        "20",
        "--hidden",
        "16",
        "--embed",
        "8",
    ]);
    args.extend(extra);
    std::process::Command::new(env!("CARGO_BIN_EXE_mibound")).args(&args).output().unwrap()
}

#[test]
fn the_command_line_refuses_an_estimate_above_its_memory_limit_in_one_line_and_runs_one_within_it() {
    let d = crate::common::temp_dir("memory", "cli");
    let (x, y) = data(3000, 2);
    mibound::data::files::write_npy(&d.join("x.npy"), &x).unwrap();
    mibound::data::files::write_npy(&d.join("y.npy"), &y).unwrap();
    let refused = cli_estimate(&d, &["--max-memory-mb", "1"]);
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(refused.stdout.is_empty() && !err.contains("panicked"), "{err}");
    // The limit named as the library and Python spell it and as the command line does.
    assert!(err.starts_with("error: the estimate would need about ") && err.contains("more than the 1 MB"), "{err}");
    assert!(err.contains("max_memory_mb / --max-memory-mb"), "{err}");
    // The planned peak it names is enough: at that limit the estimate runs, with the numbers
    // it gives without a limit.
    let needed = err.split("about ").nth(1).and_then(|r| r.split(' ').next()).unwrap();
    assert!(needed.parse::<u64>().unwrap() > 1, "{err}");
    let value = |out: std::process::Output| -> f64 {
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["estimates"][0]["value"].as_f64().unwrap()
    };
    let within = value(cli_estimate(&d, &["--max-memory-mb", needed]));
    assert_eq!(within, value(cli_estimate(&d, &[])));
    // A limit of 0 is refused where the options enter, naming it.
    let zero = cli_estimate(&d, &["--max-memory-mb", "0"]);
    assert_eq!(zero.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&zero.stderr).contains("invalid max_memory_mb = 0"));
}
