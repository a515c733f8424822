//! `mibound estimate` on files as they come from real tools (issue #16): a UTF-8 BOM, CRLF,
//! Excel's `;` with decimal commas, tabs, quoted cells, a numeric first row, the index column
//! pandas writes, constant columns (named all at once, or dropped), `--unit bits`, and a one-line
//! error naming the option for every bad option value.
//!
//! Every format is checked against the plain CSV of the same numbers: with the same seed the
//! estimate must be bit-identical, so a cell read wrongly (or a row lost) changes the number.

use mibound::data::{CorrelatedGaussian, Sampler, rng};
use nalgebra::DMatrix;
use std::path::Path;
use std::process::{Command, Output};

const ROWS: usize = 300;
/// Small training so each estimate takes well under a second.
const FAST: [&str; 10] = ["--estimators", "infonce", "--steps", "40", "--batch", "32", "--folds", "3", "--seed", "7"];

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mibound"))
}

fn dir(name: &str) -> crate::common::TempDir {
    crate::common::temp_dir("inputs", name)
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

fn write(path: &Path, bytes: impl AsRef<[u8]>) -> String {
    std::fs::write(path, bytes).unwrap();
    path.to_str().unwrap().to_string()
}

/// Asserts a clean failure: exit 2, one line on stderr containing every `needle`, no stdout.
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

/// The JSON of a successful `estimate` run with [`FAST`] settings, and its stderr.
fn estimate_json(args: &[&str]) -> (serde_json::Value, String) {
    let mut all: Vec<&str> = vec!["estimate", "--json", "--quiet"];
    all.extend_from_slice(args);
    all.extend_from_slice(&FAST);
    let out = run(&all);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{all:?} failed: {err}");
    assert!(!err.contains("panicked"), "{err}");
    (serde_json::from_slice(&out.stdout).expect("one JSON object"), err)
}

/// The headline value (nats) and the sample count of a run.
fn value(v: &serde_json::Value) -> (f64, u64) {
    (v["estimates"][0]["value"].as_f64().unwrap(), v["n_samples"].as_u64().unwrap())
}

/// 300 rows of a 2-d Gaussian pair with 1 nat: columns x0, x1, y0, y1.
fn sample() -> DMatrix<f64> {
    let s = CorrelatedGaussian::with_mi(2, 1.0).unwrap();
    let (x, y) = s.sample(ROWS, &mut rng(3));
    DMatrix::from_fn(ROWS, 4, |i, j| if j < 2 { x[(i, j)] } else { y[(i, j - 2)] })
}

/// The rows of `m` as text: cells joined by `sep`, each cell through `cell`, lines ending `eol`.
fn rows_text(m: &DMatrix<f64>, sep: &str, eol: &str, cell: impl Fn(f64) -> String) -> String {
    let mut s = String::new();
    for i in 0..m.nrows() {
        let cells: Vec<String> = (0..m.ncols()).map(|j| cell(m[(i, j)])).collect();
        s += &cells.join(sep);
        s += eol;
    }
    s
}

const XY: [&str; 4] = ["--x-cols", "0-1", "--y-cols", "2-3"];

#[test]
fn every_common_csv_dialect_reads_the_same_numbers() {
    let d = dir("dialects");
    let m = sample();
    let plain = write(&d.join("plain.csv"), "x0,x1,y0,y1\n".to_string() + &rows_text(&m, ",", "\n", |v| v.to_string()));
    let (base, _) = estimate_json(&[&["--x", &plain][..], &XY].concat());
    let (v0, n0) = value(&base);
    assert_eq!(n0, ROWS as u64);
    assert!(v0.is_finite());

    let bom_crlf = {
        let mut b = b"\xEF\xBB\xBF".to_vec();
        b.extend_from_slice(
            ("x0,x1,y0,y1\r\n".to_string() + &rows_text(&m, ",", "\r\n", |v| v.to_string())).as_bytes(),
        );
        write(&d.join("bom_crlf.csv"), b)
    };
    // Excel in a decimal-comma locale: ';' between cells, ',' as the decimal point, CRLF.
    let excel = write(
        &d.join("excel.csv"),
        "x0;x1;y0;y1\r\n".to_string() + &rows_text(&m, ";", "\r\n", |v| v.to_string().replace('.', ",")),
    );
    let tab = write(&d.join("tab.tsv"), "x0\tx1\ty0\ty1\n".to_string() + &rows_text(&m, "\t", "\n", |v| v.to_string()));
    // Every cell quoted, and a column name with the delimiter inside its quotes.
    let quoted = write(
        &d.join("quoted.csv"),
        "\"x, first\",\"x1\",\"y0\",\"y1\"\n".to_string() + &rows_text(&m, ",", "\n", |v| format!("\"{v}\"")),
    );
    // Spaces around cells and blank lines are ignored.
    let spaced = write(
        &d.join("spaced.csv"),
        "x0 , x1 , y0 , y1\n\n".to_string() + &rows_text(&m, " , ", "\n", |v| v.to_string()) + "\n\n",
    );
    for (f, extra) in [
        (&bom_crlf, &[][..]),
        (&excel, &[][..]),
        (&excel, &["--delimiter", ";"][..]),
        (&tab, &[][..]),
        (&tab, &["--delimiter", "tab"][..]),
        (&quoted, &[][..]),
        (&spaced, &[][..]),
    ] {
        let (v, _) = estimate_json(&[&["--x", f][..], &XY, extra].concat());
        assert_eq!(value(&v), (v0, n0), "{f} {extra:?} reads other numbers than plain.csv");
    }
    // (The quoted name with a comma inside is one column: the header is as wide as the rows.)
    // The column names reached the columns: with the BOM stripped, 'x0' is selectable by name.
    let (v, _) = estimate_json(&["--x", &bom_crlf, "--x-cols", "x0,x1", "--y-cols", "y0,y1"]);
    assert_eq!(value(&v), (v0, n0));
}

#[test]
fn a_numeric_first_row_is_data_unless_told() {
    let d = dir("header");
    let m = sample();
    let plain = write(&d.join("plain.csv"), "x0,x1,y0,y1\n".to_string() + &rows_text(&m, ",", "\n", |v| v.to_string()));
    let (base, _) = estimate_json(&[&["--x", &plain][..], &XY].concat());
    let bare = write(&d.join("bare.csv"), rows_text(&m, ",", "\n", |v| v.to_string()));
    for header in [&[][..], &["--header", "no"][..], &["--header", "auto"][..]] {
        let (v, _) = estimate_json(&[&["--x", &bare][..], &XY, header].concat());
        assert_eq!(value(&v), value(&base), "{header:?}: all {ROWS} rows are data");
    }
    // --header yes: the first row names the columns, one row fewer.
    let (v, _) = estimate_json(&[&["--x", &bare][..], &XY, &["--header", "yes"]].concat());
    assert_eq!(v["n_samples"].as_u64(), Some(ROWS as u64 - 1));
    // Numeric column names need --header yes; then they select by name.
    let named = write(&d.join("named.csv"), "10,11,20,21\n".to_string() + &rows_text(&m, ",", "\n", |v| v.to_string()));
    let (v, _) = estimate_json(&["--x", &named, "--header", "yes", "--x-cols", "10,11", "--y-cols", "20,21"]);
    assert_eq!(value(&v), value(&base));
    // --header no on a file with a header: the header's cell is not a number, at line 1, row 0.
    fails_with(
        &run(&[&["estimate", "--x", &plain, "--header", "no"][..], &XY, &FAST].concat()),
        &[
            "plain.csv",
            "line 1 (row 0)",
            "column 0 ('0')",
            "'x0' is not a number: the first line holds text, as a header does",
        ],
    );
}

/// A file written by `pandas.DataFrame(...).to_csv("f.csv")`: an unnamed first column 0, 1, 2, …
fn pandas_csv(m: &DMatrix<f64>, start: usize) -> String {
    let mut s = String::from(",x0,x1,y0,y1\n");
    for i in 0..m.nrows() {
        let cells: Vec<String> = (0..m.ncols()).map(|j| m[(i, j)].to_string()).collect();
        s += &format!("{},{}\n", i + start, cells.join(","));
    }
    s
}

#[test]
fn a_pandas_index_column_is_warned_about_when_used() {
    let d = dir("pandas");
    let m = sample();
    let plain = write(&d.join("plain.csv"), "x0,x1,y0,y1\n".to_string() + &rows_text(&m, ",", "\n", |v| v.to_string()));
    let (base, _) = estimate_json(&[&["--x", &plain][..], &XY].concat());
    let pd = write(&d.join("pandas.csv"), pandas_csv(&m, 0));
    // Only y chosen: x is every other column, the index included.
    let (v, err) = estimate_json(&["--x", &pd, "--y-cols", "y0,y1"]);
    assert_eq!(v["dim_x"].as_u64(), Some(3), "the index is part of x");
    for needle in ["warning", "pandas.csv", "column 0 ('Unnamed: 0')", "pandas", "included in x", "--x-cols"] {
        assert!(err.contains(needle), "stderr lacks '{needle}': {err}");
    }
    assert_eq!(err.lines().count(), 1, "one warning: {err}");
    // Deselected: no warning, and the numbers of the plain file.
    let (v, err) = estimate_json(&["--x", &pd, "--x-cols", "1-2", "--y-cols", "3-4"]);
    assert!(err.is_empty(), "no warning once the index is left out: {err}");
    assert_eq!(value(&v), value(&base));
    // An index from 1, used in y: the warning says y.
    let pd1 = write(&d.join("pandas1.csv"), pandas_csv(&m, 1));
    let (_, err) = estimate_json(&["--x", &pd1, "--x-cols", "1-2", "--y-cols", "0,3,4"]);
    assert!(err.contains("included in y") && err.contains("--y-cols"), "{err}");
    // A first column that is data is not an index, even when its header is empty.
    let notidx = write(&d.join("notidx.csv"), ",x1,y0,y1\n".to_string() + &rows_text(&m, ",", "\n", |v| v.to_string()));
    let (_, err) = estimate_json(&["--x", &notidx, "--x-cols", "0-1", "--y-cols", "2-3"]);
    assert!(err.is_empty(), "{err}");
}

#[test]
fn integer_column_names_beside_pandas_index_are_names_and_noted() {
    // `pandas.DataFrame(array).to_csv("f.csv")`: the index, then the names 0, 1, 2, 3.
    let d = dir("pandas-int");
    let m = sample();
    let plain = write(&d.join("plain.csv"), "x0,x1,y0,y1\n".to_string() + &rows_text(&m, ",", "\n", |v| v.to_string()));
    let (base, _) = estimate_json(&[&["--x", &plain][..], &XY].concat());
    let text = pandas_csv(&m, 0).replacen(",x0,x1,y0,y1", ",0,1,2,3", 1);
    let pd = write(&d.join("ints.csv"), text);
    let (v, err) = estimate_json(&["--x", &pd, "--x-cols", "0,1", "--y-cols", "2-3"]);
    assert_eq!(value(&v), value(&base), "the names 0–3 are the data columns, not the index");
    for needle in [
        "ints.csv",
        "'0,1' reads 0, 1 as the names of the columns at positions 1, 2, not as positions",
        "'2-3'",
        "positions 3, 4",
    ] {
        assert!(err.contains(needle), "stderr lacks '{needle}': {err}");
    }
    assert_eq!(err.lines().count(), 2, "one note per selection: {err}");
    // Positions that are no column's name are positions, without a note.
    let (v, err) = estimate_json(&["--x", &pd, "--x-cols", "Unnamed: 0,4", "--y-cols", "2"]);
    assert_eq!((v["dim_x"].as_u64(), v["dim_y"].as_u64()), (Some(2), Some(1)));
    let notes: Vec<&str> = err.lines().filter(|l| l.starts_with("note:")).collect();
    assert_eq!(notes.len(), 1, "a note for y's '2' only: {err}");
    assert!(notes[0].contains("'2' reads 2 as the name of the column at position 3"), "{err}");
    // A declared label list reads names first too: '1' is the column named 1 (a class), not
    // position 1 (the measurement named 0); read as both, Ross would have no continuous side.
    let mut text = String::from(",0,1\n");
    for i in 0..ROWS {
        text += &format!("{i},{},{}\n", m[(i, 0)] + (i % 3) as f64, i % 3);
    }
    let lab = write(&d.join("labels.csv"), text);
    let out = run(&[
        "estimate",
        "--json",
        "--quiet",
        "--x",
        &lab,
        "--x-cols",
        "0",
        "--y-cols",
        "1",
        "--discrete",
        "1",
        "--estimators",
        "ross",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["estimates"][0]["settings"]["discrete"].as_str(), Some("y"), "{v}");
}

/// A digits-like file: 8 "pixel" columns of which 0, 3 and 7 are always 0 (as the border
/// pixels of scikit-learn's digits), and a target with a constant column beside it.
fn digits_like(d: &Path) -> String {
    let s = CorrelatedGaussian::with_mi(5, 1.0).unwrap();
    let (x, y) = s.sample(ROWS, &mut rng(5));
    let mut text = String::from("pixel_0,pixel_1,pixel_2,pixel_3,pixel_4,pixel_5,pixel_6,pixel_7,target,batch\n");
    for i in 0..ROWS {
        let px = [0.0, x[(i, 0)], x[(i, 1)], 0.0, x[(i, 2)], x[(i, 3)], x[(i, 4)], 0.0];
        let cells: Vec<String> = px.iter().map(|v| v.to_string()).collect();
        text += &format!("{},{},1\n", cells.join(","), y[(i, 0)]);
    }
    write(&d.join("digits.csv"), text)
}

#[test]
fn every_constant_column_is_named_at_once_or_dropped() {
    let d = dir("constant");
    let f = digits_like(&d);
    let xy = ["--x", &f, "--y-cols", "target,batch"];
    fails_with(
        &run(&[&["estimate"][..], &xy, &FAST].concat()),
        &[
            "digits.csv",
            "constant columns",
            "x: columns 0 ('pixel_0') = 0, 3 ('pixel_3') = 0, 7 ('pixel_7') = 0",
            "y: column 9 ('batch') = 1",
            "--drop-constant",
        ],
    );
    let (dropped, err) = estimate_json(&[&xy[..], &["--drop-constant"]].concat());
    assert_eq!((dropped["dim_x"].as_u64(), dropped["dim_y"].as_u64()), (Some(5), Some(1)));
    for needle in ["--drop-constant", "0 ('pixel_0')", "3 ('pixel_3')", "7 ('pixel_7')", "9 ('batch')"] {
        assert!(err.contains(needle), "stderr lacks '{needle}': {err}");
    }
    // The same numbers as leaving them out by hand.
    let (by_hand, _) = estimate_json(&["--x", &f, "--x-cols", "1,2,4-6", "--y-cols", "target"]);
    assert_eq!(value(&dropped), value(&by_hand));
    // Two files: the message names both before the sentence.
    let y = write(&d.join("y.csv"), "a,b\n".to_string() + &"2,0\n3,0\n4,0\n".repeat(100));
    fails_with(
        &run(&[&["estimate", "--x", &f, "--x-cols", "0-7", "--y", &y][..], &FAST].concat()),
        &["digits.csv and ", "y.csv: constant columns", "x: columns 0 ('pixel_0')", "y: column 1 ('b') = 0"],
    );
    // Everything constant: nothing left to estimate with.
    fails_with(
        &run(&[&["estimate", "--x", &f, "--x-cols", "0,3,7", "--y-cols", "8", "--drop-constant"][..], &FAST].concat()),
        &["every x column is constant"],
    );
}

#[test]
fn unit_bits_divides_every_number_by_ln_2() {
    let d = dir("unit");
    let m = sample();
    let f = write(&d.join("plain.csv"), "x0,x1,y0,y1\n".to_string() + &rows_text(&m, ",", "\n", |v| v.to_string()));
    let (nats, _) = estimate_json(&[&["--x", &f][..], &XY].concat());
    let (bits, _) = estimate_json(&[&["--x", &f, "--unit", "bits"][..], &XY].concat());
    let (alias, _) = estimate_json(&[&["--x", &f, "--bits"][..], &XY].concat());
    assert_eq!(nats["unit"], "nats");
    assert_eq!(bits["unit"], "bits");
    assert_eq!(alias["unit"], "bits", "--bits is --unit bits");
    assert_eq!(alias["estimates"][0]["in_unit"], bits["estimates"][0]["in_unit"]);
    let (n, b) = (&nats["estimates"][0], &bits["estimates"][0]);
    // `value` and `interval` stay in nats; `in_unit` is converted.
    assert_eq!(n["value"], b["value"]);
    assert_eq!(n["in_unit"]["value"], n["value"]);
    let ln2 = std::f64::consts::LN_2;
    for (k, nat) in [("value", &n["value"]), ("low", &n["interval"]["low"]), ("high", &n["interval"]["high"])] {
        let (nat, bit) = (nat.as_f64().unwrap(), b["in_unit"][k].as_f64().unwrap());
        assert!((bit - nat / ln2).abs() <= 1e-12 * nat.abs().max(1.0), "{k}: {bit} bits vs {nat} nats");
    }
    // The table prints bits.
    let out = run(&[&["estimate", "--x", &f, "--bits", "--quiet"][..], &XY, &FAST].concat());
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("95% interval (bits)"), "{text}");
    let row = text.lines().find(|l| l.trim_start().starts_with("InfoNCE")).expect("an InfoNCE row");
    let printed: f64 = row.split_whitespace().nth(2).unwrap().parse().unwrap();
    let want = n["value"].as_f64().unwrap() / ln2;
    assert!((printed - want).abs() <= 0.0005 + 1e-12, "{printed} vs {want}: {row}");
}

#[test]
fn malformed_files_name_file_line_row_and_column() {
    let d = dir("malformed");
    let y = write(&d.join("y.csv"), "c\n1\n2\n3\n");
    let cases: [(&str, &[u8], &[&str]); 6] = [
        // Excel writes a trailing ';' on every line: an unnamed column of empty cells.
        (
            "trailing.csv",
            b"a;b;\n1;2;\n3;4;\n5;6;\n",
            &["trailing.csv", "line 2 (row 0), column 2 ('Unnamed: 2')", "empty cell"],
        ),
        ("missing.csv", b"a,b\n1,2\n3,\n5,6\n", &["missing.csv", "line 3 (row 1), column 1 ('b')", "empty cell"]),
        ("ragged.csv", b"a,b\r\n1,2\r\n3,4,5\r\n5,6\r\n", &["ragged.csv", "line 3 (row 1)", "3 cells", "header has 2"]),
        (
            "text.csv",
            b"a,b\n1,2\n3,4\n5,six\n",
            &["text.csv", "line 4 (row 2), column 1 ('b')", "'six' is not a number"],
        ),
        ("utf16.csv", b"\xFF\xFEa\x00,\x00b\x00\n\x00", &["utf16.csv", "UTF-16", "UTF-8"]),
        ("latin1.csv", b"a,b\n1,2\n\xE9,4\n", &["latin1.csv", "line 3", "not UTF-8"]),
    ];
    for (name, bytes, needles) in cases {
        let f = write(&d.join(name), bytes);
        fails_with(&run(&[&["estimate", "--x", &f, "--y", &y][..], &FAST].concat()), needles);
    }
    let nan = write(&d.join("nan.csv"), "a;b\n1,5;2\n3,5;NaN\n5,5;6\n");
    fails_with(
        &run(&[&["estimate", "--x", &nan, "--y", &y][..], &FAST].concat()),
        &["nan.csv", "line 3 (row 1), column 1 ('b')", "not finite"],
    );
}

#[test]
fn every_bad_option_value_is_one_line_naming_the_option() {
    let d = dir("options");
    let m = sample();
    // 100 rows, as in the issue.
    let m = m.rows(0, 100).into_owned();
    let f = write(&d.join("plain.csv"), "x0,x1,y0,y1\n".to_string() + &rows_text(&m, ",", "\n", |v| v.to_string()));
    let cases: &[(&[&str], &[&str])] = &[
        (&["--batch", "0"], &["--batch", "0"]),
        (&["--batch", "1"], &["--batch", "1"]),
        (&["--batch", "-1"], &["--batch", "-1"]),
        (&["--hidden", "0"], &["--hidden", "0"]),
        (&["--hidden", "64,0"], &["--hidden", "64,0"]),
        (&["--hidden", "0", "--critic", "concat"], &["--hidden"]),
        (&["--hidden", "0", "--estimators", "l1out"], &["--hidden"]),
        (&["--embed", "0"], &["--embed"]),
        (&["--folds", "0"], &["--folds"]),
        (&["--folds", "1"], &["--folds"]),
        (&["--folds", "300"], &["folds", "300", "100 rows"]),
        (&["--steps", "0"], &["--steps"]),
        (&["--lr", "0"], &["--lr"]),
        (&["--lr", "-1"], &["--lr", "-1"]),
        (&["--lr", "NaN"], &["--lr", "NaN"]),
        (&["--lr", "inf"], &["--lr", "inf"]),
        (&["--weight-decay", "-1"], &["--weight-decay", "-1"]),
        (&["--weight-decay", "NaN"], &["--weight-decay"]),
        (&["--critic", "nope"], &["critic 'nope'"]),
        (&["--estimators", "bogus"], &["estimator 'bogus'"]),
        (&["--unit", "furlongs"], &["unit", "furlongs"]),
        (&["--unit", "nats", "--bits"], &["unit", "--bits"]),
        (&["--header", "maybe"], &["header", "maybe"]),
        (&["--delimiter", "ab"], &["delimiter", "ab"]),
        (&["--delimiter", "\""], &["delimiter"]),
        (&["--no-such-option"], &["--no-such-option"]),
    ];
    for (opts, needles) in cases {
        // The fast settings first, so the option under test overrides nothing and is the only
        // bad one (clap refuses a repeated option).
        let mut args: Vec<&str> = vec!["estimate", "--x", &f, "--x-cols", "0-1", "--y-cols", "2-3", "--quiet"];
        for pair in FAST.chunks(2) {
            if !opts.contains(&pair[0]) {
                args.extend_from_slice(pair);
            }
        }
        args.extend_from_slice(opts);
        let out = run(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{opts:?} panicked: {err}");
        fails_with(&out, needles);
    }
}

#[test]
fn bmi_still_prints_one_number_in_nats() {
    let d = dir("bmi");
    let m = sample();
    // As benchmark-mi writes it, with a BOM and CRLF added by a detour through Excel.
    let mut b = b"\xEF\xBB\xBF".to_vec();
    b.extend_from_slice(("X0,X1,Y0,Y1\r\n".to_string() + &rows_text(&m, ",", "\r\n", |v| v.to_string())).as_bytes());
    let f = write(&d.join("sample"), b);
    let args = ["--estimators", "infonce", "--steps", "40", "--batch", "32", "--folds", "3", "--seed", "7"];
    let out = run(&[&["bmi", &f, "2", "2"][..], &args].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    let v: f64 = text.trim().parse().unwrap();
    // The same number, in nats, as `estimate` gives on the same rows.
    let (est, _) = estimate_json(&["--x", &f, "--x-cols", "X0,X1", "--y-cols", "Y0,Y1"]);
    assert_eq!(v, value(&est).0);
}

/// A text column blocks nothing it is not selected for (scikit-learn's iris with its species
/// names beside the measurements); selected, it is refused as before, naming file, line, row and
/// column; declared `--discrete`, it is read as categories coded in sorted order of the texts, so
/// the estimate is bit-identical to the one on those codes written as numbers. An empty cell of
/// a declared label is refused too.
#[test]
fn text_columns_count_only_when_selected_and_are_categories_when_declared() {
    let d = dir("text-columns");
    let m = sample();
    let species = ["versicolor", "setosa", "virginica"];
    let (mut text, mut coded) = (String::from("x,y,name,species\n"), String::from("x,y,name,species\n"));
    for i in 0..ROWS {
        // The label follows y, so the estimate is far from 0; codes: setosa 0, versicolor 1, virginica 2.
        let c = usize::from(m[(i, 2)] > -0.5) + usize::from(m[(i, 2)] > 0.5);
        let sorted = [1, 0, 2][c];
        text += &format!("{},{},row{i},{}\n", m[(i, 0)], m[(i, 2)], species[c]);
        coded += &format!("{},{},row{i},{sorted}\n", m[(i, 0)], m[(i, 2)]);
    }
    let (t, c) = (write(&d.join("text.csv"), &text), write(&d.join("coded.csv"), &coded));
    // Not selected: no effect.
    let (v, _) = estimate_json(&["--x", &t, "--x-cols", "x", "--y-cols", "y", "--estimators", "ksg"]);
    assert!(v["estimates"][0]["value"].as_f64().unwrap().is_finite());
    // Selected and not declared: refused as before.
    fails_with(
        &run(&[&["estimate", "--x", &t, "--x-cols", "x,name", "--y-cols", "y"][..], &FAST].concat()),
        &["text.csv", "line 2 (row 0), column 2 ('name')", "'row0' is not a number"],
    );
    // Declared: categories, the same estimate as on the codes.
    let label = |f: &str| {
        let args = ["--x", f, "--x-cols", "x", "--y-cols", "species", "--discrete", "species", "--estimators", "ross"];
        estimate_json(&args).0["estimates"][0]["value"].as_f64().unwrap()
    };
    let (from_text, from_codes) = (label(&t), label(&c));
    assert!(from_text > 0.1 && from_text == from_codes, "{from_text} {from_codes}");
    // features and matrix read the declared text target / column too.
    for args in [
        vec!["features", "--x", &t, "--target", "species", "--x-cols", "x,y", "--discrete", "species", "--json"],
        vec!["matrix", "--x", &t, "--cols", "x,y,species", "--discrete", "species", "--json"],
    ] {
        let out = run(&args);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    // An empty cell of a declared label is still a missing value.
    let holed = write(&d.join("holed.csv"), text.replacen(",setosa\n", ",\n", 1));
    fails_with(
        &run(&["estimate", "--x", &holed, "--x-cols", "x", "--y-cols", "species", "--discrete", "species"]),
        &["holed.csv", "column 3 ('species')", "empty cell"],
    );
}

/// Eight rows read by the default (KSG, k = 3): every half-sample of 4 rows reads the same
/// value, so the table prints no interval (not `[v, v]`) and the warning says why.
#[test]
fn eight_rows_print_no_interval() {
    let d = dir("eight");
    let f = write(&d.join("tiny.csv"), "a,b\n1,2\n2,1\n3,4\n4,3\n5,6\n6,5\n7,8\n8,7\n");
    let out = run(&["estimate", "--x", &f, "--x-cols", "a", "--y-cols", "b", "--quiet"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let row = text.lines().find(|l| l.contains("KSG-1 (k=3, normal scores)")).expect("the KSG row");
    assert!(row.trim_end().ends_with("none"), "{row}");
    assert!(
        text.contains("warning: no interval: every one of the 100 half-samples of 4 rows read the same value"),
        "{text}"
    );
}
