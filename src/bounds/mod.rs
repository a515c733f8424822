//! Variational bounds on mutual information as functions of a score matrix.
//!
//! # The score convention (one for the whole crate)
//!
//! A batch of `N` joint samples `(x_i, y_i) ~ p(x, y)` is scored by a critic into an `N × N`
//! matrix
//!
//! ```text
//! S[(i, j)] = f(x_i, y_j)      row i = x sample, column j = y sample
//! ```
//!
//! so the **diagonal** holds the `N` samples of the joint `p(x, y)` and the **off-diagonal**
//! entries the `N(N−1)` samples of the product of marginals `p(x)p(y)`. Row-wise normalisation
//! (InfoNCE's `logsumexp_j S_ij`) therefore classifies the true `y_i` among all `y_j` for a fixed
//! `x_i`. Poole et al.'s reference code (`vbmi`) and the SMILE code build the transpose
//! (`scores[i, j] = f(x_j, y_i)`, rows = y); their InfoNCE normalises over `x` for fixed `y`,
//! which is the same bound with the roles of `x` and `y` exchanged. The CLUB code and the PyTorch
//! peer in `shared/peers` use this crate's orientation. See `docs/bounds.md`.
//!
//! # Value and training objective
//!
//! Every [`Bound`] returns a [`BoundValue`] with the bound's `value` (the estimate) and the
//! `objective` that training maximises, and writes `∂ objective / ∂S` into a gradient matrix.
//! For most bounds the two coincide; JS, SMILE and MINE deliberately differ (they report one
//! quantity and follow the gradient of another).
//!
//! # Precision
//!
//! Every exponential is shifted by a maximum (of its row, column or the whole off-diagonal), so
//! no term exceeds 1 and scores of magnitude 200 do not overflow in `f32` (tested); where the
//! exact gradient itself is beyond `T`'s range (NWJ's `e^{S}/(N(N−1))` at `S ≈ 89 + ln N(N−1)`
//! in `f32`) the partition-term gradient is scaled so its largest entry is `T::MAX`.
//!
//! What is accumulated in `f64`: the diagonal means, the totals over columns and over rows, the
//! final values, and everything in I_α. What is accumulated in `T`: the partial sums inside one
//! column (the off-diagonal `Σ_i e^{S_ij − m}` of NWJ/TUBA/DV/MINE/SMILE and the softplus sums of
//! JS/SMILE) and InfoNCE's row sums `Σ_j e^{S_ij − m_i}`. Each such partial sum has at most `M`
//! max-shifted terms in `[0, 1]`, so its relative rounding error is at most `M·ε_T`
//! (`1.5·10⁻⁵` for `M = 256` in `f32`), well below the batch-to-batch noise of any estimate.

mod dv;
mod infonce;
mod interpolated;
mod js;
mod nce;
mod smile;
mod symmetric;
mod tuba;
mod upper;

pub use dv::{Dv, Mine};
pub use infonce::InfoNce;
pub use interpolated::Interpolated;
pub use js::Js;
pub use nce::{Nce, nce_binary_loss};
pub use smile::Smile;
pub use symmetric::Symmetrised;
pub use tuba::{Nwj, Tuba};
pub use upper::{BarberAgakov, Club, ClubSample, LeaveOneOut};

use crate::error::{Error, Result};
use crate::real::Real;
use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

/// What a value says about the mutual information — honestly.
///
/// The "bounds cross" and "dependence detected" diagnostics read these kinds: only a
/// [`BoundKind::Lower`] value above 0 is evidence of dependence, and only an
/// [`BoundKind::UpperIfExact`] value can be compared against a lower bound as a ceiling (and
/// then only when its conditional model fits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BoundKind {
    /// `value ≤ I(X; Y)` in expectation, for any critic: InfoNCE, NWJ, TUBA, the JS read-off,
    /// I_α, Barber–Agakov.
    Lower,
    /// `value ≥ I(X; Y)` only when the conditional model `q(y|x)` equals `p(y|x)` (CLUB,
    /// CLUB-sample, L1Out, the variational upper bound); with a learned `q` it is an estimate
    /// that can fall on either side.
    UpperIfExact,
    /// An estimate that is neither a lower nor an upper bound: DV and MINE with batch estimates
    /// of `log E e^f` (biased upward by Jensen), SMILE (clipping makes it overestimate as I
    /// grows; `mibound optimal` shows it), and the classical estimators.
    Estimate,
    /// A training objective that is not itself an MI estimate (binary NCE).
    Objective,
}

