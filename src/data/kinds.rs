//! Variable types: is a column a continuous measurement or a discrete label?
//!
//! Nearest-neighbour and Gaussian estimators read every value as a point on a line. For a class
//! label that is wrong twice over: the order and spacing of the codes (0, 1, 2) are arbitrary,
//! and a column of ties puts many points at distance 0, which KSG's counts and the copula's ranks
//! were not built for. So each column has a [`VarKind`]: declared by the user (the command
//! line's `--discrete COLS` and `--continuous COLS`, Python's `discrete_features=`), or, when not
//! declared, detected by [`detect_kinds`]: a column whose values are all whole numbers and that
//! has at most [`DISCRETE_MAX_LEVELS`] distinct values is treated as discrete, and a typed
//! [`KindNote`] says so, naming the column (the caller decides whether and how to show it, and
//! adds how its surface declares a column continuous; nothing here prints).
//!
//! The estimators that accept each combination are chosen in
//! [`crate::estimators::classical::mixed`] (`check_kinds`), which refuses the rest with one
//! sentence naming a better estimator.

use nalgebra::DMatrixView;
use serde::{Deserialize, Serialize};

/// At most this many distinct whole-number values make an undeclared column discrete.
pub const DISCRETE_MAX_LEVELS: usize = 10;

/// Columns (0-based) of x and of y that are class labels, as a user declared them (the command
/// line's `--discrete`, Python's `discrete_x`/`discrete_y`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabelColumns {
    /// Label columns of x.
    pub x: Vec<usize>,
    /// Label columns of y.
    pub y: Vec<usize>,
}

/// At most this many levels in a column declared a label: more is an identifier (or a
/// measurement), whose one-hot encoding would be as wide as the data.
pub const MAX_LABEL_LEVELS: usize = 1000;

impl LabelColumns {
    /// The same columns, each once and in order, checked against `dx` columns of x and `dy` of
    /// y: a column out of range is an error naming it.
    pub fn validate(&self, dx: usize, dy: usize) -> crate::error::Result<LabelColumns> {
        let check = |cols: &[usize], d: usize, side: &str| -> crate::error::Result<Vec<usize>> {
            if let Some(&j) = cols.iter().find(|&&j| j >= d) {
                return Err(crate::error::Error::param(
                    &format!("label column of {side}"),
                    j,
                    &format!("{side} has {d} columns"),
                ));
            }
            let mut c = cols.to_vec();
            c.sort_unstable();
            c.dedup();
            Ok(c)
        };
        Ok(LabelColumns { x: check(&self.x, dx, "x")?, y: check(&self.y, dy, "y")? })
    }

    /// Whether no column is a label.
    pub fn is_empty(&self) -> bool {
        self.x.is_empty() && self.y.is_empty()
    }

    /// The kind of each of `dx` columns of x and `dy` of y.
    pub fn kinds(&self, dx: usize, dy: usize) -> (Vec<VarKind>, Vec<VarKind>) {
        let kinds = |cols: &[usize], d: usize| {
            (0..d).map(|j| if cols.contains(&j) { VarKind::Discrete } else { VarKind::Continuous }).collect()
        };
        (kinds(&self.x, dx), kinds(&self.y, dy))
    }
}

/// The type of one column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VarKind {
    /// A measurement: values are points on the real line (ties have probability zero).
    Continuous,
    /// A label: only equality between values means anything.
    Discrete,
}

impl VarKind {
    /// `"continuous"` or `"discrete"`.
    pub fn name(self) -> &'static str {
        match self {
            VarKind::Continuous => "continuous",
            VarKind::Discrete => "discrete",
        }
    }
}

/// What the detection assumed about a column, as a fact; [`std::fmt::Display`] gives its sentence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KindNote {
    /// Which input (`"x"`, `"y"`, `"z"`, `"the table"`).
    pub side: String,
    /// Column (0-based).
    pub column: usize,
    /// The column's name (its index as text when it has none).
    pub name: String,
    /// Distinct values in the column.
    pub levels: usize,
    /// What was assumed.
    pub assumed: VarKind,
}

impl std::fmt::Display for KindNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "column {} ('{}') of {} has {} distinct integer values: treated as discrete",
            self.column, self.name, self.side, self.levels
        )
    }
}

