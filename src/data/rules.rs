//! The rules a user's data must follow before anything is estimated from it, in one place for
//! the command line and the Python bindings alike: the same data gives the same refusal with
//! the same sentence ([`InputError`]), or the same notes ([`Note`]) for the caller to show
//! (the command line prints them on stderr, Python turns them into warnings).
//!
//! In order, for x and y ([`check`]):
//! 1. each has at least one column ([`InputError::NoColumns`]);
//! 2. they have the same number of rows ([`InputError::Rows`]), at least [`MIN_ROWS`]
//!    ([`InputError::TooFewRows`]);
//! 3. every value is finite ([`InputError::NonFinite`], naming the first bad value's row, line and
//!    column);
//! 4. no column is constant: a constant column carries no information and breaks
//!    standardisation. All are named at once ([`InputError::Constant`]), or dropped with a
//!    [`Note::DroppedConstant`] when the caller asks ([`Rules::drop_constant`]);
//! 5. a column 0 named like the index pandas writes (`''`, `Unnamed: 0`, `index`) that counts
//!    0, 1, 2, … (or 1, 2, 3, …) is used as data, but noted ([`Note::IndexColumn`]): it is
//!    usually an accident of `DataFrame.to_csv()` without `index=False`. Such a column in both
//!    x and y (two files written so) is refused ([`InputError::SharedIndex`]): the same column
//!    on both sides would make the estimate that of the row numbers;
//! 6. when the caller asks ([`Rules::label_hint`]), used columns with at most
//!    [`DISCRETE_MAX_LEVELS`] distinct whole-number values, each seen twice on average, are
//!    noted ([`Note::LabelLike`]): they are read as numbers, which is wrong for a class label
//!    (its codes' order and spacing mean nothing, and its ties break KSG's counts). The caller
//!    that lets a user declare such columns (`estimate --discrete`) asks only when nothing was
//!    declared; `features` and `matrix` detect them instead ([`crate::data::kinds`]).
//! 7. rows repeated exactly, or nearly, beyond what the values' grid explains are copies
//!    ([`crate::data::repeats`]): every estimator for continuous data, and the permutation
//!    test, reads copies as dependence. By default one row of each set of copies is kept
//!    ([`Rules::repeats`]); either way a [`Note::RepeatedRows`] says how many and what was done.
//!
//! Names: two columns of one input with the same name are refused ([`InputError::DuplicateName`]),
//! as selections and results could not tell them apart.
//!
//! For the conditioning set `z` of `I(X; Y | Z)` ([`check_given`]): rule 1, one row per row of x
//! ([`InputError::GivenRows`]), at least [`MIN_ROWS`], rule 3, names once, rule 4 (refused, or
//! dropped when asked) and, when asked, rule 6, each naming `z`.

use crate::data::kinds::{DISCRETE_MAX_LEVELS, integer_levels};
pub use crate::data::repeats::RepeatPolicy;
use crate::data::repeats::{NEAR_FRACTION, scan};
use crate::error::describe_constant;
pub use crate::error::{Column, Constant, InputError, Row, Side};
use nalgebra::{DMatrix, DMatrixView};

/// The fewest rows any estimate accepts.
pub const MIN_ROWS: usize = 2;

/// One input (x or y) as it arrives, with the names the user knows its columns and rows by.
#[derive(Clone, Debug)]
pub struct Input<'a> {
    /// Values, one row per sample.
    pub values: DMatrixView<'a, f64>,
    /// Each column's index and name as the user counts and names it (a file's column, a
    /// DataFrame's column).
    pub columns: Vec<Column>,
    /// For a CSV file, the 1-based line of each row; empty otherwise.
    pub lines: &'a [usize],
    /// For each column of text read as categories (a label written as text, a pandas
    /// category), its levels in the order of their codes `0, 1, 2, …`; `None` (or no entry)
    /// for a column of numbers. Messages name such a column's values by their text.
    pub levels: Vec<Option<Vec<String>>>,
}