impl BoundKind {
    /// A short word for tables: `lower`, `upper*`, `estimate`, `objective`.
    pub fn short(self) -> &'static str {
        match self {
            BoundKind::Lower => "lower",
            BoundKind::UpperIfExact => "upper*",
            BoundKind::Estimate => "estimate",
            BoundKind::Objective => "objective",
        }
    }

    /// In words: `lower bound`, `upper bound if q(y|x) = p(y|x)`, `estimate`, `objective`.
    pub fn describe(self) -> &'static str {
        match self {
            BoundKind::Lower => "lower bound",
            BoundKind::UpperIfExact => "upper bound if q(y|x) = p(y|x)",
            BoundKind::Estimate => "estimate (not a bound)",
            BoundKind::Objective => "training objective (not an MI estimate)",
        }
    }
}

/// The result of evaluating a bound on one score matrix.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BoundValue {
    /// The bound's value: the MI estimate, in nats.
    pub value: f64,
    /// The training objective (maximised) whose gradient the bound returned.
    pub objective: f64,
}

/// A bound on mutual information as a function of the score matrix `S` (see the module docs for
/// the convention).
///
/// Implementations keep only scratch space and explicit state (MINE's moving average); a bound
/// never knows which critic produced its scores.
pub trait Bound<T: Real>: Send {
    /// A short, stable name (`"infonce"`, `"smile"`, …).
    fn name(&self) -> &'static str;

    /// A label with the parameters, for legends and tables (`"SMILE(τ=5)"`).
    fn label(&self) -> String {
        self.name().to_string()
    }

    /// Whether the value is a lower or an upper bound.
    fn kind(&self) -> BoundKind;

    /// Evaluates the bound on `scores` (`N × N`, `N ≥ 2`) and writes `∂ objective / ∂S` into
    /// `grad` (resized to `N × N` if needed; no allocation when it already has that shape).
    fn evaluate(&mut self, scores: &DMatrix<T>, grad: &mut DMatrix<T>) -> Result<BoundValue>;

    /// State carried across evaluations (MINE's moving average), for checkpoints; empty for
    /// stateless bounds.
    fn state(&self) -> Vec<f64> {
        Vec::new()
    }

    /// Restores what [`Bound::state`] returned.
    fn restore(&mut self, state: &[f64]) -> Result<()> {
        if state.is_empty() {
            Ok(())
        } else {
            Err(Error::Format { context: format!("{} state", self.name()), msg: "this bound has no state".into() })
        }
    }

    /// Whether the bound takes a per-sample log-baseline `ln a(y_j)` (TUBA, I_α), which a
    /// learned baseline module can supply through [`Bound::set_log_baseline`].
    fn takes_log_baseline(&self) -> bool {
        false
    }

    /// Sets the per-column log-baseline `ln a(y_j)` (length `N`) used by the next evaluations.
    /// An error for bounds without one.
    fn set_log_baseline(&mut self, log_a: &[T]) -> Result<()> {
        let _ = log_a;
        Err(Error::param("log baseline", self.name(), "this bound takes no baseline"))
    }

    /// `∂ objective / ∂ ln a(y_j)` of the last evaluation, one entry per column (empty for
    /// bounds without a baseline). With a learned baseline this is the gradient the training
    /// layer backpropagates into the baseline module.
    fn log_baseline_grad(&self) -> &[T] {
        &[]
    }

