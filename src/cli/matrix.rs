//! `mibound matrix`: the symmetric matrix of MI between all columns of a table, through the
//! library's entry point ([`FeaturesRequest::matrix`]), as a table, JSON and a heat map.

use super::InputOpts;
use super::kinds::{Declared, print_notes, print_warnings};
use super::load::{read_table_noted, select_noted};
use super::output::io_err;
use crate::data::files::declared_columns;
use crate::data::rules::{self, Column};
use crate::error::{Error, Result};
use crate::estimators::classical::{ROSS_DEFAULT_K, TieNoise};
use crate::estimators::entry::{FeaturesRequest, Origin};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The options of `mibound matrix`.
#[derive(clap::Args, Debug, Clone)]
pub struct MatrixArgs {
    /// The table: a .npy or CSV file.
    #[arg(long)]
    pub x: PathBuf,
    /// Columns to use (names or indices, ranges a-b; default: all).
    #[arg(long, allow_hyphen_values = true)]
    pub cols: Option<String>,
    /// Columns that are discrete labels (names or indices), which may hold text. Undeclared
    /// integer columns with at most 10 values are detected as discrete, with a note; `none` turns
    /// that detection off.
    #[arg(long, allow_hyphen_values = true)]
    pub discrete: Option<String>,
    /// Columns that are measurements (names or indices), read as numbers even when they have few
    /// integer values.
    #[arg(long, allow_hyphen_values = true)]
    pub continuous: Option<String>,
    /// Neighbours.
    #[arg(long, default_value_t = ROSS_DEFAULT_K)]
    pub k: usize,
    /// Seed of the 1e-10 tie-breaking noise.
    #[arg(long, default_value_t = crate::estimators::DEFAULT_SEED, allow_negative_numbers = true, value_parser = super::parse_seed)]
    pub seed: u64,
    #[command(flatten)]
    pub input: InputOpts,
    /// Draw the heat map (PNG or SVG).
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Print JSON instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// `mibound matrix`.
pub fn matrix(a: &MatrixArgs) -> Result<()> {
    let t = read_table_noted(&a.x, &a.input.csv()?)?;
    let cols = match &a.cols {
        Some(s) => select_noted(&a.x, &t, s)?,
        None => (0..t.columns.len()).collect(),
    };
    if cols.len() < 2 {
        return Err(Error::Data { path: a.x.clone(), msg: "matrix needs at least two columns".into() });
    }
    let declared = a.discrete.as_deref().filter(|d| d.trim() != "none");
    let (values, columns) = t.select_labelled(&a.x, &cols, &declared_columns(&t, &cols, declared))?;
    let d = Declared::new(a.discrete.as_deref(), a.continuous.as_deref(), &columns.iter().collect::<Vec<_>>())?;
    let kinds = columns.iter().map(|c| d.kind(c)).collect();
    let input = rules::Input { values: values.as_view(), columns, lines: &t.lines, levels: t.levels_of(&cols) };
    // The data rules with the table as both sides: one column each is enough to check the
    // values; constant columns are refused (their MI with anything is 0, and KSG's scaling fails).
    let request = FeaturesRequest {
        rules: a.input.rules(),
        kinds,
        detect: d.detect,
        target: None,
        k: a.k,
        noise: TieNoise::Seeded(a.seed),
        origin: Origin { x: Some(a.x.clone()), y: Some(a.x.clone()), z: None },
    };
    let f = request.matrix(&input)?;
    for note in &f.checked.notes {
        eprintln!("note: {note}");
    }
    print_notes(&f.kind_notes);
    let (mi, kinds, warnings) = (&f.mi, &f.kinds, &f.warnings);
    print_warnings(warnings);
    let labels: Vec<String> = f.checked.x_columns.iter().map(|c: &Column| c.name.clone()).collect();
    if let Some(p) = &a.plot {
        crate::plot::heatmap(&labels, mi, &format!("MI between columns (nats), k = {}", a.k), p)?;
    }
    let out = if a.json {
        let rows: Vec<Vec<Option<f64>>> = (0..mi.nrows())
            .map(|i| (0..mi.ncols()).map(|j| Some(mi[(i, j)]).filter(|v| v.is_finite())).collect())
            .collect();
        let warnings =
            serde_json::to_value(warnings).map_err(|e| Error::Format { context: "JSON".into(), msg: e.to_string() })?;
        serde_json::json!({ "columns": labels, "kinds": kinds, "k": a.k, "unit": "nats", "mi": rows, "warnings": warnings })
            .to_string()
            + "\n"
    } else {
        let w = labels.iter().map(|l| l.chars().count()).max().unwrap_or(4).clamp(6, 16);
        let mut s = format!("MI (nats) between columns, k = {}; diagonal not estimated\n{:<w$}", a.k, "");
        for l in &labels {
            s += &format!("  {:>w$.w$}", l);
        }
        s.push('\n');
        for (i, l) in labels.iter().enumerate() {
            s += &format!("{:<w$.w$}", l);
            for j in 0..labels.len() {
                let v = mi[(i, j)];
                s += &if v.is_finite() { format!("  {v:>w$.4}") } else { format!("  {:>w$}", "—") };
            }
            s.push('\n');
        }
        s
    };
    std::io::stdout().write_all(out.as_bytes()).map_err(io_err(Path::new("<stdout>")))
}