impl<'a> Input<'a> {
    /// Values whose columns are named by their index (`'0'`, `'1'`, …), as a numpy array's.
    pub fn new(values: DMatrixView<'a, f64>) -> Self {
        let columns = (0..values.ncols()).map(|j| Column { index: j, name: j.to_string() }).collect();
        Input { values, columns, lines: &[], levels: Vec::new() }
    }

    /// The same input with the levels of its columns of text ([`Input::levels`]).
    pub fn with_levels(mut self, levels: Vec<Option<Vec<String>>>) -> Self {
        self.levels = levels;
        self
    }

    /// Values with column names; `names` must have one name per column (else the names are
    /// ignored and the columns named by index).
    pub fn named(values: DMatrixView<'a, f64>, names: &[String]) -> Self {
        let mut input = Self::new(values);
        if names.len() == values.ncols() {
            for (c, n) in input.columns.iter_mut().zip(names) {
                c.name = n.clone();
            }
        }
        input
    }

    fn row(&self, i: usize) -> Row {
        Row { index: i, line: self.lines.get(i).copied() }
    }
}

/// What the caller asks of [`check`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rules {
    /// Drop constant columns (with a [`Note::DroppedConstant`]) instead of refusing them.
    pub drop_constant: bool,
    /// Keep constant columns as they are, neither refused nor dropped (rule 4 off): where each
    /// column is measured alone against a target, as scikit-learn's `mutual_info_regression`
    /// does (Python's per-feature functions), a constant column's MI is 0, not an error.
    pub keep_constant: bool,
    /// How the caller spells the option that drops them (`--drop-constant`,
    /// `drop_constant=True`), for the refusal's sentence; `None` where there is no such option.
    pub drop_option: Option<String>,
    /// Note columns that look like class labels ([`Note::LabelLike`]), ending the note with
    /// these words: what to do about it on the caller's surface. `None`: no such notes.
    pub label_hint: Option<String>,
    /// What to do with rows that are copies (rule 7; default: keep one of each).
    pub repeats: RepeatPolicy,
    /// How the caller spells the option that keeps them (`--repeats keep`, `repeats='keep'`),
    /// for the note's sentence; `None` where there is no such option.
    pub repeats_option: Option<String>,
}

/// Something about the data the caller should show, without refusing it.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Note {
    /// Constant columns were dropped ([`Rules::drop_constant`]).
    DroppedConstant {
        /// The dropped columns of x.
        x: Vec<Constant>,
        /// The dropped columns of y.
        y: Vec<Constant>,
        /// The dropped columns of the conditioning set z ([`check_given`]).
        z: Vec<Constant>,
    },
    /// Column 0 of an input counts 0, 1, 2, … (or 1, 2, 3, …) under a name pandas gives its
    /// index; it is used as data.
    IndexColumn {
        /// Which input.
        side: Side,
        /// The column.
        column: Column,
        /// Its first value: 0 or 1.
        start: u8,
    },
    /// Columns of an input with at most [`DISCRETE_MAX_LEVELS`] distinct whole-number values,
    /// read as numbers ([`Rules::label_hint`]).
    LabelLike {
        /// Which input.
        side: Side,
        /// The columns and their numbers of distinct values.
        columns: Vec<(Column, usize)>,
        /// What to do if they are labels, in the caller's words.
        hint: String,
    },
    /// Rows repeated exactly or nearly, judged copies (rule 7).
    RepeatedRows {
        /// Rows equal to an earlier row, judged copies.
        exact: usize,
        /// Distinct rows nearly equal to another, judged copies.
        near: usize,
        /// All rows.
        rows: usize,
        /// One copy and the row it repeats.
        example: (Row, Row),
        /// The copies were left out (the default), or kept as asked.
        dropped: bool,
        /// How the caller spells the other choice.
        option: Option<String>,
    },
}

