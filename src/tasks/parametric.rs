//! The parametric tasks: families of correlated Gaussians indexed by their true MI, at any
//! dimension — what `mibound train`'s staircase, `mibound sample gaussian --dim D --mi I` and the
//! figures instantiate level by level. The task suite's `staircase-D-I` ids are fixed members of
//! the first family, `cubic-staircase-D-I` of the second.

use crate::data::{CorrelatedGaussian, Sampler, Transform, Transformed};
use crate::error::Result;
use serde::{Deserialize, Serialize};

/// A family of built-in tasks indexed by their true MI: what a schedule (a constant level or the
/// staircase) instantiates at each level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "task", rename_all = "lowercase")]
pub enum Parametric {
    /// [`CorrelatedGaussian`] in `dim` dimensions.
    Gaussian {
        /// Dimension of x and of y.
        dim: usize,
    },
    /// The correlated Gaussian with `y ↦ y³` (Poole et al. 2019's cubic task).
    Cubic {
        /// Dimension of x and of y.
        dim: usize,
    },
    /// The correlated Gaussian with `x ↦ asinh x` and `y ↦ y³`.
    AsinhCubic {
        /// Dimension of x and of y.
        dim: usize,
    },
}

impl Parametric {
    /// The dimension a family is drawn at when none is given (`mibound sample`, `mibound tasks`,
    /// Python's `sample`).
    pub const DEFAULT_DIM: usize = 20;
    /// The MI in nats a family is drawn at when none is given.
    pub const DEFAULT_MI: f64 = 2.0;

    /// All family names with a description, for `mibound tasks`.
    pub const CATALOGUE: &'static [(&'static str, &'static str)] = &[
        ("gaussian", "x ~ N(0, I_d), y = ρx + √(1−ρ²)ε; I = −d/2·log(1−ρ²)"),
        ("cubic", "the Gaussian task with y ↦ y³ (MI unchanged: an invertible map of y)"),
        ("asinh-cubic", "the Gaussian task with x ↦ asinh x and y ↦ y³ (MI unchanged)"),
    ];

    /// Whether `name` is a family's name.
    pub fn is_name(name: &str) -> bool {
        Self::CATALOGUE.iter().any(|c| c.0 == name)
    }

    /// The family names, comma-separated.
    pub fn names() -> String {
        Self::CATALOGUE.iter().map(|c| c.0).collect::<Vec<_>>().join(", ")
    }

    /// Parses a family name with its dimension.
    pub fn parse(name: &str, dim: usize) -> Result<Self> {
        Ok(match name {
            "gaussian" => Parametric::Gaussian { dim },
            "cubic" => Parametric::Cubic { dim },
            "asinh-cubic" => Parametric::AsinhCubic { dim },
            _ => return Err(crate::Error::Unknown { kind: "task", name: name.into(), known: Self::names() }),
        })
    }

    /// The task's sampler with true MI `mi` nats.
    pub fn at_mi(&self, mi: f64) -> Result<Box<dyn Sampler>> {
        Ok(match *self {
            Parametric::Gaussian { dim } => Box::new(CorrelatedGaussian::with_mi(dim, mi)?),
            Parametric::Cubic { dim } => Box::new(Transformed::cubic_y(CorrelatedGaussian::with_mi(dim, mi)?)),
            Parametric::AsinhCubic { dim } => Box::new(Transformed::new(
                CorrelatedGaussian::with_mi(dim, mi)?,
                Some(Transform::Asinh),
                Some(Transform::Cubic),
            )),
        })
    }
}