    /// The bound's value alone (allocates a gradient buffer; use [`Bound::evaluate`] in loops).
    fn value(&mut self, scores: &DMatrix<T>) -> Result<f64> {
        let mut grad = DMatrix::zeros(scores.nrows(), scores.ncols());
        Ok(self.evaluate(scores, &mut grad)?.value)
    }
}

/// Checks that `scores` is square with `N ≥ 2` and shapes `grad` to match. Returns `N`.
pub(crate) fn prepare<T: Real>(scores: &DMatrix<T>, grad: &mut DMatrix<T>) -> Result<usize> {
    let (r, c) = scores.shape();
    if r != c || r < 2 {
        return Err(Error::Shape {
            what: "score matrix".into(),
            expected: "square N × N with N ≥ 2".into(),
            got: format!("{r} × {c}"),
        });
    }
    if grad.shape() != (r, c) {
        *grad = DMatrix::zeros(r, c);
    }
    Ok(r)
}

/// Like [`prepare`] but allows `N × M` with `M ≥ N`: the first N columns hold the joint pairs
/// on their diagonal, the remaining `M − N` columns are extra negatives (e.g. a MoCo queue).
pub(crate) fn prepare_rect<T: Real>(scores: &DMatrix<T>, grad: &mut DMatrix<T>) -> Result<usize> {
    let (r, c) = scores.shape();
    if c < r || r < 2 {
        return Err(Error::Shape {
            what: "score matrix".into(),
            expected: "N × M with M ≥ N ≥ 2".into(),
            got: format!("{r} × {c}"),
        });
    }
    if grad.shape() != (r, c) {
        *grad = DMatrix::zeros(r, c);
    }
    Ok(r)
}

/// Checks a per-column vector (a baseline, noise log-probabilities) against `N`.
pub(crate) fn check_len(what: &str, len: usize, n: usize) -> Result<()> {
    if len == n {
        Ok(())
    } else {
        Err(Error::Shape { what: what.into(), expected: format!("length {n}"), got: format!("length {len}") })
    }
}

/// A per-sample log-baseline `ln a(y_j)` used by TUBA and I_α: a constant, or one value per
/// column of the score matrix, set by the caller before each evaluation.
#[derive(Clone, Debug, PartialEq)]
pub enum LogBaseline<T> {
    /// The same `ln a` for every `y`.
    Constant(T),
    /// `ln a(y_j)` for column `j`.
    PerSample(Vec<T>),
}

impl<T: Real> LogBaseline<T> {
    /// `ln a(y_j)`.
    #[inline]
    pub(crate) fn at(&self, j: usize) -> T {
        match self {
            LogBaseline::Constant(a) => *a,
            LogBaseline::PerSample(v) => v[j],
        }
    }

    /// Replaces the baseline by the per-sample values `log_a` (reusing the buffer).
    pub(crate) fn set_per_sample(&mut self, log_a: &[T]) -> Result<()> {
        if let Some(k) = log_a.iter().position(|v| !v.finite()) {
            return Err(Error::param("log baseline", log_a[k], "must be finite"));
        }
        match self {
            LogBaseline::PerSample(v) => {
                v.clear();
                v.extend_from_slice(log_a);
            }
            LogBaseline::Constant(_) => *self = LogBaseline::PerSample(log_a.to_vec()),
        }
        Ok(())
    }

    pub(crate) fn check(&self, n: usize) -> Result<()> {
        match self {
            LogBaseline::Constant(a) if !a.finite() => Err(Error::param("log baseline", a, "must be finite")),
            LogBaseline::Constant(_) => Ok(()),
            LogBaseline::PerSample(v) => check_len("log baseline", v.len(), n),
        }
    }
}

