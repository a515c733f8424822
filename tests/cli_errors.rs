//! `mibound` on bad input: one line on stderr naming the file (and row/column where it
//! applies: rows and columns 0-based, CSV lines 1-based), exit code 2, no panic, nothing
//! written half-way. And the small commands.

use mibound::data::files::write_npy;
use nalgebra::DMatrix;
use std::path::Path;
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mibound"))
}

fn dir(name: &str) -> crate::common::TempDir {
    crate::common::temp_dir("cli", name)
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

/// Asserts a clean failure: exit 2, one line on stderr containing every `needle`.
fn fails_with(out: &Output, needles: &[&str]) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "exit code; stderr: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line on stderr, got: {err}");
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(err.contains(n), "stderr lacks '{n}': {err}");
    }
    assert!(out.stdout.is_empty(), "nothing on stdout: {}", String::from_utf8_lossy(&out.stdout));
}

fn csv(path: &Path, text: &str) -> String {
    std::fs::write(path, text).unwrap();
    path.to_str().unwrap().to_string()
}

fn good_npy(d: &Path, name: &str, rows: usize, cols: usize) -> String {
    let m = DMatrix::from_fn(rows, cols, |i, j| ((i * 7 + j * 3) % 11) as f64 + 0.1 * i as f64);
    let p = d.join(name);
    write_npy(&p, &m).unwrap();
    p.to_str().unwrap().to_string()
}

