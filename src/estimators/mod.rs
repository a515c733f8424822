//! One interface for every mutual-information estimator.
//!
//! An [`Estimator`] takes paired rows `x` (`n × dim_x`) and `y` (`n × dim_y`) and a seed and
//! returns an [`Estimate`]: the value in nats, a 95 % interval with the method that produced it,
//! what kind of number it is ([`Kind`]: a lower bound, an upper bound that holds only for an
//! exact conditional model, or a point estimate), the settings used, diagnostics and wall time.
//!
//! Every estimator has a stable name with its parameters, parsed from and printed to one string
//! by [`EstimatorSpec`]: `infonce`, `smile:5`, `l1out`, `ksg:k=5`, `copula`. The same strings
//! are used by the library, the command line, the benchmark runner and the Python bindings.
//!
//! | family | names | kind |
//! |---|---|---|
//! | neural bounds, trained and evaluated held-out ([`neural`]) | `infonce`, `nwj`, `tuba:<ln a>`, `js`, `interpolated[:α]`, `ba:<H(Y)>` | lower bound |
//! | | `dv`, `mine[:rate]`, `smile[:τ]` | estimate |
//! | | `l1out`, `club`, `club-sample` | upper bound if q(y\|x) = p(y\|x) |
//! | classical ([`classical`]) | `ksg[:k=5]`, `gaussian`, `copula`, `binned` | estimate |
//! | discrete and mixed ([`classical`]) | `discrete`, `ross[:k=3]`, `mixed-ksg[:k=5]` | estimate |
//! | flow-Gaussianisation ([`flow`]) | `flow[:steps=N]` | estimate |
//! | flow entropy difference ([`flow`]) | `flow-entropy[:steps=N]` | estimate |
//!
//! [`compare`] runs several estimators on one data set (sharing what can be shared) and adds the
//! diagnostics that need all of them.
//!
//! ```
//! use mibound::data::{CorrelatedGaussian, Sampler, rng};
//! use mibound::estimators::{Estimator, EstimatorSpec, Settings};
//!
//! let (x, y) = CorrelatedGaussian::with_mi(2, 1.0).unwrap().sample(600, &mut rng(1));
//! let mut settings = Settings::default();
//! settings.neural.batch = 64;
//! settings.neural.max_steps = 200;
//! let infonce = EstimatorSpec::parse("infonce").unwrap().build(&settings).unwrap();
//! let e = infonce.estimate(x.as_view(), y.as_view(), 0).unwrap();
//! println!("{} = {:.3} [{:.3}, {:.3}] ({})", e.label, e.value, e.interval.low, e.interval.high, e.kind.describe());
//! assert!(e.value < 1.5 && e.interval.low <= e.value);
//! ```

pub mod auto;
pub mod classical;
mod compare;
pub mod entry;
pub mod flow;
pub mod marginal;
pub mod neural;
pub mod reference;
pub mod selfcheck;
pub mod significance;
mod spec;
mod used;
mod warning;

pub use crate::bounds::BoundKind as Kind;
pub use compare::{
    Comparison, DEPENDENCE_LEVEL, Unit, apply_entropy_ceiling, compare, compare_given, self_check_steps, training_steps,
};
pub use marginal::MarginalTransform;
pub use neural::{Alternative, Candidates, Neural, NeuralConfig, ValidNeuralConfig};
pub use selfcheck::{SelfCheck, self_check};
#[cfg(feature = "cli")]
pub(crate) use spec::estimator_names;
pub use spec::{
    CheckedSettings, DEFAULT_ESTIMATORS, DEFAULT_SEED, EstimatorSpec, LOW_DIMENSION, Options, Settings, SettingsGuard,
};
pub use used::SettingsUsed;
pub use warning::{Warning, WarningCode};

