//! Warnings as facts: a [`Warning`] is a stable [`WarningCode`] a program can match on, the
//! numbers behind it, and the sentence a person reads. Estimators and the comparison make them;
//! the command line prints the sentence, `--json` and the Python bindings give all three
//! (`{"code", "message", "values"}`).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a warning is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum WarningCode {
    /// A training run diverged; its last validated parameters are used.
    Diverged,
    /// A training run was still improving at its step limit.
    NotConverged,
    /// A flow model fits its training rows much better than held-out ones.
    Overfit,
    /// A held-out value is not finite: not an estimate.
    NotFinite,
    /// The estimate lies at or near a ceiling it cannot exceed (log N for InfoNCE, ψ(N) − ψ(k) − 1/k
    /// for KSG).
    AtCeiling,
    /// Too few rows for the estimator or for its interval.
    FewRows,
    /// An upper bound whose conditional model is too poor to bound anything here.
    InvalidUpperBound,
    /// A lower bound above an upper bound.
    BoundsCross,
    /// The headline and the classical cross-check disagree beyond their intervals.
    CrossCheck,
    /// An interval wider than `ln n`.
    WideInterval,
    /// The estimator's self-check failed on this data.
    SelfCheck,
    /// Heavy-tailed columns, which the Gaussian (CCA) estimate is not robust to.
    HeavyTails,
    /// The estimator is known to be biased at this dimension.
    HighDimension,
    /// The estimator's bias on a reference Gaussian with the data's rows, dimensions and MI
    /// exceeds a quarter of the MI (its interval is widened to cover it).
    KnownBias,
    /// Constant columns were left as they are.
    ConstantColumns,
    /// Too few rows per cell of a discrete table.
    SparseCells,
    /// No interval could be computed (a setting asked for none, or too few rows for one).
    NoInterval,
    /// Some half-samples of a classical estimator's interval could not be estimated (a column
    /// constant or collinear in those rows); the interval rests on the others.
    SubsamplesFailed,
    /// A quantity that cannot be negative read below zero (a difference of two estimates).
    Negative,
    /// A lower bound or an estimate read above the entropy of a side made of labels, which
    /// bounds the MI.
    AboveEntropy,
    /// `ksg-blocks` found no blocks (and read every column at once), or left columns out of
    /// its blocks (their MI with the other side taken to be 0).
    Blocks,
    /// A random subset of the rows was used, so that time and memory stay bounded (a large
    /// neural estimate's folds, the classical cross-check beside a neural estimate).
    Subsampled,
}

/// One warning: its code, the numbers behind it (named), and its sentence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Warning {
    /// What it is about.
    pub code: WarningCode,
    /// The sentence, for people.
    pub message: String,
    /// The numbers behind it (`value`, `ceiling`, `headline`, …; estimates in nats whatever
    /// unit the table prints), possibly none.
    #[serde(default)]
    pub values: BTreeMap<String, f64>,
}

impl Warning {
    /// A warning with its code and sentence and no numbers yet.
    pub fn new(code: WarningCode, message: impl Into<String>) -> Self {
        Warning { code, message: message.into(), values: BTreeMap::new() }
    }

    /// The same warning with the number `name` = `value`.
    pub fn with(mut self, name: &str, value: f64) -> Self {
        self.values.insert(name.into(), value);
        self
    }
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_warning_is_its_sentence_in_text_and_code_message_values_in_json() {
        let w = Warning::new(WarningCode::CrossCheck, "they disagree").with("headline", 0.5);
        assert_eq!(w.to_string(), "they disagree");
        let v = serde_json::to_value(&w).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"code": "cross-check", "message": "they disagree", "values": {"headline": 0.5}})
        );
        assert_eq!(serde_json::from_value::<Warning>(v).unwrap(), w);
        // Without numbers `values` is still there, empty.
        let bare = serde_json::to_value(Warning::new(WarningCode::SelfCheck, "s")).unwrap();
        assert_eq!(bare, serde_json::json!({"code": "self-check", "message": "s", "values": {}}));
        // A multi-word code in kebab case, as every code (serde's rename).
        assert_eq!(
            serde_json::to_value(WarningCode::InvalidUpperBound).unwrap(),
            serde_json::json!("invalid-upper-bound")
        );
    }
}
