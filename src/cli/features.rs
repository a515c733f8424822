//! `mibound features`: the MI of every column against a target, as scikit-learn's
//! `mutual_info_regression` / `mutual_info_classif`, through the library's entry point
//! ([`FeaturesRequest::features`]).

use super::InputOpts;
use super::kinds::{Declared, print_notes, print_warnings};
use super::load::{Files, print_rule_notes, read};
use super::output::io_err;
use crate::data::VarKind;
use crate::error::{Error, Result};
use crate::estimators::classical::{ROSS_DEFAULT_K, TieNoise};
use crate::estimators::entry::FeaturesRequest;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The options of `mibound features`.
#[derive(clap::Args, Debug, Clone)]
pub struct FeaturesArgs {
    /// The table: a .npy or CSV file.
    #[arg(long)]
    pub x: PathBuf,
    /// The target column of the table (name or 0-based index); the other columns are the features.
    #[arg(long, allow_hyphen_values = true)]
    pub target: String,
    /// Feature columns to use (names or indices, ranges a-b; default: all but the target).
    #[arg(long, allow_hyphen_values = true)]
    pub x_cols: Option<String>,
    /// Columns (features or the target; names or indices) that are discrete labels, which may hold
    /// text. Undeclared integer columns with at most 10 values are detected as discrete, with a
    /// note; `none` turns that detection off for the features (the target is still detected).
    #[arg(long, allow_hyphen_values = true)]
    pub discrete: Option<String>,
    /// Columns (features or the target; names or indices) that are measurements, read as numbers
    /// even when they have few integer values.
    #[arg(long, allow_hyphen_values = true)]
    pub continuous: Option<String>,
    /// Neighbours (scikit-learn's n_neighbors).
    #[arg(long, default_value_t = ROSS_DEFAULT_K)]
    pub k: usize,
    /// Seed of the 1e-10 tie-breaking noise.
    #[arg(long, default_value_t = crate::estimators::DEFAULT_SEED, allow_negative_numbers = true, value_parser = super::parse_seed)]
    pub seed: u64,
    #[command(flatten)]
    pub input: InputOpts,
    /// Print JSON instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// `mibound features`.
pub fn features(a: &FeaturesArgs) -> Result<()> {
    // `--discrete none` declares no label.
    let discrete = a.discrete.as_deref().filter(|d| d.trim() != "none");
    let files = Files { x: &a.x, y: None, x_cols: a.x_cols.as_deref(), y_cols: Some(&a.target), discrete };
    let read = read(&files, &a.input)?;
    if read.ny.len() != 1 {
        return Err(Error::param("--target", &a.target, "must name exactly one column"));
    }
    let d = Declared::new(a.discrete.as_deref(), a.continuous.as_deref(), &read.columns())?;
    // `--discrete none` turns detection off for the features; the target is detected unless
    // declared, so a class target stays a class.
    let request = FeaturesRequest {
        rules: a.input.rules(),
        kinds: read.nx.iter().map(|c| d.kind(c)).collect(),
        detect: d.detect,
        target: d.kind(&read.ny[0]),
        k: a.k,
        noise: TieNoise::Seeded(a.seed),
        origin: read.origin(),
    };
    let (x, y) = read.inputs();
    let f = request.features(&x, &y)?;
    print_rule_notes(&f.checked.notes, &request.origin);
    print_notes(&f.kind_notes);
    print_warnings(&f.warnings);
    let (mi, xk, yk) = (f.mi.as_slice(), &f.kinds, f.target_kind.unwrap_or(VarKind::Continuous));
    let (x_columns, warnings) = (&f.checked.x_columns, &f.warnings);
    let mut order: Vec<usize> = (0..mi.len()).collect();
    order.sort_by(|&i, &j| mi[j].total_cmp(&mi[i]));
    let target = &f.checked.y_columns[0].name;
    let out = if a.json {
        let rows: Vec<serde_json::Value> = order
            .iter()
            .map(|&j| serde_json::json!({ "feature": x_columns[j].name, "kind": xk[j], "mi": mi[j] }))
            .collect();
        let warnings =
            serde_json::to_value(warnings).map_err(|e| Error::Format { context: "JSON".into(), msg: e.to_string() })?;
        serde_json::json!({ "target": target, "target_kind": yk, "k": a.k, "unit": "nats", "features": rows, "warnings": warnings })
            .to_string()
            + "\n"
    } else {
        let mut s = format!(
            "MI (nats) of each feature with {target} ({}), k = {}, scikit-learn's preprocessing, clipped at 0\n",
            yk.name(),
            a.k
        );
        let w = x_columns.iter().map(|c| c.name.chars().count()).max().unwrap_or(7).max(7);
        s += &format!("{:<w$}  {:<10}  {:>8}\n", "feature", "kind", "MI");
        for &j in &order {
            s += &format!("{:<w$}  {:<10}  {:>8.4}\n", x_columns[j].name, xk[j].name(), mi[j]);
        }
        s
    };
    std::io::stdout().write_all(out.as_bytes()).map_err(io_err(Path::new("<stdout>")))
}
