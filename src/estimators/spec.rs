//! Estimator names: one string per estimator with its parameters, parsed and printed here.
//!
//! Syntax ([`crate::names`], the one grammar of every family): `family[:param]…`, where each
//! parameter is `key=value` or, for a family's first parameter, the bare value (`smile:5` =
//! `smile:tau=5`); an unknown key is refused by every family with the same message, naming it
//! and the keys the family takes. Printing gives the canonical form, which parses back to the
//! same estimator.

use super::Estimator;
use super::neural::{Candidates, Neural, NeuralConfig, ValidNeuralConfig};
use crate::bounds::BoundSpec;
use crate::critics::{Activation, CriticSpec, Similarity};
use crate::error::{Error, Result};
use crate::optim::AdamConfig;
use serde::{Deserialize, Serialize};

/// The estimators `mibound estimate` and Python's `mibound.estimate` run when none are named:
/// `auto`, which [`EstimatorSpec::auto_for`] resolves by the data (their dimensions, and
/// whether their columns fall into independent low-dimensional blocks). Every other estimator
/// is opt-in.
pub const DEFAULT_ESTIMATORS: &str = "auto";

/// Up to this many joint dimensions (`dx + dy`) the default headline is KSG on normal scores;
/// above, the InfoNCE lower bound. Chosen on the tuning half of the task suite, where KSG on
/// normal scores was the most accurate in low dimension (`examples/low_dimension_choice.rs`;
/// docs/results.md, "Low dimension: KSG on normal scores", has the table).
pub const LOW_DIMENSION: usize = 4;

/// The seed of an estimate when none is given.
pub const DEFAULT_SEED: u64 = 0;

impl EstimatorSpec {
    /// [`DEFAULT_ESTIMATORS`], parsed.
    pub fn defaults() -> Vec<EstimatorSpec> {
        Self::parse_list(DEFAULT_ESTIMATORS).expect("the default estimators parse")
    }

    /// What `auto` stands for with `dx + dy` joint dimensions: the headline first, then its
    /// cross-check. Up to [`LOW_DIMENSION`]: KSG (k = 3) on normal scores alone, a consistent
    /// estimate whose bias is small in low dimension (Kraskov et al. 2004) and which is
    /// invariant to monotone maps of each coordinate; a neural bound there is slower and, on the
    /// tuning half, further from the truth. Above: the InfoNCE lower bound, with KSG (k = 5)
    /// as the classical cross-check.
    pub fn auto(dx: usize, dy: usize) -> Vec<EstimatorSpec> {
        if dx + dy <= LOW_DIMENSION {
            vec![EstimatorSpec::Ksg { k: super::classical::HEADLINE_K, variant: 1, normal_scores: true }]
        } else {
            vec![
                EstimatorSpec::Neural { bound: BoundSpec::InfoNce },
                EstimatorSpec::Ksg { k: super::classical::DEFAULT_K, variant: 1, normal_scores: false },
            ]
        }
    }

    /// `specs` with every `auto` replaced by [`EstimatorSpec::auto`]'s list for `dx + dy`
    /// dimensions (an estimator named twice is kept once), without looking at the data; with
    /// declared labels, [`EstimatorSpec::resolve_with_labels`]. What [`super::compare`] runs is
    /// [`EstimatorSpec::resolve_for`]'s list, which also sums KSG over independent blocks.
    pub fn resolve(specs: &[EstimatorSpec], dx: usize, dy: usize) -> Vec<EstimatorSpec> {
        Self::expand(specs, &Self::auto(dx, dy))
    }

    /// `specs` with every `auto` replaced by `auto` (an estimator named twice is kept once).
    pub(super) fn expand(specs: &[EstimatorSpec], auto: &[EstimatorSpec]) -> Vec<EstimatorSpec> {
        let mut out: Vec<EstimatorSpec> = Vec::with_capacity(specs.len() + 1);
        for s in specs {
            let expanded = if *s == EstimatorSpec::Auto { auto.to_vec() } else { vec![*s] };
            for e in expanded {
                if !out.contains(&e) {
                    out.push(e);
                }
            }
        }
        out
    }
}