use crate::error::{Error, Result};
use nalgebra::DMatrixView;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// An estimator of `I(X; Y)` from paired samples; see the module docs.
///
/// An estimator never knows who called it: the command line, the benchmark runner and the
/// Python bindings all go through [`Estimator::estimate`].
pub trait Estimator: Send + Sync {
    /// The estimator's name with its parameters, as [`EstimatorSpec`] parses and prints it.
    fn name(&self) -> String;

    /// What the value is: a lower bound, an upper bound for an exact conditional model, or a
    /// point estimate.
    fn kind(&self) -> Kind;

    /// Estimates `I(X; Y)` in nats from the rows of `x` (`n × dim_x`) and `y` (`n × dim_y`),
    /// row `i` of each being one joint sample. The same seed gives the same estimate.
    fn estimate(&self, x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, seed: u64) -> Result<Estimate>;

    /// [`Estimator::estimate`], telling `progress` the training steps as they are taken and
    /// stopping with [`crate::error::Error::Cancelled`] when it says so. An estimator that
    /// trains nothing through the training loop ignores it (the default).
    fn estimate_with_progress(
        &self,
        x: DMatrixView<'_, f64>,
        y: DMatrixView<'_, f64>,
        seed: u64,
        progress: Option<&dyn crate::train::Progress>,
    ) -> Result<Estimate> {
        let _ = progress;
        self.estimate(x, y, seed)
    }

    /// The estimate's value alone, for reference simulations ([`self::reference`]): an estimator
    /// whose interval costs more than its value may skip it (KSG does).
    fn reading(&self, x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, seed: u64) -> Result<f64> {
        Ok(self.estimate(x, y, seed)?.value)
    }
}

/// A confidence interval and how it was obtained.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Lower end, in nats.
    pub low: f64,
    /// Upper end, in nats.
    pub high: f64,
    /// Nominal coverage (0.95).
    pub level: f64,
    /// How it was computed, in words (`"t over 5 folds"`, `"bootstrap, 200 resamples"`).
    pub method: String,
}

impl Interval {
    /// A 95 % interval `[low, high]` computed by `method`.
    pub fn new(low: f64, high: f64, method: impl Into<String>) -> Self {
        Interval { low, high, level: 0.95, method: method.into() }
    }

    /// Whether `v` lies inside.
    pub fn contains(&self, v: f64) -> bool {
        self.low <= v && v <= self.high
    }
}

/// What happened while estimating, beyond the value.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Diagnostics {
    /// Warnings: not converged, diverged, at a ceiling, too few rows, … ([`Warning`]).
    pub warnings: Vec<Warning>,
    /// Training steps taken (summed over folds), for estimators that train.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub steps: Option<u64>,
    /// Whether any training run diverged.
    #[serde(default)]
    pub diverged: bool,
    /// Per-fold (or per-split) values, when the estimate is a mean over held-out parts.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub folds: Vec<f64>,
    /// Named numbers specific to an estimator (canonical correlations, mean neighbour counts).
    #[serde(skip_serializing_if = "BTreeMap::is_empty", default)]
    pub values: BTreeMap<String, f64>,
}

/// The result of an [`Estimator`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Estimate {
    /// The estimator's name with parameters (`"smile:5"`, `"ksg:k=5"`).
    pub estimator: String,
    /// A label for tables and legends (`"SMILE(τ=5)"`).
    pub label: String,
    /// The estimate in nats.
    pub value: f64,
    /// A 95 % interval.
    pub interval: Interval,
    /// What the value is.
    pub kind: Kind,
    /// Rows used.
    pub n_samples: usize,
    /// Dimension of x.
    pub dim_x: usize,
    /// Dimension of y.
    pub dim_y: usize,
    /// The settings used, enough to reproduce the estimate.
    pub settings: SettingsUsed,
    /// Diagnostics.
    pub diagnostics: Diagnostics,
    /// Wall-clock seconds.
    pub wall_seconds: f64,
}