impl Note {
    /// A short stable code (`dropped-constant`, `index-column`), for programs.
    pub fn code(&self) -> &'static str {
        match self {
            Note::DroppedConstant { .. } => "dropped-constant",
            Note::IndexColumn { .. } => "index-column",
            Note::LabelLike { .. } => "label-like",
            Note::RepeatedRows { .. } => "repeated-rows",
        }
    }
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Note::DroppedConstant { x, y, z } => write!(f, "dropped constant {}", describe_constant(x, y, z)),
            Note::IndexColumn { side, column, start } => write!(
                f,
                "{column} counts {} like the index pandas' to_csv() writes (use index=False); it is included in {side}",
                if *start == 0 { "0, 1, 2, …" } else { "1, 2, 3, …" }
            ),
            Note::LabelLike { side, columns, hint } => {
                const SHOWN: usize = 4;
                let listed: Vec<String> =
                    columns.iter().take(SHOWN).map(|(c, levels)| format!("{c}: {levels} values")).collect();
                let more = columns.len().saturating_sub(SHOWN);
                let tail = if more > 0 { format!(" and {more} more") } else { String::new() };
                let (what, verb, labels) = if columns.len() == 1 {
                    ("column", "is", "it is a class label")
                } else {
                    ("columns", "are", "they are class labels")
                };
                write!(
                    f,
                    "{what} of {side} with few distinct whole-number values ({}{tail}) {verb} read as numbers; if {labels}, {hint}",
                    listed.join(", ")
                )
            }
            Note::RepeatedRows { exact, near, rows, example, dropped, option } => {
                let mut found = Vec::new();
                if *exact > 0 {
                    found.push(format!("{exact} of the {rows} rows repeat an earlier row exactly"));
                }
                if *near > 0 {
                    found.push(format!(
                        "{near} rows lie within {NEAR_FRACTION:e} of the usual distance between neighbours of another row"
                    ));
                }
                let copies = exact + near;
                write!(
                    f,
                    "{} ({} repeats {}): copies, which every estimator for continuous data and the dependence test read as dependence",
                    found.join(" and "),
                    example.0,
                    example.1
                )?;
                let other = |verb: &str| option.as_ref().map(|o| format!("; {verb} with {o}")).unwrap_or_default();
                if *dropped {
                    write!(f, "; the estimate uses the {} other rows{}", rows - copies, other("to keep them"))
                } else {
                    write!(
                        f,
                        "; kept as asked, so expect MI and dependence where there is none{}",
                        other("to leave them out")
                    )
                }
            }
        }
    }
}

/// Data that follows the rules: which columns of each input to use, and the notes.
#[derive(Clone, Debug, PartialEq)]
pub struct Checked {
    /// Positions (in the [`Input`]) of the columns of x to use.
    pub x: Vec<usize>,
    /// Positions of the columns of y to use.
    pub y: Vec<usize>,
    /// The columns of x used.
    pub x_columns: Vec<Column>,
    /// The columns of y used.
    pub y_columns: Vec<Column>,
    /// The rows to use, ascending; `None` for every row.
    pub rows: Option<Vec<usize>>,
    /// What the caller should show.
    pub notes: Vec<Note>,
}

impl Checked {
    /// Whether every column of both inputs is used (nothing to copy).
    pub fn uses_all(&self, x: &Input<'_>, y: &Input<'_>) -> bool {
        self.rows.is_none() && self.x.len() == x.values.ncols() && self.y.len() == y.values.ncols()
    }

    /// The rows and columns of x and y to use, copied.
    pub fn select(&self, x: &Input<'_>, y: &Input<'_>) -> (DMatrix<f64>, DMatrix<f64>) {
        let pick = |m: DMatrixView<'_, f64>, cols: &[usize]| match &self.rows {
            Some(rows) => DMatrix::from_fn(rows.len(), cols.len(), |i, j| m[(rows[i], cols[j])]),
            None => m.select_columns(cols),
        };
        (pick(x.values, &self.x), pick(y.values, &self.y))
    }
}