/// The settings shared by every estimator of a family, beyond what its name says, as a caller
/// fills them in: checked where they enter an estimate ([`Settings::check`], once per path —
/// the functions that take them accept [`CheckedSettings`] too and then check nothing).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Settings {
    /// Critic, training and fold settings of the neural bounds.
    pub neural: NeuralConfig,
}

impl Settings {
    /// The settings with the proof that they passed their checks ([`NeuralConfig::validate`]).
    pub fn check(&self) -> Result<CheckedSettings> {
        Ok(CheckedSettings { neural: self.neural.check()? })
    }
}

/// [`Settings`] that passed [`Settings::check`] (linfa's `ParamGuard`: unchecked settings →
/// a checked type, made once where they enter). What takes settings
/// ([`EstimatorSpec::build`], [`super::compare`], [`super::Comparison::with_self_check`]) takes
/// either through [`SettingsGuard`] and checks only the unchecked ones.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct CheckedSettings {
    /// The neural settings, checked.
    pub neural: ValidNeuralConfig,
}

/// Settings checked or not: [`Settings`] are checked when asked ([`SettingsGuard::checked`]),
/// [`CheckedSettings`] are returned as they are.
pub trait SettingsGuard {
    /// The checked settings (an error when they do not pass).
    fn checked(&self) -> Result<std::borrow::Cow<'_, CheckedSettings>>;
    /// The neural settings as they are, checked or not (to read them).
    fn neural_config(&self) -> &NeuralConfig;
    /// The settings as a caller fills them in (to change them).
    fn to_settings(&self) -> Settings {
        Settings { neural: self.neural_config().clone() }
    }
}

impl SettingsGuard for Settings {
    fn checked(&self) -> Result<std::borrow::Cow<'_, CheckedSettings>> {
        self.check().map(std::borrow::Cow::Owned)
    }
    fn neural_config(&self) -> &NeuralConfig {
        &self.neural
    }
}

impl SettingsGuard for CheckedSettings {
    fn checked(&self) -> Result<std::borrow::Cow<'_, CheckedSettings>> {
        Ok(std::borrow::Cow::Borrowed(self))
    }
    fn neural_config(&self) -> &NeuralConfig {
        &self.neural
    }
}

/// The estimation options of the command line (`mibound estimate --critic … --batch …`), the
/// Python bindings (`mibound.estimate(…, critic=…, batch=…)`) and a benchmark configuration's
/// `[neural]` table, checked and turned into [`Settings`] in one place so all three report a bad
/// value with the same message. Read from a file, a key left out keeps its default and an
/// unknown key is an error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct Options {
    /// Critic for the lower bounds: `auto` (a separable critic from `hidden`, `embed` and
    /// `weight_decay`, compared on every fold with the candidates of [`Candidates::default`] —
    /// [`Alternative::defaults`](crate::estimators::Alternative::defaults), all three also on the coordinates with their squares, and the
    /// nearest-neighbour, random-walk and elliptical (Gaussian and Student-t) critics — keeping the one that validates
    /// highest), or one critic alone, with no other candidate ([`Candidates::none`]):
    /// separable, cosine, bilinear, cpc, concat (or any name [`CriticSpec::parse`] reads).
    pub critic: String,
    /// Hidden layer widths of the critics (and of the conditional model q(y|x)).
    pub hidden: Vec<usize>,
    /// Embedding dimension of separable and cpc critics.
    pub embed: usize,
    /// Batch size N.
    pub batch: usize,
    /// Maximum training steps per critic and fold.
    pub steps: u64,
    /// Adam learning rate.
    pub lr: f64,
    /// L2 weight decay.
    pub weight_decay: f64,
    /// Folds for the held-out estimate and its interval.
    pub folds: usize,
    /// The map of each coordinate before training: copula, standardize, none.
    pub transform: String,
    /// Steps without a validation improvement before a critic's training stops (the command
    /// line and Python keep the default; a benchmark configuration may set it).
    pub patience: u64,
    /// The memory a neural estimate may take, in MB ([`NeuralConfig::max_memory_mb`]:
    /// `--max-memory-mb` on the command line, `max_memory_mb=` in Python); `None`: the memory
    /// the system reports available.
    pub max_memory_mb: Option<u64>,
}

