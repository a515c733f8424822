//! The column kinds a user declares (`--discrete`, `--continuous`), shared by `estimate`,
//! `features` and `matrix`, and how their notes and warnings are shown.

use super::load::Read;
use crate::data::VarKind;
use crate::data::files::{names_column as names, split_list};
use crate::data::kinds::{KindNote, LabelColumns};
use crate::data::rules::Column;
use crate::error::{Error, Result};
use crate::estimators::Warning;

/// The column kinds a user declared: `--discrete` and `--continuous` lists (names, indices,
/// ranges `a-b`), and whether the columns declared neither are detected
/// ([`crate::data::kinds::detect_kinds`]; `--discrete none` turns detection off).
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
    /// item must name a column of `all` (the columns read, before the data rules drop any),
    /// and no column may be in both lists, or it is an error naming the option.
    pub(super) fn new(discrete: Option<&str>, continuous: Option<&str>, all: &[&Column]) -> Result<Self> {
        let items = |d: Option<&str>| -> Vec<String> { d.map_or(vec![], split_list) };
        let (mut discrete, continuous) = (items(discrete), items(continuous));
        let detect = discrete != ["none"];
        if !detect {
            discrete.clear();
        }
        for (flag, list) in [("--discrete", &discrete), ("--continuous", &continuous)] {
            if let Some(bad) = list.iter().find(|i| !all.iter().any(|c| names(i, c, all))) {
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

    /// The declared kind of a column (`None`: declared neither).
    pub(super) fn kind(&self, c: &Column) -> Option<VarKind> {
        if self.discrete.iter().any(|i| self.lists(i, c)) {
            Some(VarKind::Discrete)
        } else if self.continuous.iter().any(|i| self.lists(i, c)) {
            Some(VarKind::Continuous)
        } else {
            None
        }
    }
}

/// `estimate --discrete`: the positions, among the columns read of x and of y, of the columns
/// the list names (every item must name one; detection is not used here: `estimate` reads an
/// undeclared column as numbers, and notes it when it looks like a label).
pub(super) fn declared_labels(discrete: Option<&str>, read: &Read) -> Result<LabelColumns> {
    let Some(declared) = discrete else { return Ok(LabelColumns::default()) };
    let d = Declared::new(Some(declared), None, &read.columns())?;
    let on = |cols: &[Column]| -> Vec<usize> {
        cols.iter().enumerate().filter(|(_, c)| d.kind(c) == Some(VarKind::Discrete)).map(|(j, _)| j).collect()
    };
    Ok(LabelColumns { x: on(&read.nx), y: on(&read.ny) })
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