/// The rules every estimator also applies to its inputs (1–3 of the module docs, with
/// `min_rows` rows at least): columns, equal rows, finite values. [`check`] applies these and
/// the rest.
pub fn check_values(x: &Input<'_>, y: &Input<'_>, min_rows: usize) -> Result<(), InputError> {
    for (side, input) in [(Side::X, x), (Side::Y, y)] {
        if input.values.ncols() == 0 {
            return Err(InputError::NoColumns { side });
        }
    }
    let (nx, ny) = (x.values.nrows(), y.values.nrows());
    if nx != ny {
        return Err(InputError::Rows { x: nx, y: ny });
    }
    if nx < min_rows {
        return Err(InputError::TooFewRows { rows: nx, min: min_rows });
    }
    for (side, input) in [(Side::X, x), (Side::Y, y)] {
        check_finite(side, input)?;
    }
    Ok(())
}

/// Whether `x` and `y` are one table checked as both sides (`matrix`).
fn same_table(x: &Input<'_>, y: &Input<'_>) -> bool {
    std::ptr::eq(x.values.as_ptr(), y.values.as_ptr()) && x.values.shape() == y.values.shape() && x.columns == y.columns
}

/// Column `j` of `input`, constant, with its value (and its text, for a column of text read as
/// categories: every surface names it so).
fn constant_column(input: &Input<'_>, j: usize) -> Constant {
    let value = input.values[(0, j)];
    let text = input.levels.get(j).and_then(Option::as_ref).and_then(|l| l.get(value as usize)).cloned();
    Constant { column: input.columns[j].clone(), value, text }
}

/// Two columns of one input with the same name ([`InputError::DuplicateName`]).
fn check_names(side: Side, input: &Input<'_>) -> Result<(), InputError> {
    for (b, second) in input.columns.iter().enumerate() {
        if let Some(first) = input.columns[..b].iter().find(|c| c.name == second.name) {
            return Err(InputError::DuplicateName { side, first: first.clone(), second: second.clone() });
        }
    }
    Ok(())
}

/// Applies the rules (see the module docs) to `x` and `y`.
pub fn check(x: &Input<'_>, y: &Input<'_>, rules: &Rules) -> Result<Checked, InputError> {
    check_values(x, y, MIN_ROWS)?;
    check_names(Side::X, x)?;
    check_names(Side::Y, y)?;
    let (kx, ky) = if rules.keep_constant { (Vec::new(), Vec::new()) } else { (constant(x), constant(y)) };
    let mut notes = Vec::new();
    if !kx.is_empty() || !ky.is_empty() {
        let describe = |k: &[usize], input: &Input<'_>| -> Vec<Constant> {
            k.iter().map(|&j| constant_column(input, j)).collect()
        };
        // One table checked as both sides (`matrix`) names its columns once.
        let (dx, dy) = (describe(&kx, x), if same_table(x, y) { Vec::new() } else { describe(&ky, y) });
        if !rules.drop_constant {
            return Err(InputError::Constant { x: dx, y: dy, z: Vec::new(), option: rules.drop_option.clone() });
        }
        for (side, k, input) in [(Side::X, &kx, x), (Side::Y, &ky, y)] {
            if k.len() == input.values.ncols() {
                return Err(InputError::AllConstant { side });
            }
        }
        notes.push(Note::DroppedConstant { x: dx, y: dy, z: Vec::new() });
    }
    let keep =
        |k: &[usize], input: &Input<'_>| (0..input.values.ncols()).filter(|j| !k.contains(j)).collect::<Vec<_>>();
    let (ux, uy) = (keep(&kx, x), keep(&ky, y));
    let (ix, iy) = (index_column(Side::X, &ux, x), index_column(Side::Y, &uy, y));
    // One table checked as both sides (`matrix`) is not two inputs sharing a column.
    if let (false, Some(Note::IndexColumn { column: cx, .. }), Some(Note::IndexColumn { column: cy, .. })) =
        (same_table(x, y), &ix, &iy)
    {
        return Err(InputError::SharedIndex { x: cx.clone(), y: cy.clone() });
    }
    notes.extend(ix.into_iter().chain(iy));
    if let Some(hint) = &rules.label_hint {
        notes.extend([(Side::X, &ux, x), (Side::Y, &uy, y)].iter().filter_map(|(s, u, i)| label_like(*s, u, i, hint)));
    }
    let rows = repeated_rows(x, y, (&ux, &uy), rules, &mut notes)?;
    let names = |used: &[usize], input: &Input<'_>| used.iter().map(|&j| input.columns[j].clone()).collect();
    Ok(Checked { x_columns: names(&ux, x), y_columns: names(&uy, y), x: ux, y: uy, rows, notes })
}