impl Default for Options {
    /// The options that give [`Settings::default`], read from [`NeuralConfig::default`] (the
    /// defaults are written there only; the command line's and Python's read these): `auto`
    /// stands for its separable critic with [`Alternative::defaults`](crate::estimators::Alternative::defaults) beside it.
    fn default() -> Self {
        let n = NeuralConfig::default();
        let CriticSpec::Separable { hidden, embed, .. } = n.critic else {
            unreachable!("the default critic is separable (tests/estimate_options.rs)")
        };
        Options {
            critic: "auto".into(),
            hidden,
            embed,
            batch: n.batch,
            steps: n.max_steps,
            lr: n.adam.lr,
            weight_decay: n.adam.weight_decay,
            folds: n.folds,
            transform: n.transform.to_string(),
            patience: n.patience,
            max_memory_mb: n.max_memory_mb,
        }
    }
}

impl Options {
    /// Checks the options and builds the settings. `name` spells an option in messages
    /// (`--weight-decay` on the command line, `weight_decay` in Python) from its field name.
    /// The settings' own check ([`NeuralConfig::validate`], which alone checks
    /// `max_memory_mb`) ends them, so what they pass also passes [`Settings::check`] (tested),
    /// which the estimate makes once where the settings enter it.
    pub fn settings(&self, name: impl Fn(&str) -> String) -> Result<Settings> {
        let bad = |field: &str, v: &dyn std::fmt::Display, why: &str| Err(Error::param(&name(field), v, why));
        if self.batch < 2 {
            return bad("batch", &self.batch, "must be at least 2");
        }
        if self.steps == 0 {
            return bad("steps", &self.steps, "must be at least 1");
        }
        if self.folds < 2 {
            return bad("folds", &self.folds, "must be at least 2 (one fold to train, one to test)");
        }
        if self.patience == 0 {
            return bad("patience", &self.patience, "must be at least 1");
        }
        // The separable and Gaussian critics' builders accept a zero width and then fail in
        // training: refuse it here.
        if self.hidden.contains(&0) {
            let widths: Vec<String> = self.hidden.iter().map(|h| h.to_string()).collect();
            return bad("hidden", &widths.join(","), "every hidden width must be at least 1");
        }
        if self.embed == 0 {
            return bad("embed", &self.embed, "must be at least 1");
        }
        if !(self.lr.is_finite() && self.lr > 0.0) {
            return bad("lr", &self.lr, "must be positive and finite");
        }
        if !(self.weight_decay.is_finite() && self.weight_decay >= 0.0) {
            return bad("weight_decay", &self.weight_decay, "must be finite and at least 0");
        }
        let act = Activation::Relu;
        let hidden = self.hidden.clone();
        let critic = match self.critic.as_str() {
            "separable" | "auto" => CriticSpec::Separable {
                hidden: hidden.clone(),
                embed: self.embed,
                activation: act,
                similarity: Similarity::Dot,
            },
            "concat" => CriticSpec::Concat { hidden: hidden.clone(), activation: act },
            "cpc" => CriticSpec::Bilinear { hidden: Some(hidden.clone()), embed: self.embed, activation: act },
            other => CriticSpec::parse(other)?,
        };
        let neural = NeuralConfig {
            critic,
            conditional: CriticSpec::Gaussian { hidden, activation: act, variance: Default::default() },
            batch: self.batch,
            max_steps: self.steps,
            adam: AdamConfig { lr: self.lr, weight_decay: self.weight_decay, ..AdamConfig::default() },
            folds: self.folds,
            patience: self.patience,
            transform: self.transform.parse()?,
            // `auto` compares the default candidates; a named critic is that critic alone.
            candidates: if self.critic == "auto" { Candidates::default() } else { Candidates::none() },
            max_memory_mb: self.max_memory_mb,
            ..NeuralConfig::default()
        };
        neural.validate()?;
        Ok(Settings { neural })
    }
}