/// A bound chosen by name with its parameters: the serialisable description used by the
/// runner, the CLI and the results files.
///
/// Parsed from strings such as `infonce`, `nwj`, `js`, `dv`, `mine`, `mine:0.01` (EMA rate),
/// `smile`, `smile:5` (clip τ; `smile:inf` is no clip), `interpolated`, `interpolated:0.01` (α), `tuba:<ln a>`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "bound", rename_all = "lowercase")]
pub enum BoundSpec {
    /// [`InfoNce`].
    InfoNce,
    /// [`Nwj`].
    Nwj,
    /// [`Tuba`] with a constant log-baseline.
    Tuba {
        /// `ln a`.
        log_baseline: f64,
    },
    /// [`Dv`].
    Dv,
    /// [`Mine`].
    Mine {
        /// EMA rate `r` in `m ← (1 − r)·m + r·batch`.
        ema_rate: f64,
    },
    /// [`Js`] with the literature's read-off `I_NWJ(S)` (Poole et al.'s `js_lower_bound`).
    Js,
    /// [`Js::shifted`]: the read-off `I_NWJ(S + 1)`, unbiased at the JS optimum, `e²` times the
    /// partition-term variance.
    #[serde(rename = "js-shifted")]
    JsShifted,
    /// [`Smile`].
    Smile {
        /// Clip τ (`∞`: no clip, written `"inf"` in JSON).
        #[serde(with = "f64_or_inf")]
        tau: f64,
    },
    /// [`Club`] (upper bound; scores are `log q(y|x)`).
    Club,
    /// [`ClubSample`] with permutations from `seed`.
    ClubSample {
        /// Seed of the permutations.
        seed: u64,
    },
    /// [`LeaveOneOut`] upper bound (scores are `log q(y|x)`).
    Loo,
    /// [`BarberAgakov`]; `entropy_y = None` takes `H(Y)` from the task when it has one.
    Ba {
        /// `H(Y)` in nats.
        entropy_y: Option<f64>,
    },
    /// [`Interpolated`] with a constant log-baseline.
    Interpolated {
        /// Mixing weight α ∈ [0, 1].
        alpha: f64,
        /// `ln a`.
        log_baseline: f64,
    },
}

/// The names [`BoundSpec::parse`] accepts, written once: [`BoundSpec::NAMES`] and the list of
/// every estimator (`crate::estimators::EstimatorSpec::NAMES`) are made of it.
macro_rules! bound_names {
    () => {
        "infonce, nwj, tuba:<ln a>, dv, mine[:rate], js, js-shifted, smile[:tau|inf], interpolated[:alpha], club, club-sample, l1out, ba[:H(Y)]"
    };
}
pub(crate) use bound_names;

impl BoundSpec {
    /// The names accepted by [`BoundSpec::parse`].
    pub const NAMES: &'static str = bound_names!();

    /// Parses `name[:parameter]` in the crate's name grammar ([`crate::names`]): a parameter is
    /// `key=value` or its bare value (`smile:5` = `smile:tau=5`). The keys: `tuba:log_baseline`,
    /// `mine:rate`, `smile:tau`, `club-sample:seed`, `ba:entropy_y`, and
    /// `interpolated:alpha:log_baseline` (both may be bare, in that order); the other bounds take
    /// none. An unknown or repeated key, a negative seed or a value out of range is an error.
    pub fn parse(s: &str) -> Result<Self> {
        let name = crate::names::Name::parse(s);
        let (keys, positional): (&[&str], usize) = match name.family.as_str() {
            "interpolated" | "alpha" => (&["alpha", "log_baseline"], 2),
            "tuba" => (&["log_baseline"], 1),
            "mine" => (&["rate"], 1),
            "smile" => (&["tau"], 1),
            "club-sample" => (&["seed"], 1),
            "ba" => (&["entropy_y"], 1),
            _ => (&[], 0),
        };
        let spec = Self::from_family(&name.family)?;
        let p = name.params(keys, positional)?;
        let num = |key: &str, default: Option<f64>, what: &str| -> Result<f64> {
            match (p.get(key), default) {
                (Some(a), _) => a.parse::<f64>().map_err(|_| Error::param(what, a, "must be a number")),
                (None, Some(d)) => Ok(d),
                (None, None) => Err(Error::param(what, "(missing)", "give it as name:value")),
            }
        };
        let spec = match spec {
            BoundSpec::Tuba { .. } => BoundSpec::Tuba { log_baseline: num("log_baseline", None, "tuba log baseline")? },
            BoundSpec::Mine { .. } => BoundSpec::Mine { ema_rate: num("rate", Some(0.01), "mine EMA rate")? },
            BoundSpec::Smile { .. } => BoundSpec::Smile { tau: num("tau", Some(5.0), "smile tau")? },
            BoundSpec::ClubSample { .. } => BoundSpec::ClubSample {
                seed: match p.get("seed") {
                    None => 0,
                    Some(a) => a
                        .parse::<u64>()
                        .map_err(|_| Error::param("club-sample seed", a, "must be a whole number ≥ 0"))?,
                },
            },
            BoundSpec::Ba { .. } => BoundSpec::Ba {
                entropy_y: p.get("entropy_y").map(|_| num("entropy_y", None, "BA entropy H(Y)")).transpose()?,
            },
            BoundSpec::Interpolated { .. } => BoundSpec::Interpolated {
                alpha: num("alpha", Some(0.01), "interpolated alpha")?,
                log_baseline: num("log_baseline", Some(0.0), "interpolated log baseline")?,
            },
            other => other,
        };
        spec.validate()?;
        Ok(spec)
    }