/// The headline among `estimates`: the first lower bound, or the copula estimate where it is a
/// lower bound (each side's normal scores jointly normal, [`classical::normality`]) and
/// reads more — of two lower bounds the larger is the tighter; else the first estimate. Only
/// the copula's bound is weighed against the first: held-out neural bounds other than the
/// first (DV, NWJ) are noisier, and the larger of several noisy readings is biased upwards.
pub fn headline_index(estimates: &[Estimate]) -> Option<usize> {
    let first = estimates.iter().position(|e| e.kind == Kind::Lower);
    let copula =
        estimates.iter().position(|e| e.kind == Kind::Lower && matches!(e.settings, SettingsUsed::Copula { .. }));
    match (first, copula) {
        (Some(f), Some(c)) if estimates[c].value > estimates[f].value => Some(c),
        (Some(f), _) => Some(f),
        (None, _) => (!estimates.is_empty()).then_some(0),
    }
}

impl Estimate {
    /// An estimate with empty diagnostics and no settings; fill the rest with the builder-style
    /// setters or field by field.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        estimator: impl Into<String>,
        label: impl Into<String>,
        value: f64,
        interval: Interval,
        kind: Kind,
        (n_samples, dim_x, dim_y): (usize, usize, usize),
    ) -> Self {
        Estimate {
            estimator: estimator.into(),
            label: label.into(),
            value,
            interval,
            kind,
            n_samples,
            dim_x,
            dim_y,
            settings: SettingsUsed::None,
            diagnostics: Diagnostics::default(),
            wall_seconds: 0.0,
        }
    }

    /// The same estimate with `settings`.
    pub fn with_settings(mut self, settings: SettingsUsed) -> Self {
        self.settings = settings;
        self
    }

    /// The same estimate with `diagnostics`.
    pub fn with_diagnostics(mut self, diagnostics: Diagnostics) -> Self {
        self.diagnostics = diagnostics;
        self
    }

    /// The estimate in bits.
    pub fn bits(&self) -> f64 {
        self.value / std::f64::consts::LN_2
    }
}

/// `[a, b]`: the columns of `a`, then those of `b` (the same rows).
pub(crate) fn side_by_side(a: DMatrixView<'_, f64>, b: DMatrixView<'_, f64>) -> nalgebra::DMatrix<f64> {
    let mut out = nalgebra::DMatrix::zeros(a.nrows(), a.ncols() + b.ncols());
    out.columns_mut(0, a.ncols()).copy_from(&a);
    out.columns_mut(a.ncols(), b.ncols()).copy_from(&b);
    out
}

/// Checks the conditioning set `z` against `x` (checked by [`check_inputs`] with `y`) by the data
/// rules for `z` ([`crate::data::rules::check_given`], with the same sentences as the command
/// line and Python): at least one column, one row per row of `x`, every value finite.
pub(crate) fn check_given(x: DMatrixView<'_, f64>, z: DMatrixView<'_, f64>) -> Result<()> {
    use crate::data::rules::{Input, Rules, check_given};
    check_given(&Input::new(z), x.nrows(), &Rules::default())
        .map(|_| ())
        .map_err(|problem| Error::Input { origin: Vec::new(), problem })
}

/// Checks that `x` and `y` are usable, by the data rules' first checks
/// ([`crate::data::rules::check_values`], with the same sentences as the command line and
/// Python): at least one column each, the same number of rows, every value finite (naming the
/// row and column of the first bad one); then at least `min_rows` rows for this estimator.
pub fn check_inputs(x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, min_rows: usize) -> Result<()> {
    use crate::data::rules::{Input, check_values};
    use crate::error::Error;
    check_values(&Input::new(x), &Input::new(y), crate::data::rules::MIN_ROWS)
        .map_err(|problem| Error::Input { origin: Vec::new(), problem })?;
    if x.nrows() < min_rows {
        return Err(Error::param("rows", x.nrows(), &format!("this estimator needs at least {min_rows}")));
    }
    Ok(())
}
