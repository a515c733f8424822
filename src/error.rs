//! The crate's error type: every place a user's input arrives returns [`Result`].

use std::path::PathBuf;

/// Everything that can go wrong in mibound, with enough context to act on.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A score matrix (or another matrix argument) has the wrong shape.
    #[error("{what}: expected {expected}, got {got}")]
    Shape {
        /// Which argument.
        what: String,
        /// The shape that was needed.
        expected: String,
        /// The shape that was passed.
        got: String,
    },
    /// A parameter is outside its valid range.
    #[error("invalid {name} = {value}: {why}")]
    Parameter {
        /// Parameter name.
        name: String,
        /// The offending value, formatted.
        value: String,
        /// What the valid range is.
        why: String,
    },
    /// A NaN or infinite value in an input.
    #[error("{what} has a non-finite value {value} at row {row}, column {col}")]
    NonFinite {
        /// Which input.
        what: String,
        /// Row (0-based).
        row: usize,
        /// Column (0-based).
        col: usize,
        /// The value.
        value: f64,
    },
    /// A name (bound, critic, task) that mibound does not know.
    #[error("unknown {kind} '{name}'; known: {known}")]
    Unknown {
        /// What kind of thing was asked for.
        kind: &'static str,
        /// The name given.
        name: String,
        /// The names that exist.
        known: String,
    },
    /// Training produced a NaN or infinite loss or parameter.
    #[error("training diverged at step {step}: {what}")]
    Diverged {
        /// The step (0-based) at which it was detected.
        step: usize,
        /// What became non-finite.
        what: String,
    },
    /// A data file that cannot be used.
    #[error("{}: {msg}", path.display())]
    Data {
        /// The file.
        path: PathBuf,
        /// What is wrong, with row and column where they apply.
        msg: String,
    },
    /// An I/O error with the path it concerns.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A matrix an estimator must invert (a covariance) is singular on this data.
    #[error("the {what} is singular: {why}")]
    Singular {
        /// Which matrix (`correlation matrix of x`).
        what: String,
        /// Why, and what to do.
        why: String,
    },
    /// A (de)serialisation error, e.g. of a checkpoint.
    #[error("{context}: {msg}")]
    Format {
        /// Where.
        context: String,
        /// What.
        msg: String,
    },
    /// An estimator that cannot use a column of this kind (a label read as a number, or a
    /// measurement read as a label).
    #[error("{estimator} cannot use column {column} of {side}, which is {kind}: {better}")]
    VariableKind {
        /// The estimator's name.
        estimator: String,
        /// `"x"`, `"y"` or `"z"`.
        side: &'static str,
        /// Column (0-based).
        column: usize,
        /// The column's kind: `"discrete"` or `"continuous"`.
        kind: &'static str,
        /// What to use instead, in one sentence.
        better: String,
    },
    /// An estimate would take more memory than it may: refused before any work, with the
    /// setting that would bring it within the limit.
    #[error(
        "the estimate would need about {needed_mb} MB, more than the {limit_mb} MB it may use ({limit_from}): {change}"
    )]
    Memory {
        /// The planned peak, MB.
        needed_mb: u64,
        /// The limit, MB.
        limit_mb: u64,
        /// Where the limit comes from (`max_memory_mb`, the system's available memory).
        limit_from: String,
        /// What to change, naming the setting.
        change: String,
    },
    /// The caller asked the run to stop (see [`crate::train::Progress::cancelled`]).
    #[error("cancelled")]
    Cancelled,
    /// Data that breaks a data rule ([`crate::data::rules`]): the sentence of `problem`, after
    /// the files it is in (the command line) or alone (Python, where the data has no file).
    #[error("{}{problem}", origin_prefix(origin))]
    Input {
        /// The files the data was read from, where it was read from files.
        origin: Vec<PathBuf>,
        /// What is wrong.
        problem: InputError,
    },
}

fn origin_prefix(origin: &[PathBuf]) -> String {
    if origin.is_empty() {
        return String::new();
    }
    let files: Vec<String> = origin.iter().map(|p| p.display().to_string()).collect();
    format!("{}: ", files.join(" and "))
}

/// Which input of an estimate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// `x`.
    X,
    /// `y`.
    Y,
    /// `z`, the conditioning set of `I(X; Y | Z)`.
    Z,
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Side::X => "x",
            Side::Y => "y",
            Side::Z => "z",
        })
    }
}

/// A data row as messages name it: `row i` (0-based, as numpy and pandas' `iloc` count), with
/// the 1-based line of a CSV file when it has one: `line l (row i)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    /// 0-based data row.
    pub index: usize,
    /// 1-based line of the file, for CSV files.
    pub line: Option<usize>,
}

impl std::fmt::Display for Row {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "line {l} (row {})", self.index),
            None => write!(f, "row {}", self.index),
        }
    }
}

/// A column as messages name it: its 0-based index as the user counts it (in the file, as
/// `--x-cols` does, or in the DataFrame) and its name: `column 3 ('b')`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// 0-based index.
    pub index: usize,
    /// Name (the index as text when the data has no names).
    pub name: String,
}

impl std::fmt::Display for Column {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "column {} ('{}')", self.index, self.name)
    }
}