/// An estimator chosen by name; see the module docs for the syntax.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "family", rename_all = "lowercase")]
#[non_exhaustive]
pub enum EstimatorSpec {
    /// A variational bound on a trained critic, evaluated on held-out rows
    /// ([`Neural`]).
    Neural {
        /// The bound.
        bound: BoundSpec,
    },
    /// Kraskov–Stögbauer–Grassberger kNN estimate (`ksg`, `ksg:k=3`, `ksg:k=5:variant=2`);
    /// see [`crate::estimators::classical::ksg`].
    Ksg {
        /// Neighbours (≥ 1; default 5).
        k: usize,
        /// 1 (KSG-1, default) or 2 (KSG-2).
        variant: u8,
        /// Each coordinate replaced by its normal scores first (`ksg:margins=normal`) instead
        /// of standardised (the default, scikit-learn's preprocessing).
        #[serde(default)]
        normal_scores: bool,
    },
    /// KSG summed over blocks of columns independent of each other (`ksg-blocks`,
    /// `ksg-blocks:k=5`): KSG-1 on normal scores within each block of
    /// [`crate::blocks::independent_blocks`]; see [`crate::estimators::classical::ksg`].
    #[serde(rename = "ksg-blocks")]
    KsgBlocks {
        /// Neighbours (≥ 1; default 3).
        k: usize,
    },
    /// The default estimate (`auto`): the estimators [`EstimatorSpec::auto_for`] chooses for
    /// the data. Alone it is the headline; in a comparison it stands for the headline and its
    /// cross-check.
    Auto,
    /// The bias-corrected Gaussian / canonical-correlation estimate (`gaussian`, alias `cca`).
    Gaussian,
    /// The Gaussian-copula estimate (`copula`).
    Copula,
    /// The binned (histogram) plug-in estimate (`binned`, `binned:bins=8`).
    Binned {
        /// Bins per coordinate (≥ 2); `None` for the default rule.
        bins: Option<usize>,
    },
    /// Two discrete sides: the plug-in estimate, Miller–Madow corrected unless
    /// `discrete:correction=none` ([`super::classical::discrete`]).
    Discrete {
        /// Whether the Miller–Madow correction is applied (default true).
        miller_madow: bool,
    },
    /// Ross 2014, one discrete side and one continuous (`ross`, `ross:k=3:discrete=x`;
    /// [`super::classical::mixed`]).
    Ross {
        /// Neighbours (default 3, as scikit-learn).
        k: usize,
        /// Whether the label is x (default: y).
        discrete_x: bool,
    },
    /// Gao et al. 2017's mixed KSG (`mixed-ksg`, `mixed-ksg:k=5`; [`super::classical::mixed`]).
    #[serde(rename = "mixed-ksg")]
    MixedKsg {
        /// Neighbours (default 5).
        k: usize,
    },
    /// Flow-Gaussianisation (`flow`, `flow:steps=N`; [`super::flow::FlowGaussian`]).
    Flow {
        /// Joint training steps at most (default 4000).
        steps: u64,
    },
    /// Three-flow entropy difference (`flow-entropy`, `flow-entropy:steps=N`;
    /// [`super::flow::FlowEntropy`]).
    #[serde(rename = "flow-entropy")]
    FlowEntropy {
        /// Training steps per flow at most (default 4000).
        steps: u64,
    },
}

