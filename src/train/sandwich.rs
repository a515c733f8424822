//! The sandwich: a lower-bound critic and a conditional model `q(y|x)` trained side by side on
//! one data stream, so each step has a lower and an upper estimate of the same MI.

use super::problem::Data;
use super::step::Monitor;
use super::{TrainConfig, TrainResult, train};
use crate::bounds::BoundSpec;
use crate::critics::CriticSpec;
use crate::error::{Error, Result};
use crate::real::Real;

/// A lower-bound run and an upper-bound run over the same batches.
#[derive(Clone, Debug)]
pub struct SandwichResult<T> {
    /// The lower-bound critic's run (its value is the lower estimate).
    pub lower: TrainResult<T>,
    /// The conditional model's run: its value is CLUB; its monitors are the leave-one-out bound,
    /// CLUB-sample and the variational upper bound, all on the same `q`.
    pub upper: TrainResult<T>,
}

/// Trains `lower` (any critic and lower bound) and a Gaussian conditional `q(y|x)` (by maximum
/// likelihood, reporting CLUB, L1Out, CLUB-sample and the VUB) on the same data stream.
///
/// Both runs use `lower.seed`, so they draw identical batches; they run in parallel (rayon).
/// `upper_critic` defaults to [`CriticSpec::gaussian`].
pub fn sandwich<T: Real>(
    data: &Data,
    lower: &TrainConfig,
    upper_critic: Option<CriticSpec>,
) -> Result<SandwichResult<T>> {
    if lower.bound.needs_log_density() {
        return Err(Error::param(
            "lower bound",
            format!("{:?}", lower.bound),
            "the sandwich's lower run needs a lower bound",
        ));
    }
    let mut upper =
        TrainConfig::new(upper_critic.unwrap_or_else(CriticSpec::gaussian), BoundSpec::Club, lower.batch, lower.steps);
    upper.seed = lower.seed;
    upper.adam = lower.adam.clone();
    upper.monitors = vec![
        Monitor::Bound { spec: BoundSpec::Loo },
        Monitor::Bound { spec: BoundSpec::ClubSample { seed: lower.seed } },
        Monitor::Vub,
    ];
    let (lo, up) = rayon::join(|| train::<T>(data, lower), || train::<T>(data, &upper));
    Ok(SandwichResult { lower: lo?, upper: up? })
}