    /// The bound a family name stands for, with placeholder parameters ([`BoundSpec::parse`]
    /// reads them); an unknown family is an error listing [`BoundSpec::NAMES`].
    fn from_family(family: &str) -> Result<Self> {
        Ok(match family {
            "infonce" | "nce-infonce" | "cpc" => BoundSpec::InfoNce,
            "nwj" => BoundSpec::Nwj,
            "tuba" => BoundSpec::Tuba { log_baseline: 0.0 },
            "dv" => BoundSpec::Dv,
            "mine" => BoundSpec::Mine { ema_rate: 0.01 },
            "js" => BoundSpec::Js,
            "js-shifted" => BoundSpec::JsShifted,
            "smile" => BoundSpec::Smile { tau: 5.0 },
            "club" => BoundSpec::Club,
            "club-sample" => BoundSpec::ClubSample { seed: 0 },
            "l1out" | "loo" => BoundSpec::Loo,
            "ba" => BoundSpec::Ba { entropy_y: None },
            "interpolated" | "alpha" => BoundSpec::Interpolated { alpha: 0.01, log_baseline: 0.0 },
            other => {
                return Err(Error::Unknown { kind: "bound", name: other.to_string(), known: Self::NAMES.into() });
            }
        })
    }

    fn validate(&self) -> Result<()> {
        match *self {
            BoundSpec::Mine { ema_rate } if !(ema_rate > 0.0 && ema_rate <= 1.0) => {
                Err(Error::param("mine EMA rate", ema_rate, "must lie in (0, 1]"))
            }
            BoundSpec::Smile { tau } if tau.is_nan() || tau <= 0.0 => {
                Err(Error::param("smile tau", tau, "must be positive (inf: DV on the JS-trained critic)"))
            }
            BoundSpec::Interpolated { alpha, .. } if !(0.0..=1.0).contains(&alpha) => {
                Err(Error::param("interpolated alpha", alpha, "must lie in [0, 1]"))
            }
            BoundSpec::Tuba { log_baseline } | BoundSpec::Interpolated { log_baseline, .. }
                if !log_baseline.is_finite() =>
            {
                Err(Error::param("log baseline", log_baseline, "must be finite"))
            }
            _ => Ok(()),
        }
    }

    /// Whether the bound's scores must be the log-density `log q(y_j | x_i)` of a conditional
    /// model (CLUB, CLUB-sample, L1Out, BA) rather than an unnormalised critic.
    pub fn needs_log_density(&self) -> bool {
        matches!(self, BoundSpec::Club | BoundSpec::ClubSample { .. } | BoundSpec::Loo | BoundSpec::Ba { .. })
    }