/// Distinct values of `col` if they are all whole numbers and at most `max_levels`; `None`
/// otherwise (a fraction, a non-finite value, or too many levels).
pub fn integer_levels(col: impl Iterator<Item = f64>, max_levels: usize) -> Option<usize> {
    let mut seen: Vec<f64> = Vec::with_capacity(max_levels + 1);
    for v in col {
        if !(v.is_finite() && v.fract() == 0.0) {
            return None;
        }
        if !seen.contains(&v) {
            seen.push(v);
            if seen.len() > max_levels {
                return None;
            }
        }
    }
    Some(seen.len())
}

/// The kinds of the columns of `m` (side `side` in notes, each column named by its index until
/// the caller names it): `declared[j]` where given, else discrete when [`integer_levels`] finds
/// at most `max_levels` whole-number values, each seen twice on average (with a [`KindNote`]),
/// else continuous. `declared`
/// may be shorter than the number of columns (missing entries are undeclared).
pub fn detect_kinds(
    m: DMatrixView<'_, f64>,
    side: &str,
    declared: &[Option<VarKind>],
    max_levels: usize,
) -> (Vec<VarKind>, Vec<KindNote>) {
    let mut notes = Vec::new();
    let kinds = (0..m.ncols())
        .map(|j| {
            if let Some(Some(k)) = declared.get(j) {
                return *k;
            }
            match integer_levels(m.column(j).iter().copied(), max_levels) {
                // Each value seen twice on average, as the data rules' label-like columns
                // (rule 6 of `rules`): a short column of distinct whole numbers is no label.
                Some(levels) if 2 * levels <= m.nrows() => {
                    let (column, name, assumed) = (j, j.to_string(), VarKind::Discrete);
                    notes.push(KindNote { side: side.into(), column, name, levels, assumed });
                    VarKind::Discrete
                }
                _ => VarKind::Continuous,
            }
        })
        .collect();
    (kinds, notes)
}

/// The kinds of `ncols` columns of which the ones listed in `discrete` are discrete and the rest
/// continuous: what a user's `--discrete 0,3` declares.
pub fn declared(ncols: usize, discrete: &[usize]) -> Vec<VarKind> {
    (0..ncols).map(|j| if discrete.contains(&j) { VarKind::Discrete } else { VarKind::Continuous }).collect()
}

/// The kind of a side made of several columns: discrete when every column is, continuous when
/// every column is, `None` when they are mixed.
pub fn side_kind(kinds: &[VarKind]) -> Option<VarKind> {
    let first = *kinds.first()?;
    kinds.iter().all(|&k| k == first).then_some(first)
}

/// Dense codes `0..levels` for the rows of `m` (each distinct row one code, in order of first
/// appearance) and the number of levels: a discrete side of one or more columns as one label.
pub fn codes(m: DMatrixView<'_, f64>) -> (Vec<u32>, usize) {
    let mut ids: std::collections::HashMap<Vec<u64>, u32> = std::collections::HashMap::new();
    let out = (0..m.nrows())
        .map(|i| {
            // +0.0 and −0.0 are one label.
            let key: Vec<u64> = m.row(i).iter().map(|&v| (v + 0.0).to_bits()).collect();
            let next = ids.len() as u32;
            *ids.entry(key).or_insert(next)
        })
        .collect();
    (out, ids.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::DMatrix;

    #[test]
    fn integer_columns_with_few_levels_are_detected_and_noted() {
        let m = DMatrix::from_fn(50, 3, |i, j| match j {
            0 => (i % 4) as f64,
            1 => i as f64 * 0.5,
            _ => i as f64,
        });
        let (kinds, notes) = detect_kinds(m.as_view(), "x", &[], DISCRETE_MAX_LEVELS);
        assert_eq!(kinds, vec![VarKind::Discrete, VarKind::Continuous, VarKind::Continuous]);
        assert_eq!(notes.len(), 1);
        assert_eq!(notes[0].to_string(), "column 0 ('0') of x has 4 distinct integer values: treated as discrete");
        let (kinds, notes) = detect_kinds(m.as_view(), "x", &[Some(VarKind::Continuous)], DISCRETE_MAX_LEVELS);
        assert_eq!(kinds[0], VarKind::Continuous);
        assert!(notes.is_empty());
    }

    #[test]
    fn codes_are_dense_and_rows_equal_iff_codes_equal() {
        let m = DMatrix::from_row_slice(5, 2, &[1.0, 0.0, 2.0, 0.0, 1.0, 0.0, 1.0, -0.0, 2.0, 1.0]);
        let (c, levels) = codes(m.as_view());
        assert_eq!((c, levels), (vec![0, 1, 0, 0, 2], 3));
    }
}