/// Every estimator's name with its parameters, the one list that every surface reads: the
/// neural bounds' ([`BoundSpec::NAMES`]), the classical ones' ([`super::classical::NAMES`])
/// and the flows', after `auto`. [`EstimatorSpec::NAMES`] is this list; `mibound estimate
/// --help` prints it, Python's `mibound.ESTIMATORS` is it, and README.md names every family
/// of it (tests/estimator_names.rs, python/tests/test_defaults.py).
macro_rules! estimator_names {
    () => {
        concat!(
            "auto, ",
            crate::bounds::bound_names!(),
            ", ",
            crate::estimators::classical::classical_names!(),
            ", flow[:steps=N], flow-entropy[:steps=N]"
        )
    };
}
#[cfg(feature = "cli")]
pub(crate) use estimator_names;

impl EstimatorSpec {
    /// Every family name with its parameters, for error messages and `--help`: the one list
    /// of every estimator, made of the bounds' ([`BoundSpec::NAMES`]), the classical
    /// estimators' ([`super::classical::NAMES`]) and the flows' lists, after `auto`.
    pub const NAMES: &'static str = estimator_names!();

    /// The family of each name of [`EstimatorSpec::NAMES`] (`auto`, `infonce`, …, `ksg-blocks`,
    /// …, `flow-entropy`), in order.
    pub fn families() -> Vec<&'static str> {
        Self::NAMES.split(", ").map(|n| n.split([':', '[', ' ']).next().unwrap_or(n)).collect()
    }

    /// Parses a name such as `infonce`, `smile:5` or `l1out`.
    pub fn parse(s: &str) -> Result<Self> {
        let s = s.trim();
        if s.is_empty() {
            return Err(Error::param("estimator", "(empty)", &format!("name one of: {}", Self::NAMES)));
        }
        if s.eq_ignore_ascii_case("auto") {
            return Ok(EstimatorSpec::Auto);
        }
        if let Some(classical) = super::classical::parse_spec(s) {
            return classical;
        }
        let name = crate::names::Name::parse(s);
        if let family @ ("flow" | "flow-entropy") = name.family.as_str() {
            let steps = match name.params(&["steps"], 1)?.get("steps") {
                None => crate::flows::GaussianisationConfig::default().max_steps,
                Some(a) => a.parse::<u64>().ok().filter(|&s| s > 0).ok_or_else(|| {
                    Error::param(
                        &format!("{family} steps"),
                        a,
                        &format!("must be a whole number ≥ 1 ({family}:steps=N)"),
                    )
                })?,
            };
            return Ok(if family == "flow" {
                EstimatorSpec::Flow { steps }
            } else {
                EstimatorSpec::FlowEntropy { steps }
            });
        }
        match BoundSpec::parse(s) {
            Ok(bound) => Ok(EstimatorSpec::Neural { bound }),
            Err(Error::Unknown { name, .. }) => {
                Err(Error::Unknown { kind: "estimator", name, known: Self::NAMES.into() })
            }
            Err(e) => Err(e),
        }
    }

    /// Parses a comma-separated list (`infonce,smile:5,ksg:k=5`).
    pub fn parse_list(s: &str) -> Result<Vec<Self>> {
        s.split(',').filter(|p| !p.trim().is_empty()).map(Self::parse).collect()
    }

    /// The estimator, with `settings` ([`Settings`], checked here when the estimator uses them,
    /// or [`CheckedSettings`]); invalid settings are an error here, never later.
    pub fn build<S: SettingsGuard + ?Sized>(&self, settings: &S) -> Result<Box<dyn Estimator>> {
        match self {
            EstimatorSpec::Neural { bound } => {
                Ok(Box::new(Neural::checked(*bound, settings.checked()?.neural.clone())?))
            }
            EstimatorSpec::Flow { steps } => Ok(Box::new(super::flow::FlowGaussian::new(*steps)?)),
            EstimatorSpec::FlowEntropy { steps } => Ok(Box::new(super::flow::FlowEntropy::new(*steps)?)),
            // The declared labels are categories to the mixed KSG's metric.
            EstimatorSpec::MixedKsg { k } => {
                Ok(Box::new(super::classical::MixedKsg::new(*k)?.with_labels(settings.neural_config().labels.clone())))
            }
            EstimatorSpec::Auto => {
                settings.checked()?;
                Ok(Box::new(super::auto::Auto { settings: settings.to_settings() }))
            }
            _ => self.build_classical(),
        }
    }

    /// The bound of a neural estimator.
    pub fn bound(&self) -> Option<BoundSpec> {
        match self {
            EstimatorSpec::Neural { bound } => Some(*bound),
            _ => None,
        }
    }

    /// Builds a classical estimator (`ksg`, `gaussian`, `copula`, `binned`) with its default
    /// settings; an error for a neural spec. See [`super::classical::build`].
    pub fn build_classical(&self) -> Result<Box<dyn super::Estimator>> {
        super::classical::build(self)
    }
}

