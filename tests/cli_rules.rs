//! The data rules' shared table (tests/data/bad_inputs.json), run through the command line:
//! every refusal is `error: FILES: SENTENCE` with the table's sentence, and every note of an
//! accepted input is on stderr. python/tests/test_rules.py runs the same table through Python
//! and asserts the same sentences.

use crate::common;

use mibound::data::files::write_npy;
use nalgebra::DMatrix;
use serde_json::Value;
use std::path::Path;

fn number(v: &Value) -> f64 {
    match v {
        Value::String(s) => s.parse().expect("nan, inf or -inf"),
        v => v.as_f64().expect("a number"),
    }
}

fn matrix(rows: &Value) -> DMatrix<f64> {
    let rows = rows.as_array().unwrap();
    let cols = rows[0].as_array().unwrap().len();
    DMatrix::from_fn(rows.len(), cols, |i, j| number(&rows[i][j]))
}

/// Writes one input: a CSV file with a header when the case names its columns, else `.npy`.
fn write_input(dir: &Path, what: &str, m: &DMatrix<f64>, names: Option<&Value>) -> String {
    let path = match names {
        Some(names) => {
            let names: Vec<&str> = names.as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
            let mut text = names.join(",") + "\n";
            for i in 0..m.nrows() {
                let cells: Vec<String> = m.row(i).iter().map(|v| v.to_string()).collect();
                text += &(cells.join(",") + "\n");
            }
            let p = dir.join(format!("{what}.csv"));
            std::fs::write(&p, text).unwrap();
            p
        }
        None => {
            let p = dir.join(format!("{what}.npy"));
            write_npy(&p, m).unwrap();
            p
        }
    };
    path.to_str().unwrap().to_string()
}

/// What `estimate` tells a user whose columns look like class labels (src/cli/estimate.rs).
const LABEL_HINT: &str = "say so with --discrete and use an estimator for labels (discrete, ross, mixed-ksg) or a neural bound (infonce), which embeds them";

#[test]
fn the_command_line_gives_the_tables_sentences() {
    let table: Value = serde_json::from_str(include_str!("data/bad_inputs.json")).unwrap();
    let cases = table["cases"].as_array().unwrap();
    assert!(cases.len() >= 8, "the table has its cases");
    for (k, case) in cases.iter().enumerate() {
        let name = case["name"].as_str().unwrap();
        let d = common::temp_dir("rules", &k.to_string());
        let x = write_input(&d, "x", &matrix(&case["x"]), case.get("x_names"));
        let y = write_input(&d, "y", &matrix(&case["y"]), case.get("y_names"));
        let mut args = vec!["estimate", "--x", &x, "--y", &y, "--estimators", "gaussian", "--quiet"];
        if case["drop_constant"].as_bool() == Some(true) {
            args.push("--drop-constant");
        }
        let out = common::mibound().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        if let Some(sentence) = case["error"].as_str() {
            let files: Vec<&str> = case["files"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| if f == "x" { x.as_str() } else { y.as_str() })
                .collect();
            let want = format!("error: {}: {}\n", files.join(" and "), sentence.replace("{drop}", "--drop-constant"));
            assert_eq!(out.status.code(), Some(2), "{name}: {err}");
            assert_eq!(err, want, "{name}");
        } else {
            let note = case["note"].as_str().expect("an error or a note").replace("{labels}", LABEL_HINT);
            assert!(out.status.success(), "{name}: {err}");
            assert_eq!(err.lines().count(), 1, "{name}: one line: {err}");
            assert!(err.contains(&note), "{name}: stderr lacks the note '{note}': {err}");
        }
    }
}

/// A table of the `calls` cases as a CSV file: numbers as JSON writes them, text as it is.
fn write_table(dir: &Path, table: &Value) -> String {
    let cell = |v: &Value| match v {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    let names: Vec<String> = table["names"].as_array().unwrap().iter().map(cell).collect();
    let mut text = names.join(",") + "\n";
    for row in table["rows"].as_array().unwrap() {
        text += &(row.as_array().unwrap().iter().map(cell).collect::<Vec<_>>().join(",") + "\n");
    }
    let p = dir.join("table.csv");
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

/// The table's `calls` (every command on bad input) through the command line: a refusal is
/// one line, exit 2, with the case's sentence and fragments; a warning's sentence is printed.
/// python/tests/test_rules.py makes the same calls through Python.
#[test]
fn every_command_gives_the_tables_sentences() {
    let table: Value = serde_json::from_str(include_str!("data/bad_inputs.json")).unwrap();
    let calls = table["calls"].as_array().unwrap();
    assert!(calls.len() >= 10, "the table has its calls");
    for (k, case) in calls.iter().enumerate() {
        let name = case["name"].as_str().unwrap();
        let d = common::temp_dir("calls", &k.to_string());
        let file = write_table(&d, &case["table"]);
        let args: Vec<&str> = case["cli"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
        let out = common::mibound().arg(args[0]).args(["--x", &file]).args(&args[1..]).output().unwrap();
        let (stdout, err) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(!err.contains("panicked"), "{name}: {err}");
        if let Some(sentence) = case["error"].as_str() {
            assert_eq!(out.status.code(), Some(2), "{name}: {err}");
            assert_eq!(err.trim_end().lines().count(), 1, "{name}: one line: {err}");
            assert!(err.starts_with("error: "), "{name}: {err}");
            let fragments =
                case["contains"].as_array().map_or(vec![], |c| c.iter().map(|f| f.as_str().unwrap()).collect());
            for needle in std::iter::once(sentence).chain(fragments) {
                assert!(err.contains(needle), "{name}: stderr lacks '{needle}': {err}");
            }
        } else {
            let sentence = case["warning"].as_str().expect("an error or a warning");
            assert!(out.status.success(), "{name}: {err}");
            assert!(stdout.contains(sentence) || err.contains(sentence), "{name}: no '{sentence}' in {stdout} {err}");
        }
    }
}