/// Rule 7 on the used columns `(ux, uy)`: the rows to keep (`None`: all) and a
/// [`Note::RepeatedRows`] when some are copies. One table checked as both sides (`matrix`)
/// is scanned once.
fn repeated_rows(
    x: &Input<'_>,
    y: &Input<'_>,
    (ux, uy): (&[usize], &[usize]),
    rules: &Rules,
    notes: &mut Vec<Note>,
) -> Result<Option<Vec<usize>>, InputError> {
    let same_table = std::ptr::eq(x.values.as_ptr(), y.values.as_ptr()) && ux == uy;
    let (sx, sy) = (x.values.select_columns(ux), y.values.select_columns(if same_table { &[] } else { uy }));
    copies(sx.as_view(), sy.as_view(), x.lines, rules, notes)
}

/// Rule 7 on the rows of `a` and `b` side by side (`lines`: each row's line in its file, or
/// empty): the rows to keep (`None`: all) and a [`Note::RepeatedRows`] when some are copies.
/// [`check`] applies it to x and y; `I(X; Y | Z)` applies it to x and z beside y, once the three
/// are read.
pub fn copies(
    a: DMatrixView<'_, f64>,
    b: DMatrixView<'_, f64>,
    lines: &[usize],
    rules: &Rules,
    notes: &mut Vec<Note>,
) -> Result<Option<Vec<usize>>, InputError> {
    let found = scan(a, b);
    if found.copies.is_empty() {
        return Ok(None);
    }
    let n = a.nrows();
    let dropped = rules.repeats == RepeatPolicy::Drop;
    let example = found.example.unwrap_or((found.copies[0], found.copies[0]));
    let row = |i: usize| Row { index: i, line: lines.get(i).copied() };
    notes.push(Note::RepeatedRows {
        exact: if found.exact_copies { found.exact } else { 0 },
        near: found.near,
        rows: n,
        example: (row(example.0), row(example.1)),
        dropped,
        option: rules.repeats_option.clone(),
    });
    if !dropped {
        return Ok(None);
    }
    let kept: Vec<usize> = (0..n).filter(|i| found.copies.binary_search(i).is_err()).collect();
    if kept.len() < MIN_ROWS {
        return Err(InputError::TooFewRows { rows: kept.len(), min: MIN_ROWS });
    }
    Ok(Some(kept))
}

/// Rule 6 for the columns `used` of `input`: a [`Note::LabelLike`] naming those with at most
/// [`DISCRETE_MAX_LEVELS`] whole-number values, each seen twice on average, if any.
fn label_like(side: Side, used: &[usize], input: &Input<'_>, hint: &str) -> Option<Note> {
    let columns: Vec<(Column, usize)> = used
        .iter()
        .filter_map(|&j| {
            let levels = integer_levels(input.values.column(j).iter().copied(), DISCRETE_MAX_LEVELS)?;
            // Values seen twice on average: ties, not a short column of distinct numbers.
            (2 * levels <= input.values.nrows()).then(|| (input.columns[j].clone(), levels))
        })
        .collect();
    (!columns.is_empty()).then(|| Note::LabelLike { side, columns, hint: hint.into() })
}

