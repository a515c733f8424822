//! How every command reads its inputs: one file or two, the columns selected (a label's text
//! read as categories), with notes on stderr where a header or a column number was guessed;
//! and how it shows the data rules' notes. The rules themselves run in the library
//! ([`crate::estimators::entry`]).

use super::InputOpts;
use crate::data::files::{CsvOptions, Table, declared_columns, parse_delimiter, read_table_with, select_columns};
use crate::data::rules::{self, Column, Side};
use crate::error::{Error, Result};
use crate::estimators::entry::Origin;
use nalgebra::DMatrix;
use std::path::{Path, PathBuf};

/// The files and column selections of `estimate` (and of `features`, whose target is y).
#[derive(Clone, Copy, Debug)]
pub struct Files<'a> {
    /// The x file.
    pub x: &'a Path,
    /// The y file (default: the x file).
    pub y: Option<&'a Path>,
    /// Columns of the x file.
    pub x_cols: Option<&'a str>,
    /// Columns of the y file.
    pub y_cols: Option<&'a str>,
    /// The declared label columns (`--discrete`): a label column may hold text (categories).
    pub discrete: Option<&'a str>,
}

impl InputOpts {
    /// The CSV options of `--header` and `--delimiter`.
    pub fn csv(&self) -> Result<CsvOptions> {
        Ok(CsvOptions {
            header: self.header.parse()?,
            delimiter: self.delimiter.as_deref().map(parse_delimiter).transpose()?,
        })
    }
}

/// Reads a table as every command does, with a note on stderr when its header was guessed from
/// a first row of 1 or 2 cells (`0`, `0,1`: pandas' names over floats; from another tool, the
/// same row may be data).
pub(super) fn read_table_noted(path: &Path, csv: &CsvOptions) -> Result<Table> {
    let t = read_table_with(path, csv)?;
    if t.header_guessed {
        eprintln!(
            "note: {}: the first row ({}) is read as a header, the column names pandas writes over floats; if it is data, pass --header no",
            path.display(),
            t.columns.join(",")
        );
    }
    Ok(t)
}

/// A column selection as every command reads it ([`select_columns`]), with a note on stderr
/// when a number in it was read as a column's name standing at another position (pandas'
/// integer column names beside its index): the number was a valid position too.
pub(super) fn select_noted(path: &Path, t: &Table, spec: &str) -> Result<Vec<usize>> {
    let s = select_columns(path, t, spec)?;
    let (numbers, positions): (Vec<&str>, Vec<String>) =
        s.numbers_as_names.iter().map(|(n, j)| (n.as_str(), j.to_string())).unzip();
    match numbers.len() {
        0 => {}
        1 => eprintln!(
            "note: {}: '{spec}' reads {} as the name of the column at position {}, not as a position: a number that names a column is read as that name",
            path.display(),
            numbers[0],
            positions[0]
        ),
        _ => eprintln!(
            "note: {}: '{spec}' reads {} as the names of the columns at positions {}, not as positions: a number that names a column is read as that name",
            path.display(),
            numbers.join(", "),
            positions.join(", ")
        ),
    }
    Ok(s.columns)
}

fn columns(path: &Path, t: &Table, sel: Option<&str>, exclude: &[usize]) -> Result<Vec<usize>> {
    match sel {
        Some(s) => select_noted(path, t, s),
        None => Ok((0..t.columns.len()).filter(|j| !exclude.contains(j)).collect()),
    }
}

/// x and y as read from their files, before the data rules.
pub struct Read {
    /// The x file's table.
    pub tx: Table,
    /// The y file's table (`None`: the x file's).
    ty: Option<Table>,
    x_path: PathBuf,
    y_path: PathBuf,
    /// The columns of the x file selected.
    pub cx: Vec<usize>,
    /// The columns of the y file selected.
    pub cy: Vec<usize>,
    vx: DMatrix<f64>,
    vy: DMatrix<f64>,
    /// x's columns as the user names them.
    pub nx: Vec<Column>,
    /// y's columns.
    pub ny: Vec<Column>,
}

impl Read {
    fn y_table(&self) -> &Table {
        self.ty.as_ref().unwrap_or(&self.tx)
    }

    /// Whether y comes from the x file.
    pub fn same_file(&self) -> bool {
        self.ty.is_none()
    }

    /// x and y as the data rules read them.
    pub fn inputs(&self) -> (rules::Input<'_>, rules::Input<'_>) {
        (input(&self.vx, &self.nx, &self.tx, &self.cx), input(&self.vy, &self.ny, self.y_table(), &self.cy))
    }