impl std::fmt::Display for EstimatorSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EstimatorSpec::Neural { bound } => write!(f, "{bound}"),
            EstimatorSpec::Auto => write!(f, "auto"),
            EstimatorSpec::Flow { steps } => write!(f, "{}", super::flow::canonical_name("flow", *steps)),
            EstimatorSpec::FlowEntropy { steps } => {
                write!(f, "{}", super::flow::canonical_name("flow-entropy", *steps))
            }
            other => write!(f, "{}", super::classical::spec_name(other).unwrap_or_default()),
        }
    }
}

impl std::str::FromStr for EstimatorSpec {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Self::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every family of the grammar refuses an unknown key with one message naming the key and
    /// the keys the family takes: bounds as the classical estimators and the flows.
    #[test]
    fn unknown_keys_are_refused_by_every_family() {
        for (name, key, takes) in [
            ("infonce:foo=1", "foo", "infonce takes: none"),
            ("smile:tau=5:bar=2", "bar", "smile takes: tau"),
            ("smile:5:bar=2", "bar", "smile takes: tau"),
            ("interpolated:alpha=0.5:x=1", "x", "interpolated takes: alpha, log_baseline"),
            ("mine:ema=0.1", "ema", "mine takes: rate"),
            ("ba:h=1", "h", "ba takes: entropy_y"),
            ("ksg:foo=1", "foo", "ksg takes: k, variant, margins"),
            ("gaussian:k=3", "k", "gaussian takes: none"),
            ("flow:steps=10:x=1", "x", "flow takes: steps"),
        ] {
            let e = EstimatorSpec::parse(name).unwrap_err();
            assert!(matches!(e, Error::Parameter { .. }), "{name}: {e:?}");
            let family = name.split(':').next().unwrap();
            assert_eq!(e.to_string(), format!("invalid {family} parameter = {key}: unknown key; {takes}"), "{name}");
        }
        // The keys that exist, bare or named, give the same estimator.
        for (bare, keyed) in [
            ("smile:5", "smile:tau=5"),
            ("mine:0.1", "mine:rate=0.1"),
            ("interpolated:0.5:1", "interpolated:alpha=0.5:log_baseline=1"),
            ("ba:1.5", "ba:entropy_y=1.5"),
            ("club-sample:3", "club-sample:seed=3"),
            ("tuba:0.5", "tuba:log_baseline=0.5"),
            ("flow:100", "flow:steps=100"),
            ("ksg:3", "ksg:k=3"),
        ] {
            assert_eq!(EstimatorSpec::parse(bare).unwrap(), EstimatorSpec::parse(keyed).unwrap(), "{keyed}");
        }
    }
}