/// Applies the rules for a conditioning set (module docs) to `z`, beside an x of `x_rows` rows:
/// at least one column, one row per row of x, every value finite, names once, no constant
/// column (refused as in x and y, or dropped with a [`Note::DroppedConstant`] when
/// [`Rules::drop_constant`]) and, when `rules` asks ([`Rules::label_hint`]), a note on columns
/// that look like class labels. Returns the positions of the columns of z to use and the notes.
pub fn check_given(z: &Input<'_>, x_rows: usize, rules: &Rules) -> Result<(Vec<usize>, Vec<Note>), InputError> {
    if z.values.ncols() == 0 {
        return Err(InputError::NoColumns { side: Side::Z });
    }
    if z.values.nrows() != x_rows {
        return Err(InputError::GivenRows { x: x_rows, z: z.values.nrows() });
    }
    if x_rows < MIN_ROWS {
        return Err(InputError::TooFewRows { rows: x_rows, min: MIN_ROWS });
    }
    check_finite(Side::Z, z)?;
    check_names(Side::Z, z)?;
    let k = constant(z);
    let mut notes = Vec::new();
    if !k.is_empty() {
        let dz: Vec<Constant> = k.iter().map(|&j| constant_column(z, j)).collect();
        if !rules.drop_constant {
            return Err(InputError::Constant {
                x: Vec::new(),
                y: Vec::new(),
                z: dz,
                option: rules.drop_option.clone(),
            });
        }
        if k.len() == z.values.ncols() {
            return Err(InputError::AllConstant { side: Side::Z });
        }
        notes.push(Note::DroppedConstant { x: Vec::new(), y: Vec::new(), z: dz });
    }
    let used: Vec<usize> = (0..z.values.ncols()).filter(|j| !k.contains(j)).collect();
    notes.extend(rules.label_hint.as_deref().and_then(|hint| label_like(Side::Z, &used, z, hint)));
    Ok((used, notes))
}

/// The first non-finite value, row by row.
fn check_finite(side: Side, input: &Input<'_>) -> Result<(), InputError> {
    let m = &input.values;
    for i in 0..m.nrows() {
        for j in 0..m.ncols() {
            let value = m[(i, j)];
            if !value.is_finite() {
                return Err(InputError::NonFinite { side, row: input.row(i), column: input.columns[j].clone(), value });
            }
        }
    }
    Ok(())
}

/// Positions of the columns whose values are all equal.
fn constant(input: &Input<'_>) -> Vec<usize> {
    crate::numerics::constant_columns(input.values.as_view())
}