    /// Frees the tables' values, once x and y are selected from them and no other column will
    /// be: the tables keep what messages and the rules read (names, lines, text cells). At 10⁶
    /// rows of 32 + 32 columns, keeping both copies was a quarter of an estimate's peak.
    pub fn release_values(&mut self) {
        for t in std::iter::once(&mut self.tx).chain(self.ty.as_mut()) {
            t.values = nalgebra::DMatrix::zeros(0, 0);
        }
    }

    /// The files of x and y (z, the conditioning set, is read from the x file).
    pub fn origin(&self) -> Origin {
        Origin { x: Some(self.x_path.clone()), y: Some(self.y_path.clone()), z: Some(self.x_path.clone()) }
    }

    /// Every column read, x's then y's.
    pub fn columns(&self) -> Vec<&Column> {
        self.nx.iter().chain(&self.ny).collect()
    }
}

/// One input as the data rules read it: values `v` with columns `n`, the columns `c` of the
/// table `t` (their lines, and the levels of those of text).
fn input<'a>(v: &'a DMatrix<f64>, n: &[Column], t: &'a Table, c: &[usize]) -> rules::Input<'a> {
    rules::Input { values: v.as_view(), columns: n.to_vec(), lines: &t.lines, levels: t.levels_of(c) }
}

/// Reads x and y from one or two files, with column selections: one file needs a selection
/// of x's or y's columns, and no column may be in both.
pub fn read(f: &Files<'_>, input: &InputOpts) -> Result<Read> {
    let Files { x, y, x_cols, y_cols, discrete } = *f;
    let csv = input.csv()?;
    let tx = read_table_noted(x, &csv)?;
    let ty = match y {
        Some(p) if p != x => Some(read_table_noted(p, &csv)?),
        _ if x_cols.is_none() && y_cols.is_none() => {
            return Err(Error::Data {
                path: x.to_path_buf(),
                msg: "one file for both x and y: say which columns are which with --x-cols and --y-cols (or give --y)"
                    .into(),
            });
        }
        _ => None,
    };
    let y_path = if ty.is_some() { y.unwrap_or(x) } else { x };
    let (cx, cy) = if ty.is_none() {
        let sx = x_cols.map(|s| select_noted(x, &tx, s)).transpose()?;
        let cy = columns(y_path, &tx, y_cols, sx.as_deref().unwrap_or_default())?;
        let cx = match sx {
            Some(c) => c,
            None => columns(x, &tx, None, &cy)?,
        };
        if let Some(&j) = cx.iter().find(|c| cy.contains(c)) {
            return Err(Error::Data { path: x.to_path_buf(), msg: selected_twice(&tx, j) });
        }
        (cx, cy)
    } else {
        let t = ty.as_ref().unwrap_or(&tx);
        (columns(x, &tx, x_cols, &[])?, columns(y_path, t, y_cols, &[])?)
    };
    let (vx, nx) = tx.select_labelled(x, &cx, &declared_columns(&tx, &cx, discrete))?;
    let t = ty.as_ref().unwrap_or(&tx);
    let (vy, ny) = t.select_labelled(y_path, &cy, &declared_columns(t, &cy, discrete))?;
    Ok(Read { tx, ty, x_path: x.to_path_buf(), y_path: y_path.to_path_buf(), cx, cy, vx, vy, nx, ny })
}

/// Column `j` of one file in both selections (x's and y's, or the features and the target).
fn selected_twice(t: &Table, j: usize) -> String {
    format!(
        "column {j} ('{}') is selected twice, among the columns read (--x-cols) and as the one(s) they are measured against (--y-cols, --target): select each column once",
        t.columns[j]
    )
}

/// The data rules' notes on stderr, each naming its file (`origin`) and what to do.
pub(super) fn print_rule_notes(notes: &[rules::Note], origin: &Origin) {
    let file = |side: Side| origin.files(&[side]).first().map(|p| p.display().to_string()).unwrap_or_default();
    for note in notes {
        match note {
            rules::Note::DroppedConstant { .. } => eprintln!("note: --drop-constant: {note}"),
            rules::Note::IndexColumn { side, .. } => {
                let flag = if *side == Side::X { "--x-cols" } else { "--y-cols" };
                eprintln!("warning: {}: {note}: leave it out with {flag}", file(*side));
            }
            rules::Note::LabelLike { side, .. } => eprintln!("warning: {}: {note}", file(*side)),
            rules::Note::RepeatedRows { .. } => eprintln!("note: {note}"),
        }
    }
}
