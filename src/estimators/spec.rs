//! Estimator names: one string per estimator with its parameters, parsed and printed here.
//!
//! Syntax: `family[:param]…`, where each parameter is `key=value` or, for a family's first
//! parameter, the bare value (`smile:5` = `smile:tau=5`). Printing gives the canonical form,
//! which parses back to the same estimator.

use super::Estimator;
use super::neural::{Neural, NeuralConfig};
use crate::bounds::BoundSpec;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// The settings shared by every estimator of a family, beyond what its name says.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Settings {
    /// Critic, training and fold settings of the neural bounds.
    pub neural: NeuralConfig,
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
    },
    /// The bias-corrected Gaussian / canonical-correlation estimate (`gaussian`, alias `cca`).
    Gaussian,
    /// The Gaussian-copula estimate (`copula`).
    Copula,
    /// The binned (histogram) plug-in estimate (`binned`, `binned:bins=8`).
    Binned {
        /// Bins per coordinate (≥ 2); `None` for the default rule.
        bins: Option<usize>,
    },
    /// Flow-Gaussianisation (`flow`, `flow:steps=N`; [`super::flow::FlowGaussian`]).
    Flow {
        /// Joint training steps at most (default 4000).
        steps: u64,
    },
}

impl EstimatorSpec {
    /// Every family name with its parameters, for error messages and `--help`.
    pub const NAMES: &'static str = "infonce, nwj, tuba:<ln a>, dv, mine[:rate], js, js-shifted, smile[:tau|inf], interpolated[:alpha], l1out, club, club-sample, ba:<H(Y)>, ksg[:k=5][:variant=1|2], gaussian (cca), copula, binned[:bins=B], flow[:steps=N]";

    /// Parses a name such as `infonce`, `smile:5` or `l1out`.
    pub fn parse(s: &str) -> Result<Self> {
        let s = s.trim();
        if s.is_empty() {
            return Err(Error::param("estimator", "(empty)", &format!("name one of: {}", Self::NAMES)));
        }
        if let Some(classical) = super::classical::parse_spec(s) {
            return classical;
        }
        if let Some(rest) = s.strip_prefix("flow").filter(|r| r.is_empty() || r.starts_with(':')) {
            let default = crate::flows::GaussianisationConfig::default().fit.max_steps;
            let steps = match rest.trim_start_matches(':') {
                "" => default,
                a => {
                    let v = a.strip_prefix("steps=").unwrap_or(a);
                    v.parse::<u64>()
                        .ok()
                        .filter(|&s| s > 0)
                        .ok_or_else(|| Error::param("flow steps", a, "must be a whole number ≥ 1 (flow:steps=N)"))?
                }
            };
            return Ok(EstimatorSpec::Flow { steps });
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

    /// The estimator, with `settings`; invalid settings are an error here, never later.
    pub fn build(&self, settings: &Settings) -> Result<Box<dyn Estimator>> {
        match self {
            EstimatorSpec::Neural { bound } => Ok(Box::new(Neural::new(*bound, settings.neural.clone())?)),
            EstimatorSpec::Flow { steps } => Ok(Box::new(super::flow::FlowGaussian::new(*steps)?)),
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
            EstimatorSpec::Flow { steps } if *steps == crate::flows::GaussianisationConfig::default().fit.max_steps => {
                write!(f, "flow")
            }
            EstimatorSpec::Flow { steps } => write!(f, "flow:steps={steps}"),
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