/// A note when the used column that is the user's column 0 looks like pandas' index: named
/// `''`, `Unnamed: 0` or `index` and counting 0, 1, 2, … or 1, 2, 3, … (at least 3 rows).
fn index_column(side: Side, used: &[usize], input: &Input<'_>) -> Option<Note> {
    let j = used.iter().copied().find(|&j| input.columns[j].index == 0)?;
    let column = &input.columns[j];
    let name = column.name.to_ascii_lowercase();
    let m = &input.values;
    let counts = |start: f64| (0..m.nrows()).all(|i| m[(i, j)] == start + i as f64);
    let named = name.is_empty() || name == "unnamed: 0" || name == "index";
    if m.nrows() < 3 || !named {
        return None;
    }
    let start = if counts(0.0) {
        0
    } else if counts(1.0) {
        1
    } else {
        return None;
    };
    Some(Note::IndexColumn { side, column: column.clone(), start })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(m: &DMatrix<f64>) -> Input<'_> {
        Input::new(m.as_view())
    }

    #[test]
    fn every_rule_in_order() {
        let good = DMatrix::from_fn(5, 2, |i, j| (i * 3 + j) as f64 * 0.5 + (i % 2) as f64);
        let rules = Rules::default();
        let ok = check(&input(&good), &input(&good), &rules).unwrap();
        assert_eq!((ok.x, ok.y, ok.notes), (vec![0, 1], vec![0, 1], vec![]));
        let short = good.rows(0, 4).into_owned();
        assert_eq!(check(&input(&good), &input(&short), &rules), Err(InputError::Rows { x: 5, y: 4 }));
        let one = good.rows(0, 1).into_owned();
        assert_eq!(check(&input(&one), &input(&one), &rules), Err(InputError::TooFewRows { rows: 1, min: 2 }));
        let mut nan = good.clone();
        nan[(3, 1)] = f64::NAN;
        let e = check(&input(&good), &input(&nan), &rules).unwrap_err();
        assert_eq!(e.to_string(), "y, row 3, column 1 ('1'): value NaN is not finite");
        let mut k = good.clone();
        k.column_mut(0).fill(2.0);
        let e = check(&input(&k), &Input::named(k.as_view(), &["a".into(), "b".into()]), &rules).unwrap_err();
        assert_eq!(
            e.to_string(),
            "constant columns carry no information: x: column 0 ('0') = 2; y: column 0 ('a') = 2; leave them out"
        );
        let drop = Rules { drop_constant: true, ..Rules::default() };
        let ok = check(&input(&k), &input(&good), &drop).unwrap();
        assert_eq!((ok.x, ok.y.len(), ok.notes[0].code()), (vec![1], 2, "dropped-constant"));
    }

    #[test]
    fn a_conditioning_set_follows_rules_1_to_3_and_6() {
        let z = DMatrix::from_fn(6, 2, |i, j| if j == 0 { i as f64 * 0.7 } else { (i % 2) as f64 });
        let asked = Rules { label_hint: Some("say so".into()), ..Rules::default() };
        let notes = check_given(&Input::named(z.as_view(), &["w".into(), "g".into()]), 6, &asked).unwrap().1;
        assert_eq!(notes.len(), 1);
        assert!(notes[0].to_string().starts_with("column of z with few distinct whole-number values (column 1 ('g')"));
        assert!(check_given(&input(&z), 6, &Rules::default()).unwrap().1.is_empty());
        let e = check_given(&input(&z), 5, &Rules::default()).unwrap_err();
        assert_eq!(e.to_string(), "z has 6 rows, x has 5 rows: z must have one row per sample");
        let mut nan = z.clone();
        nan[(4, 0)] = f64::NAN;
        let e = check_given(&input(&nan), 6, &Rules::default()).unwrap_err();
        assert_eq!(e.to_string(), "z, row 4, column 0 ('0'): value NaN is not finite");
        // No rows (scripts/fuzz-inputs found a panic there), a constant column refused or dropped.
        let empty = DMatrix::<f64>::zeros(0, 2);
        assert_eq!(check_given(&input(&empty), 0, &Rules::default()), Err(InputError::TooFewRows { rows: 0, min: 2 }));
        let mut k = z.clone();
        k.column_mut(1).fill(5.0);
        let e = check_given(&input(&k), 6, &Rules::default()).unwrap_err();
        assert_eq!(e.to_string(), "constant columns carry no information: z: column 1 ('1') = 5; leave them out");
        let drop = Rules { drop_constant: true, ..Rules::default() };
        let (kept, notes) = check_given(&input(&k), 6, &drop).unwrap();
        assert_eq!((kept, notes[0].to_string()), (vec![0], "dropped constant z: column 1 ('1') = 5".to_string()));
    }

    #[test]
    fn a_pandas_index_is_noted_when_used() {
        let m = DMatrix::from_fn(4, 2, |i, j| if j == 0 { i as f64 + 1.0 } else { (i * i) as f64 });
        let x = Input::named(m.as_view(), &["Unnamed: 0".into(), "a".into()]);
        let y = Input::new(m.as_view());
        let ok = check(&x, &y, &Rules::default()).unwrap();
        assert_eq!(ok.notes.len(), 1, "only the named column 0 of x: {:?}", ok.notes);
        assert_eq!(
            ok.notes[0].to_string(),
            "column 0 ('Unnamed: 0') counts 1, 2, 3, … like the index pandas' to_csv() writes (use index=False); it is included in x"
        );
    }

    #[test]
    fn a_pandas_index_in_both_x_and_y_is_refused() {
        // Two files written by `Series.to_csv()` with the index: x counts 0, 1, 2, … and y 1, 2, 3, ….
        let m = DMatrix::from_fn(5, 2, |i, j| if j == 0 { i as f64 } else { (i * i) as f64 * 0.5 });
        let n = DMatrix::from_fn(5, 2, |i, j| if j == 0 { i as f64 + 1.0 } else { (i as f64).sin() });
        let x = Input::named(m.as_view(), &["Unnamed: 0".into(), "0".into()]);
        let y = Input::named(n.as_view(), &["".into(), "0".into()]);
        let e = check(&x, &y, &Rules::default()).unwrap_err();
        assert!(matches!(e, InputError::SharedIndex { .. }), "{e:?}");
        assert!(
            e.to_string().starts_with("x's column 0 ('Unnamed: 0') and y's column 0 ('') both number the rows"),
            "{e}"
        );
        // In one of them only, it is noted, not refused; nor is one table checked as both
        // sides (`matrix`).
        let plain = Input::named(n.as_view(), &["a".into(), "b".into()]);
        assert_eq!(check(&x, &plain, &Rules::default()).unwrap().notes.len(), 1);
        assert_eq!(check(&x, &x, &Rules::default()).unwrap().notes.len(), 2);
    }

    #[test]
    fn label_like_columns_are_noted_only_when_asked() {
        // x: a 3-level class code, a 0/1 flag and a measurement; y: 12 whole-number levels
        // (more than DISCRETE_MAX_LEVELS) and a fraction.
        let m = DMatrix::from_fn(24, 3, |i, j| match j {
            0 => (i % 3) as f64,
            1 => (i % 2) as f64,
            _ => i as f64 * 0.37,
        });
        let y = DMatrix::from_fn(24, 2, |i, j| if j == 0 { (i % 12) as f64 } else { i as f64 + 0.5 });
        let x = Input::named(m.as_view(), &["class".into(), "flag".into(), "size".into()]);
        assert!(check(&x, &input(&y), &Rules::default()).unwrap().notes.is_empty());
        let asked = Rules { label_hint: Some("say so".into()), ..Rules::default() };
        let ok = check(&x, &input(&y), &asked).unwrap();
        assert_eq!(ok.notes.len(), 1, "{:?}", ok.notes);
        assert_eq!(ok.notes[0].code(), "label-like");
        assert_eq!(
            ok.notes[0].to_string(),
            "columns of x with few distinct whole-number values (column 0 ('class'): 3 values, column 1 ('flag'): 2 values) are read as numbers; if they are class labels, say so"
        );
        // Ten distinct values in 19 rows are not each seen twice on average; in 20 rows they are.
        for (rows, noted) in [(19, false), (20, true)] {
            let m = DMatrix::from_fn(rows, 1, |i, _| (i % 10) as f64);
            let ok = check(&input(&m), &input(&y.rows(0, rows).into_owned()), &asked).unwrap();
            assert_eq!(ok.notes.iter().any(|n| n.code() == "label-like"), noted, "{rows} rows: {:?}", ok.notes);
        }
        // Six label-like columns: four named, the rest counted.
        let six = DMatrix::from_fn(24, 6, |i, j| ((i + j) % 2) as f64);
        let ok = check(&input(&six), &input(&y), &asked).unwrap();
        assert!(ok.notes[0].to_string().contains("column 3 ('3'): 2 values and 2 more) are read"), "{}", ok.notes[0]);
    }
}