/// A raw .npy with the given descr, shape text and payload.
fn raw_npy(path: &Path, descr: &str, shape: &str, payload: &[u8]) -> String {
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut b = b"\x93NUMPY\x01\x00".to_vec();
    b.extend_from_slice(&(header.len() as u16).to_le_bytes());
    b.extend_from_slice(header.as_bytes());
    b.extend_from_slice(payload);
    std::fs::write(path, b).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn nan_and_inf_values_name_file_row_and_column() {
    let d = dir("nan");
    let x = csv(&d.join("x.csv"), "a,b\n1,2\n3,NaN\n5,6\n");
    let y = good_npy(&d, "y.npy", 3, 1);
    fails_with(&run(&["estimate", "--x", &x, "--y", &y]), &["x.csv", "line 3 (row 1)", "column 1 ('b')", "not finite"]);
    let inf = raw_npy(
        &d.join("inf.npy"),
        "<f8",
        "(3, 1)",
        &[1.0f64.to_le_bytes(), f64::INFINITY.to_le_bytes(), 2.0f64.to_le_bytes()].concat(),
    );
    fails_with(&run(&["estimate", "--x", &inf, "--y", &y]), &["inf.npy", "row 1", "column 0"]);
}

#[test]
fn mismatched_rows_empty_files_and_non_numeric_cells() {
    let d = dir("rows");
    let x = good_npy(&d, "x.npy", 10, 2);
    let y = good_npy(&d, "y.npy", 9, 2);
    fails_with(&run(&["estimate", "--x", &x, "--y", &y]), &["y.npy", "9 rows", "10"]);
    let empty = csv(&d.join("empty.csv"), "");
    fails_with(&run(&["estimate", "--x", &empty, "--y", &y]), &["empty.csv", "empty"]);
    let header_only = csv(&d.join("h.csv"), "a,b\n");
    fails_with(&run(&["estimate", "--x", &header_only, "--y", &y]), &["h.csv", "no data rows"]);
    let bad = csv(&d.join("bad.csv"), "1,2\n3,abc\n");
    fails_with(&run(&["estimate", "--x", &bad, "--y", &y]), &["bad.csv", "line 2 (row 1)", "column 1", "abc"]);
    let ragged = csv(&d.join("ragged.csv"), "1,2\n3\n");
    fails_with(&run(&["estimate", "--x", &ragged, "--y", &y]), &["ragged.csv", "line 2"]);
}

#[test]
fn npy_with_wrong_dtype_shape_or_a_lying_header() {
    let d = dir("npy");
    let y = good_npy(&d, "y.npy", 4, 1);
    let ints = raw_npy(&d.join("int.npy"), "<i8", "(4, 1)", &[0u8; 32]);
    fails_with(&run(&["estimate", "--x", &ints, "--y", &y]), &["int.npy", "dtype '<i8'", "float64"]);
    let liar = raw_npy(&d.join("liar.npy"), "<f8", "(1000, 3)", &[0u8; 32]);
    fails_with(&run(&["estimate", "--x", &liar, "--y", &y]), &["liar.npy", "shape (1000, 3)", "holds 32 bytes"]);
    let cube = raw_npy(&d.join("cube.npy"), "<f8", "(2, 2, 1)", &[0u8; 32]);
    fails_with(&run(&["estimate", "--x", &cube, "--y", &y]), &["cube.npy", "3 dimensions"]);
    let huge = raw_npy(&d.join("huge.npy"), "<f8", "(99999999999, 99999999999)", &[0u8; 8]);
    fails_with(&run(&["estimate", "--x", &huge, "--y", &y]), &["huge.npy", "absurdly large"]);
    let junk = d.join("junk.npy");
    std::fs::write(&junk, b"hello").unwrap();
    fails_with(&run(&["estimate", "--x", junk.to_str().unwrap(), "--y", &y]), &["junk.npy", "not an .npy"]);
}

#[test]
fn constant_columns_small_data_and_unknown_names() {
    let d = dir("const");
    let x = csv(&d.join("x.csv"), "a,b\n1,5\n2,5\n3,5\n");
    let y = good_npy(&d, "y.npy", 3, 1);
    fails_with(&run(&["estimate", "--x", &x, "--y", &y]), &["x.csv", "column 1 ('b') = 5", "constant"]);
    let x = good_npy(&d, "x.npy", 100, 2);
    let y = good_npy(&d, "y2.npy", 100, 2);
    // A batch larger than the data allows is lowered, not refused; the settings say so (a
    // warning only where the lowered batch's log caps the estimate: aggregate.rs).
    let small = run(&[
        "estimate",
        "--x",
        &x,
        "--y",
        &y,
        "--estimators",
        "infonce",
        "--batch",
        "128",
        "--steps",
        "20",
        "--quiet",
        "--json",
    ]);
    assert!(small.status.success(), "{}", String::from_utf8_lossy(&small.stderr));
    let v: serde_json::Value = serde_json::from_slice(&small.stdout).unwrap();
    assert_eq!(v["estimates"][0]["settings"]["batch"], 64, "{v}");
    fails_with(
        &run(&["estimate", "--x", &x, "--y", &y, "--bounds", "infonce,bogus"]),
        &["unknown estimator 'bogus'", "infonce"],
    );
    fails_with(&run(&["estimate", "--x", &x, "--y", &y, "--critic", "nope"]), &["unknown critic 'nope'"]);
    fails_with(&run(&["estimate", "--x", &x, "--x-cols", "0,7", "--y-cols", "1"]), &["x.npy", "column index 7"]);
    let missing = d.join("missing.npy");
    fails_with(&run(&["estimate", "--x", missing.to_str().unwrap(), "--y", &y]), &["missing.npy"]);
}

#[test]
fn errors_leave_no_partial_outputs() {
    let d = dir("partial");
    let x = good_npy(&d, "x.npy", 100, 2);
    let y = good_npy(&d, "y.npy", 99, 2);
    let (trace, plot) = (d.join("t.csv"), d.join("p.png"));
    let out =
        run(&["estimate", "--x", &x, "--y", &y, "--trace", trace.to_str().unwrap(), "--plot", plot.to_str().unwrap()]);
    fails_with(&out, &["y.npy"]);
    assert!(!trace.exists() && !plot.exists());
}

#[test]
fn tasks_and_sample_write_what_they_say() {
    let out = run(&["tasks", "--dim", "5", "--mi", "1.5"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("gaussian") && text.contains("cubic") && text.contains("1.5000"), "{text}");
    let d = dir("sample");
    let out =
        run(&["sample", "cubic", "--n", "50", "--dim", "3", "--mi", "1", "--seed", "4", "--out", d.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let x = mibound::data::files::read_npy(&d.join("x.npy")).unwrap();
    let y = mibound::data::files::read_npy(&d.join("y.npy")).unwrap();
    assert_eq!((x.values.shape(), y.values.shape()), ((50, 3), (50, 3)));
    let info: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(d.join("info.json")).unwrap()).unwrap();
    assert!((info["true_mi"].as_f64().unwrap() - 1.0).abs() < 1e-9);
    // The same seed reproduces the same samples.
    let d2 = dir("sample2");
    run(&["sample", "cubic", "--n", "50", "--dim", "3", "--mi", "1", "--seed", "4", "--out", d2.to_str().unwrap()]);
    assert_eq!(std::fs::read(d.join("x.npy")).unwrap(), std::fs::read(d2.join("x.npy")).unwrap());
    fails_with(&run(&["sample", "nosuch", "--n", "5", "--out", d.to_str().unwrap()]), &["unknown task 'nosuch'"]);
}

#[test]
fn one_csv_with_both_variables_and_json_output() {
    let d = dir("json");
    let s = mibound::data::CorrelatedGaussian::with_mi(2, 1.0).unwrap();
    let (x, y) = mibound::data::Sampler::sample(&s, 300, &mut mibound::data::rng(1));
    let mut text = String::from("x0,x1,y0,y1\n");
    for i in 0..300 {
        text += &format!("{},{},{},{}\n", x[(i, 0)], x[(i, 1)], y[(i, 0)], y[(i, 1)]);
    }
    let f = csv(&d.join("both.csv"), &text);
    let out = run(&[
        "estimate", "--x", &f, "--x-cols", "x0,x1", "--y-cols", "2-3", "--json", "--steps", "60", "--batch", "32",
        "--folds", "3", "--quiet",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((v["n_samples"].as_u64(), v["dim_x"].as_u64(), v["dim_y"].as_u64()), (Some(300), Some(2), Some(2)));
    let est = v["estimates"].as_array().unwrap();
    // One estimate per default estimator, as the library resolves `auto` for these data (two
    // independent pairs: KSG summed over them).
    let defaults = mibound::estimators::EstimatorSpec::resolve_for(
        &mibound::estimators::EstimatorSpec::defaults(),
        x.as_view(),
        y.as_view(),
        &Default::default(),
    );
    assert_eq!(defaults, [mibound::estimators::EstimatorSpec::parse("ksg-blocks:k=3").unwrap()]);
    assert_eq!(est.len(), defaults.len());
    for (e, spec) in est.iter().zip(&defaults) {
        assert_eq!(e["estimator"].as_str(), Some(spec.to_string().as_str()));
        let (lo, v, hi) = (e["interval"]["low"].as_f64(), e["value"].as_f64(), e["interval"]["high"].as_f64());
        assert!(lo.unwrap() <= v.unwrap() && v <= hi);
        assert!(
            matches!(e["kind"].as_str(), Some("lower") | Some("estimate") | Some("upper-if-exact")),
            "{}",
            e["kind"]
        );
    }
    assert!(v["warnings"].is_array());
}

#[test]
fn bmi_protocol_prints_exactly_one_number() {
    let d = dir("bmi");
    let s = mibound::data::CorrelatedGaussian::with_mi(2, 1.0).unwrap();
    let (x, y) = mibound::data::Sampler::sample(&s, 200, &mut mibound::data::rng(2));
    let mut text = String::from("X0,X1,Y0,Y1\n");
    for i in 0..200 {
        text += &format!("{},{},{},{}\n", x[(i, 0)], x[(i, 1)], y[(i, 0)], y[(i, 1)]);
    }
    // bmi writes to a temporary file without an extension.
    let f = csv(&d.join("sample"), &text);
    let out = run(&["bmi", &f, "2", "2", "--steps", "40", "--batch", "32", "--folds", "2"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "stderr must stay empty: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1);
    text.trim().parse::<f64>().expect("a float");
    fails_with(&run(&["bmi", &f, "3", "2"]), &["4 columns", "5"]);
}

#[test]
fn train_runs_a_staircase_and_refuses_bad_settings() {
    let out = run(&["train", "--mi", "1,2", "--steps", "60", "--batch", "16", "--dim", "3", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<serde_json::Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2, "one JSON object per level");
    for (level, (v, mi)) in lines.iter().zip([1.0, 2.0]).enumerate() {
        assert_eq!(v["level"], level);
        assert!((v["true_mi"].as_f64().unwrap() - mi).abs() < 1e-9);
        assert_eq!(v["tail_steps"], 12, "the last 20 % of 60 steps");
        // InfoNCE never exceeds log N, whatever the critic learned.
        let (est, log_n) = (v["estimate_mean"].as_f64().unwrap(), v["log_batch"].as_f64().unwrap());
        assert!(est.is_finite() && est <= log_n, "{v}");
    }
    fails_with(&run(&["train", "--threads", "0"]), &["threads"]);
    fails_with(&run(&["train", "--tail", "1.5"]), &["tail"]);
    fails_with(&run(&["train", "--bound", "nope"]), &["nope"]);
    fails_with(&run(&["train", "--task", "nope"]), &["nope"]);
    fails_with(&run(&["train", "--bound", "loo", "--steps", "5"]), &["gaussian critic"]);
}

/// Messages that say what to do (issue #54): a missing folder for a figure, a negative seed or
/// target, a constant label by its text, a name given twice or to two columns, a --discrete
/// column dropped as constant, and names with commas or hyphens; a heat map of many columns
/// stays a bounded figure.
#[test]
fn messages_say_what_to_do() {
    let d = dir("say");
    let x = csv(
        &d.join("t.csv"),
        "a,s,k,t\n0.1,x,5,2.0\n0.5,x,5,1.0\n0.7,x,5,0.3\n0.2,x,5,0.9\n0.9,x,5,1.1\n0.4,x,5,1.6\n",
    );
    let missing = d.join("nofolder").join("m.png");
    fails_with(
        &run(&["matrix", "--x", &x, "--cols", "a,t", "--plot", missing.to_str().unwrap()]),
        &["m.png: the folder", "nofolder' does not exist: create it first"],
    );
    fails_with(
        &run(&["features", "--x", &x, "--target", "t", "--seed", "-5"]),
        &["'--seed <SEED>': must not be negative"],
    );
    fails_with(&run(&["features", "--x", &x, "--target", "-1"]), &["no column named '-1'", "count from 0"]);
    fails_with(
        &run(&["estimate", "--x", &x, "--x-cols", "a", "--y-cols", "s", "--discrete", "s"]),
        &["constant columns carry no information: y: column 1 ('s') = 'x'"],
    );
    fails_with(
        &run(&["features", "--x", &x, "--target", "t", "--x-cols", "a,t"]),
        &["column 3 ('t') is selected twice"],
    );
    // --discrete may name a column --drop-constant drops.
    let out = run(&["features", "--x", &x, "--target", "t", "--x-cols", "a,k", "--discrete", "k", "--drop-constant"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let dup = csv(&d.join("dup.csv"), "a,a,t\n1,2,3\n2,3,1\n3,1,2\n4,4,4\n5,2,1\n");
    fails_with(&run(&["features", "--x", &dup, "--target", "a"]), &["columns 0 and 1 are both named 'a'"]);
    fails_with(
        &run(&["features", "--x", &dup, "--target", "t"]),
        &["x: column 0 ('a') and column 1 ('a') have the same name"],
    );
    // A name with a comma, quoted; a range whose ends hold hyphens.
    let named = csv(
        &d.join("named.csv"),
        "\"a,b\",x-1,x-2,t\n0.5,0.3,0.1,2.0\n0.2,0.1,0.5,1.0\n0.9,0.7,0.6,0.3\n0.1,0.2,0.8,0.9\n0.4,0.5,0.2,1.1\n0.3,0.9,0.4,1.3\n",
    );
    let out = run(&["features", "--x", &named, "--target", "t", "--x-cols", "\"a,b\",x-1-x-2", "--json", "--k", "2"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut got: Vec<&str> = v["features"].as_array().unwrap().iter().map(|f| f["feature"].as_str().unwrap()).collect();
    got.sort_unstable();
    assert_eq!(got, ["a,b", "x-1", "x-2"]);
}

/// A heat map of 400 columns is at most `MAX_SIDE` pixels a side (1000 columns drew a 315 MB
/// PNG of 22158 × 22098).
#[test]
fn a_heat_map_of_many_columns_is_bounded() {
    let d = dir("heat");
    let labels: Vec<String> = (0..400).map(|j| format!("column_{j}")).collect();
    let m = DMatrix::from_fn(400, 400, |i, j| ((i * j) % 7) as f64 / 7.0);
    let p = d.join("h.png");
    mibound::plot::heatmap(&labels, &m, "many", &p).unwrap();
    let bytes = std::fs::read(&p).unwrap();
    // PNG: width and height are the big-endian u32s at bytes 16..24.
    let (w, h) =
        (u32::from_be_bytes(bytes[16..20].try_into().unwrap()), u32::from_be_bytes(bytes[20..24].try_into().unwrap()));
    let most = mibound::plot::MAX_SIDE as u32;
    assert!(w <= most && h <= most, "{w} × {h}");
}
