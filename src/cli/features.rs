//! `mibound features`: the MI of every column against a target, as scikit-learn's
//! `mutual_info_regression` / `mutual_info_classif` (`estimators::classical::features`), and the
//! column kinds shared with `matrix` and `estimate --discrete`.

use super::InputOpts;
use super::estimate::{Files, Loaded, load_xy_named};
use super::output::io_err;
use crate::data::files::names_column as names;
use crate::data::kinds::{DISCRETE_MAX_LEVELS, detect_kinds};
use crate::data::rules::Column;
use crate::data::{KindNote, VarKind};
use crate::error::{Error, Result};
use crate::estimators::EstimatorSpec;
use crate::estimators::classical::{ROSS_DEFAULT_K, TieNoise, check_label_columns, feature_mi};
use crate::estimators::neural::LabelColumns;
use nalgebra::DMatrix;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The options of `mibound features`.
#[derive(clap::Args, Debug, Clone)]
pub struct FeaturesArgs {
    /// The table: a .npy or CSV file.
    #[arg(long)]
    pub x: PathBuf,
    /// The target column of the table (name or 0-based index); the other columns are the features.
    #[arg(long)]
    pub target: String,
    /// Feature columns to use (names or indices, ranges a-b; default: all but the target).
    #[arg(long)]
    pub x_cols: Option<String>,
    /// Columns that are discrete labels (names or indices); integer columns with at most 10
    /// values are detected as discrete anyway, with a note. `none` turns detection off.
    #[arg(long)]
    pub discrete: Option<String>,
    /// Neighbours (scikit-learn's n_neighbors).
    #[arg(long, default_value_t = ROSS_DEFAULT_K)]
    pub k: usize,
    /// Seed of the 1e-10 tie-breaking noise.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    #[command(flatten)]
    pub input: InputOpts,
    /// Print JSON instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// The kinds of `columns` (of side `side`, values `m`): the ones `declared` names are discrete
/// (`none` declares all continuous and turns detection off); the others are detected
/// ([`detect_kinds`]), each detection a note. Every item of `declared` must name a column of
/// `all` (the columns of both sides), or it is an error naming `flag`.
pub(super) fn kinds(
    m: &DMatrix<f64>,
    side: &str,
    columns: &[Column],
    declared: Option<&str>,
    all: &[&Column],
    flag: &str,
) -> Result<(Vec<VarKind>, Vec<KindNote>)> {
    let items: Vec<&str> = declared.map_or(vec![], |d| d.split(',').map(str::trim).filter(|s| !s.is_empty()).collect());
    if items == ["none"] {
        return Ok((vec![VarKind::Continuous; columns.len()], Vec::new()));
    }
    if let Some(bad) = items.iter().find(|i| !all.iter().any(|c| names(i, c))) {
        let known: Vec<&str> = all.iter().map(|c| c.name.as_str()).collect();
        return Err(Error::param(flag, bad, &format!("names no selected column (columns: {})", known.join(", "))));
    }
    let decl: Vec<Option<VarKind>> =
        columns.iter().map(|c| items.iter().any(|i| names(i, c)).then_some(VarKind::Discrete)).collect();
    let (kinds, mut notes) = detect_kinds(m.as_view(), side, &decl, DISCRETE_MAX_LEVELS);
    // Notes name the file's column, not the position in the selection.
    for n in &mut notes {
        n.column = columns[n.column].index;
    }
    Ok((kinds, notes))
}

/// `estimate --discrete`: the declared kinds of x's and y's columns checked against every
/// estimator ([`check_kinds`]: one sentence naming a better estimator). Only declared columns
/// are labels here: `estimate` reads an undeclared column as numbers, as before (detection
/// with a note is `features` and `matrix`'s).
/// Returns the positions of the declared label columns in x and in y.
pub(super) fn check_estimators(specs: &[EstimatorSpec], l: &Loaded, discrete: Option<&str>) -> Result<LabelColumns> {
    let Some(declared) = discrete else { return Ok(LabelColumns::default()) };
    let all: Vec<&Column> = l.x_columns.iter().chain(&l.y_columns).collect();
    let mut sides = Vec::new();
    for (m, cols) in [(&l.x, &l.x_columns), (&l.y, &l.y_columns)] {
        // `kinds` checks that every declared item names a column; detection is not used here.
        kinds(m, "x", cols, Some(declared), &all, "--discrete")?;
        let listed = |c: &Column| declared.split(',').any(|i| names(i.trim(), c));
        sides.push(cols.iter().enumerate().filter(|(_, c)| listed(c)).map(|(j, _)| j).collect());
    }
    let y = sides.pop().unwrap_or_default();
    let labels = LabelColumns { x: sides.pop().unwrap_or_default(), y };
    check_label_columns(specs, &labels, l.x.ncols(), l.y.ncols())?;
    Ok(labels)
}

/// `mibound features`.
pub fn features(a: &FeaturesArgs) -> Result<()> {
    // `--discrete none` declares nothing.
    let discrete = a.discrete.as_deref().filter(|d| d.trim() != "none");
    let files = Files { x: &a.x, y: None, x_cols: a.x_cols.as_deref(), y_cols: Some(&a.target), discrete };
    let l = load_xy_named(&files, &a.input, None)?;
    if l.y.ncols() != 1 {
        return Err(Error::param("--target", &a.target, "must name exactly one column"));
    }
    let all: Vec<&Column> = l.x_columns.iter().chain(&l.y_columns).collect();
    let (xk, mut notes) = kinds(&l.x, "the table", &l.x_columns, a.discrete.as_deref(), &all, "--discrete")?;
    let (yk, ynotes) = kinds(&l.y, "the table", &l.y_columns, a.discrete.as_deref(), &all, "--discrete")?;
    notes.extend(ynotes);
    for n in &notes {
        eprintln!("note: {n}");
    }
    let y: Vec<f64> = l.y.column(0).iter().copied().collect();
    let mi = feature_mi(l.x.as_view(), &xk, &y, yk[0], a.k, &TieNoise::Seeded(a.seed))?;
    let mut order: Vec<usize> = (0..mi.len()).collect();
    order.sort_by(|&i, &j| mi[j].total_cmp(&mi[i]));
    let target = &l.y_columns[0].name;
    let out = if a.json {
        let rows: Vec<serde_json::Value> = order
            .iter()
            .map(|&j| serde_json::json!({ "feature": l.x_columns[j].name, "kind": xk[j], "mi": mi[j] }))
            .collect();
        serde_json::json!({ "target": target, "target_kind": yk[0], "k": a.k, "unit": "nats", "features": rows })
            .to_string()
            + "\n"
    } else {
        let mut s = format!(
            "MI (nats) of each feature with {target} ({}), k = {}, scikit-learn's preprocessing, clipped at 0\n",
            yk[0].name(),
            a.k
        );
        let w = l.x_columns.iter().map(|c| c.name.chars().count()).max().unwrap_or(7).max(7);
        s += &format!("{:<w$}  {:<10}  {:>8}\n", "feature", "kind", "MI");
        for &j in &order {
            s += &format!("{:<w$}  {:<10}  {:>8.4}\n", l.x_columns[j].name, xk[j].name(), mi[j]);
        }
        s
    };
    std::io::stdout().write_all(out.as_bytes()).map_err(io_err(Path::new("<stdout>")))
}