    /// The objective that trains this bound's critic: bounds with the same trainer share one
    /// critic (JS trains SMILE's and the shifted JS's; CLUB's conditional model serves every
    /// bound that needs a log density).
    pub fn trainer(&self) -> BoundSpec {
        match self {
            BoundSpec::Smile { .. } | BoundSpec::JsShifted => BoundSpec::Js,
            b if b.needs_log_density() => BoundSpec::Club,
            b => *b,
        }
    }

    /// Builds the bound for scalar type `T`.
    pub fn build<T: Real>(&self) -> Result<Box<dyn Bound<T>>> {
        self.validate()?;
        Ok(match *self {
            BoundSpec::InfoNce => Box::new(InfoNce::new()),
            BoundSpec::Nwj => Box::new(Nwj::new()),
            BoundSpec::Tuba { log_baseline } => Box::new(Tuba::new(LogBaseline::Constant(T::of(log_baseline)))),
            BoundSpec::Dv => Box::new(Dv::new()),
            BoundSpec::Mine { ema_rate } => Box::new(Mine::new(ema_rate)?),
            BoundSpec::Js => Box::new(Js::new()),
            BoundSpec::JsShifted => Box::new(Js::shifted()),
            BoundSpec::Smile { tau } => Box::new(Smile::new(tau)?),
            BoundSpec::Interpolated { alpha, log_baseline } => {
                Box::new(Interpolated::new(alpha, LogBaseline::Constant(T::of(log_baseline)))?)
            }
            BoundSpec::Club => Box::new(Club),
            BoundSpec::ClubSample { seed } => Box::new(ClubSample::new(seed)),
            BoundSpec::Loo => Box::new(LeaveOneOut),
            BoundSpec::Ba { entropy_y: Some(h) } => Box::new(BarberAgakov::new(h)?),
            BoundSpec::Ba { entropy_y: None } => {
                return Err(Error::param(
                    "BA entropy H(Y)",
                    "(unknown)",
                    "give it as ba:<nats>, or use a task with an analytic H(Y)",
                ));
            }
        })
    }
}

/// The canonical name, which [`BoundSpec::parse`] reads back to the same bound.
impl std::fmt::Display for BoundSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            BoundSpec::InfoNce => write!(f, "infonce"),
            BoundSpec::Nwj => write!(f, "nwj"),
            BoundSpec::Tuba { log_baseline } => write!(f, "tuba:{log_baseline}"),
            BoundSpec::Dv => write!(f, "dv"),
            BoundSpec::Mine { ema_rate } => write!(f, "mine:{ema_rate}"),
            BoundSpec::Js => write!(f, "js"),
            BoundSpec::JsShifted => write!(f, "js-shifted"),
            BoundSpec::Smile { tau } => write!(f, "smile:{tau}"),
            BoundSpec::Club => write!(f, "club"),
            BoundSpec::ClubSample { seed } => write!(f, "club-sample:{seed}"),
            BoundSpec::Loo => write!(f, "l1out"),
            BoundSpec::Ba { entropy_y: Some(h) } => write!(f, "ba:{h}"),
            BoundSpec::Ba { entropy_y: None } => write!(f, "ba"),
            BoundSpec::Interpolated { alpha, log_baseline: 0.0 } => write!(f, "interpolated:{alpha}"),
            BoundSpec::Interpolated { alpha, log_baseline } => write!(f, "interpolated:{alpha}:{log_baseline}"),
        }
    }
}

impl std::str::FromStr for BoundSpec {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        BoundSpec::parse(s)
    }
}

/// Serialises an `f64` that may be `+∞` (SMILE's τ): finite values as numbers, `+∞` as the
/// string `"inf"` (JSON has no infinity).
mod f64_or_inf {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> std::result::Result<S::Ok, S::Error> {
        if v.is_finite() { s.serialize_f64(*v) } else { s.serialize_str(if *v > 0.0 { "inf" } else { "-inf" }) }
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum NumOrStr {
        Num(f64),
        Str(String),
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<f64, D::Error> {
        match NumOrStr::deserialize(d)? {
            NumOrStr::Num(v) => Ok(v),
            NumOrStr::Str(s) => s.parse::<f64>().map_err(serde::de::Error::custom),
        }
    }
}
