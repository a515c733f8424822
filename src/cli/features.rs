//! `mibound features`: the MI of every column against a target, as scikit-learn's
//! `mutual_info_regression` / `mutual_info_classif` (`estimators::classical::features`), and the
//! column kinds shared with `matrix` and `estimate --discrete`.

use super::InputOpts;
use super::estimate::{Files, Loaded, load_xy_named};
use super::output::io_err;
use crate::data::files::{names_column as names, split_list};
use crate::data::kinds::{DISCRETE_MAX_LEVELS, detect_kinds};
use crate::data::rules::Column;
use crate::data::{KindNote, VarKind};
use crate::error::{Error, Result};
use crate::estimators::EstimatorSpec;
use crate::estimators::Warning;
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

/// The column kinds a user declared: `--discrete` and `--continuous` lists (names, indices,
/// ranges `a-b`), and whether the columns declared neither are detected ([`detect_kinds`];
/// `--discrete none` turns detection off).
pub(super) struct Declared {
    discrete: Vec<String>,
    continuous: Vec<String>,
    /// The columns the lists are read against ([`names`]: a name wins over a position).
    among: Vec<Column>,
    /// Whether undeclared columns are detected (`--discrete none` says no).
    pub detect: bool,
}

impl Declared {
    /// The lists of `--discrete` (`discrete`; `none` for no detection) and `--continuous`: every
    /// item must name a column of `all` (the columns of both sides), and no column may be in
    /// both lists, or it is an error naming the option.
    pub(super) fn new(
        discrete: Option<&str>,
        continuous: Option<&str>,
        all: &[&Column],
        dropped: &[Column],
    ) -> Result<Self> {
        let items = |d: Option<&str>| -> Vec<String> { d.map_or(vec![], split_list) };
        let (mut discrete, continuous) = (items(discrete), items(continuous));
        let detect = discrete != ["none"];
        if !detect {
            discrete.clear();
        }
        // An item may name a column --drop-constant dropped: it is declared, then dropped.
        let known: Vec<&Column> = all.iter().copied().chain(dropped).collect();
        for (flag, list) in [("--discrete", &discrete), ("--continuous", &continuous)] {
            if let Some(bad) = list.iter().find(|i| !known.iter().any(|c| names(i, c, &known))) {
                let known: Vec<&str> = all.iter().map(|c| c.name.as_str()).collect();
                let why = format!("names no selected column (columns: {})", known.join(", "));
                return Err(Error::param(flag, bad, &why));
            }
        }
        let both = all
            .iter()
            .find(|c| discrete.iter().any(|i| names(i, c, all)) && continuous.iter().any(|i| names(i, c, all)));
        if let Some(c) = both {
            return Err(Error::param("--continuous", &c.name, "is also declared --discrete: declare each column once"));
        }
        Ok(Declared { discrete, continuous, detect, among: all.iter().map(|&c| c.clone()).collect() })
    }

    /// Whether `item` of a list names the column `c`.
    fn lists(&self, item: &str, c: &Column) -> bool {
        names(item, c, &self.among.iter().collect::<Vec<_>>())
    }

    /// Whether a column is declared a label.
    pub(super) fn is_discrete(&self, c: &Column) -> bool {
        self.discrete.iter().any(|i| self.lists(i, c))
    }

    /// The kinds of `columns` (of side `side`, values `m`): declared, else detected with a note
    /// naming the column by its index in the file and its name when `detect`, else continuous.
    pub(super) fn kinds(
        &self,
        m: &DMatrix<f64>,
        side: &str,
        columns: &[Column],
        detect: bool,
    ) -> (Vec<VarKind>, Vec<KindNote>) {
        let decl: Vec<Option<VarKind>> = columns
            .iter()
            .map(|c| match (self.is_discrete(c), self.continuous.iter().any(|i| self.lists(i, c))) {
                (true, _) => Some(VarKind::Discrete),
                (false, true) => Some(VarKind::Continuous),
                (false, false) => (!detect).then_some(VarKind::Continuous),
            })
            .collect();
        let (kinds, mut notes) = detect_kinds(m.as_view(), side, &decl, DISCRETE_MAX_LEVELS);
        // Notes name the file's column, not the position in the selection.
        for n in &mut notes {
            let c = &columns[n.column];
            (n.column, n.name) = (c.index, c.name.clone());
        }
        (kinds, notes)
    }
}

/// Prints each detection note on stderr with how to declare the column a measurement instead.
pub(super) fn print_notes(notes: &[KindNote]) {
    for n in notes {
        eprintln!("note: {n} (read it as a measurement with --continuous '{}')", n.name);
    }
}

/// Prints each warning of a per-feature or matrix estimate on stderr.
pub(super) fn print_warnings(warnings: &[Warning]) {
    for w in warnings {
        eprintln!("warning: {w}");
    }
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
    // Every declared item must name a column; detection is not used here.
    let d = Declared::new(Some(declared), None, &all, &l.dropped)?;
    for cols in [&l.x_columns, &l.y_columns] {
        sides.push(cols.iter().enumerate().filter(|(_, c)| d.is_discrete(c)).map(|(j, _)| j).collect());
    }
    let y = sides.pop().unwrap_or_default();
    let labels = LabelColumns { x: sides.pop().unwrap_or_default(), y };
    check_label_columns(specs, &labels, l.x.ncols(), l.y.ncols())?;
    Ok(labels)
}

/// `mibound features`.
pub fn features(a: &FeaturesArgs) -> Result<()> {
    // `--discrete none` declares no label.
    let discrete = a.discrete.as_deref().filter(|d| d.trim() != "none");
    let files = Files { x: &a.x, y: None, x_cols: a.x_cols.as_deref(), y_cols: Some(&a.target), discrete };
    let l = load_xy_named(&files, &a.input, None)?;
    if l.y.ncols() != 1 {
        return Err(Error::param("--target", &a.target, "must name exactly one column"));
    }
    let all: Vec<&Column> = l.x_columns.iter().chain(&l.y_columns).collect();
    let d = Declared::new(a.discrete.as_deref(), a.continuous.as_deref(), &all, &l.dropped)?;
    // `--discrete none` turns detection off for the features; the target is detected unless
    // declared, so a class target stays a class.
    let (xk, mut notes) = d.kinds(&l.x, "the table", &l.x_columns, d.detect);
    let (yk, ynotes) = d.kinds(&l.y, "the table", &l.y_columns, true);
    notes.extend(ynotes);
    print_notes(&notes);
    let y: Vec<f64> = l.y.column(0).iter().copied().collect();
    let names: Vec<String> = l.x_columns.iter().map(|c| c.name.clone()).collect();
    let (mi, warnings) = feature_mi(l.x.as_view(), &xk, &y, yk[0], a.k, &TieNoise::Seeded(a.seed), &names)?;
    print_warnings(&warnings);
    let mut order: Vec<usize> = (0..mi.len()).collect();
    order.sort_by(|&i, &j| mi[j].total_cmp(&mi[i]));
    let target = &l.y_columns[0].name;
    let out = if a.json {
        let rows: Vec<serde_json::Value> = order
            .iter()
            .map(|&j| serde_json::json!({ "feature": l.x_columns[j].name, "kind": xk[j], "mi": mi[j] }))
            .collect();
        let warnings = serde_json::to_value(&warnings)
            .map_err(|e| Error::Format { context: "JSON".into(), msg: e.to_string() })?;
        serde_json::json!({ "target": target, "target_kind": yk[0], "k": a.k, "unit": "nats", "features": rows, "warnings": warnings })
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