/// A constant column with its value.
#[derive(Clone, Debug, PartialEq)]
pub struct Constant {
    /// The column.
    pub column: Column,
    /// Its one value.
    pub value: f64,
    /// The value as written, for a column of text read as categories (whose `value` is only
    /// its code): messages show it instead.
    pub text: Option<String>,
}

/// `x: columns 0 ('a') = 0, 3 ('d') = 1; y: column 1 ('b') = 5`: the constant columns of each
/// input (x, y, then z), for messages.
pub fn describe_constant(x: &[Constant], y: &[Constant], z: &[Constant]) -> String {
    let side = |s: Side, cols: &[Constant]| {
        let all: Vec<String> = cols
            .iter()
            .map(|c| match &c.text {
                Some(t) => format!("{} ('{}') = '{t}'", c.column.index, c.column.name),
                None => format!("{} ('{}') = {}", c.column.index, c.column.name, c.value),
            })
            .collect();
        format!("{s}: column{} {}", if cols.len() == 1 { "" } else { "s" }, all.join(", "))
    };
    let parts: Vec<String> = [(Side::X, x), (Side::Y, y), (Side::Z, z)]
        .iter()
        .filter(|(_, cols)| !cols.is_empty())
        .map(|&(s, cols)| side(s, cols))
        .collect();
    parts.join("; ")
}

/// Input data that breaks a rule of [`crate::data::rules`]. The message is one sentence, the
/// same from the command line and from Python (the command line puts the file before it).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum InputError {
    /// An input without columns.
    #[error("{side} has no columns")]
    NoColumns {
        /// Which input.
        side: Side,
    },
    /// x and y with different numbers of rows.
    #[error("x has {x} rows, y has {y} rows: x and y must have one row per sample")]
    Rows {
        /// Rows of x.
        x: usize,
        /// Rows of y.
        y: usize,
    },
    /// A conditioning set `z` whose rows do not pair with x's.
    #[error("z has {z} rows, x has {x} rows: z must have one row per sample")]
    GivenRows {
        /// Rows of x.
        x: usize,
        /// Rows of z.
        z: usize,
    },
    /// Fewer rows than any estimate needs.
    #[error("too few rows: {rows}; an estimate needs at least {min}")]
    TooFewRows {
        /// Rows given.
        rows: usize,
        /// Rows needed.
        min: usize,
    },
    /// A NaN or infinite value.
    #[error("{side}, {row}, {column}: value {value} is not finite")]
    NonFinite {
        /// Which input.
        side: Side,
        /// Where.
        row: Row,
        /// Which column.
        column: Column,
        /// The value.
        value: f64,
    },
    /// Constant columns, all named at once.
    #[error("constant columns carry no information: {}; leave them out{}", describe_constant(x, y, z), option.as_ref().map(|o| format!(" or pass {o}")).unwrap_or_default())]
    Constant {
        /// The constant columns of x.
        x: Vec<Constant>,
        /// The constant columns of y.
        y: Vec<Constant>,
        /// The constant columns of the conditioning set z.
        z: Vec<Constant>,
        /// How the caller spells the option that drops them (`--drop-constant`,
        /// `drop_constant=True`), where there is one.
        option: Option<String>,
    },
    /// Column 0 of x and column 0 of y both number the rows like pandas' index
    /// ([`crate::data::rules`], rule 5): the same column on both sides.
    #[error(
        "x's {x} and y's {y} both number the rows (0, 1, 2, … or 1, 2, 3, …) like the index pandas' to_csv() writes: a column in both x and y makes the estimate that of the row numbers, not of the data; leave it out of x or y (select the columns to use) or write the files with to_csv(index=False)"
    )]
    SharedIndex {
        /// The column of x.
        x: Column,
        /// The column of y.
        y: Column,
    },
    /// Every column of an input was constant and dropped.
    #[error("every {side} column is constant")]
    AllConstant {
        /// Which input.
        side: Side,
    },
    /// Two columns of one input with the same name: selections and results could not tell
    /// them apart.
    #[error("{side}: {first} and {second} have the same name: name each column once (rename one)")]
    DuplicateName {
        /// Which input.
        side: Side,
        /// The first column so named.
        first: Column,
        /// The next.
        second: Column,
    },
}

impl InputError {
    /// The inputs the problem concerns, whose files a message names (x's first).
    pub fn sides(&self) -> Vec<Side> {
        match self {
            InputError::NoColumns { side }
            | InputError::NonFinite { side, .. }
            | InputError::AllConstant { side }
            | InputError::DuplicateName { side, .. } => vec![*side],
            InputError::Constant { x, y, z, .. } => [(Side::X, x), (Side::Y, y), (Side::Z, z)]
                .iter()
                .filter(|(_, cols)| !cols.is_empty())
                .map(|(s, _)| *s)
                .collect(),
            InputError::GivenRows { .. } => vec![Side::X, Side::Z],
            _ => vec![Side::X, Side::Y],
        }
    }
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Shorthand for [`Error::Parameter`].
    pub fn param(name: &str, value: impl std::fmt::Display, why: &str) -> Self {
        Error::Parameter { name: name.into(), value: value.to_string(), why: why.into() }
    }
}
