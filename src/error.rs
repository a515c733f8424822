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
    /// A (de)serialisation error, e.g. of a checkpoint.
    #[error("{context}: {msg}")]
    Format {
        /// Where.
        context: String,
        /// What.
        msg: String,
    },
    /// The caller asked the run to stop (see [`crate::train::Progress::cancelled`]).
    #[error("cancelled")]
    Cancelled,
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Shorthand for [`Error::Parameter`].
    pub fn param(name: &str, value: impl std::fmt::Display, why: &str) -> Self {
        Error::Parameter { name: name.into(), value: value.to_string(), why: why.into() }
    }
}
