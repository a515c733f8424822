//! One interface for reading bounds off a fold's critics ([`Scoring`]), which trained and
//! untrained critics both implement: a fold validates and evaluates them the same way.

use super::config::NeuralConfig;
use crate::bounds::{Bound, BoundKind, BoundSpec, Symmetrised};
use crate::error::Result;
use crate::train::Dataset;
use nalgebra::DMatrix;

/// The bounds read off a critic's scores together.
pub(super) type Bounds = [Box<dyn Bound<f32>>];

/// A critic a fold compares or keeps.
pub(super) trait Scoring {
    /// The mean `(value, objective)` of each of `bounds` over the critic's score matrices on
    /// `batches` of the rows of `seen` (the rows the critic sees, [`super::fold_data::FoldData::seen_by`]).
    fn mean_values(&mut self, seen: &Dataset, bounds: &mut Bounds, batches: &[Vec<usize>]) -> Result<Vec<(f64, f64)>>;
}

/// The mean `(value, objective)` of each of `bounds` over the score matrices `scored` (in
/// `f64`, evaluated in `f32` as a trained critic's are).
pub(super) fn mean_values(
    bounds: &mut Bounds,
    scored: impl IntoIterator<Item = DMatrix<f64>>,
) -> Result<Vec<(f64, f64)>> {
    let mut sums = vec![(0.0, 0.0); bounds.len()];
    let (mut g, mut count) = (DMatrix::zeros(0, 0), 0usize);
    for s in scored {
        let s = s.map(|v| v as f32);
        for (b, sum) in bounds.iter_mut().zip(sums.iter_mut()) {
            let v = b.evaluate(&s, &mut g)?;
            sum.0 += v.value;
            sum.1 += v.objective;
        }
        count += 1;
    }
    let k = count as f64;
    Ok(sums.into_iter().map(|(v, o)| (v / k, o / k)).collect())
}

/// The objective a critic trains and is validated on: the trainer's bound, for a lower bound
/// symmetrised with [`NeuralConfig::symmetric`].
pub(super) fn objective_bound(cfg: &NeuralConfig, trainer: BoundSpec) -> Result<Box<dyn Bound<f32>>> {
    let b = trainer.build::<f32>()?;
    Ok(if cfg.symmetric && b.kind() == BoundKind::Lower { Box::new(Symmetrised::new(b)) } else { b })
}
