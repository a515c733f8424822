//! A learned log-baseline `ln a(y)` for TUBA and I_α (Poole et al. 2019, §2.2 and §2.4): a
//! second trainable module, beside the critic, whose per-sample output enters the bound as an
//! extra input ([`Bound::set_log_baseline`]) and which is trained by ascending the same
//! objective through [`Bound::log_baseline_grad`]. The bound never knows that a network made
//! its baseline; the critic never knows there is one.

use crate::bounds::Bound;
use crate::critics::mlp::{ContiguousSlice, MlpCache, MlpScratch};
use crate::critics::{Activation, Init, Mlp, MlpSpec};
use crate::error::{Error, Result};
use crate::gemm::{Op, view};
use crate::optim::{Adam, AdamConfig};
use crate::real::Real;
use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

/// The shape of a learned baseline: an MLP `dim_y → hidden… → 1` (ReLU).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BaselineSpec {
    /// Hidden widths (Poole et al. use the critic's, 256 × 2 in the staircase).
    pub hidden: Vec<usize>,
}

/// The baseline network, its parameters and optimiser. Its output layer starts at zero, so
/// training starts from the constant baseline `ln a = 0`. Its parameters and Adam state are not
/// part of a training checkpoint (a configuration with both is refused).
pub struct LearnedBaseline<T: Real> {
    mlp: Mlp,
    /// The network's parameters.
    pub params: Vec<T>,
    grads: Vec<T>,
    adam: Adam<T>,
    cache: MlpCache<T>,
    scratch: MlpScratch<T>,
    log_a: Vec<T>,
}

impl<T: Real> LearnedBaseline<T> {
    /// A baseline for `dim_y`-dimensional `y`, initialised from `seed`, trained with `adam`.
    pub fn new(spec: &BaselineSpec, dim_y: usize, adam: AdamConfig, seed: u64) -> Result<Self> {
        let mlp =
            Mlp::new(MlpSpec { input: dim_y, hidden: spec.hidden.clone(), output: 1, activation: Activation::Relu }, 0);
        let mut params = vec![T::zero(); mlp.n_params()];
        mlp.init(&mut params, Init::Torch, &mut crate::rng::Stream::BaselineInit.rng(seed));
        mlp.zero_output(&mut params);
        let adam = Adam::new(adam, params.len())?;
        let grads = vec![T::zero(); params.len()];
        Ok(LearnedBaseline {
            mlp,
            params,
            grads,
            adam,
            cache: MlpCache::default(),
            scratch: MlpScratch::default(),
            log_a: Vec::new(),
        })
    }

    /// `ln a(y_j)` for the rows of `y` (`N × dim_y`), handed to `bound`.
    pub fn forward(&mut self, y: &DMatrix<T>, bound: &mut dyn Bound<T>) -> Result<()> {
        let out = self.mlp.forward(&self.params, y.as_view(), Op::T, &mut self.cache);
        self.log_a.clear();
        self.log_a.extend_from_slice(out.as_slice_contiguous());
        bound.set_log_baseline(&self.log_a)
    }

    /// Writes `∂objective/∂params` of the baseline network from the bound's
    /// `∂objective/∂ln a(y_j)` after the evaluation that followed [`LearnedBaseline::forward`]
    /// on the same `y`.
    pub fn backward(&mut self, y: &DMatrix<T>, bound: &dyn Bound<T>) -> Result<()> {
        let d = bound.log_baseline_grad();
        if d.len() != y.nrows() {
            return Err(Error::param("learned baseline", bound.name(), "the bound returned no baseline gradient"));
        }
        self.mlp.backward(
            &self.params,
            &mut self.grads,
            y.as_view(),
            Op::T,
            &self.cache,
            view(d, 1, y.nrows()),
            &mut self.scratch,
            false,
            None,
        );
        Ok(())
    }

    /// [`LearnedBaseline::backward`], then one Adam step ascending the objective.
    pub fn step(&mut self, y: &DMatrix<T>, bound: &dyn Bound<T>) -> Result<()> {
        self.backward(y, bound)?;
        self.adam.ascend(&mut self.params, &self.grads).map(|_| ())
    }

    /// The parameter gradient of the last [`LearnedBaseline::backward`].
    pub fn grads(&self) -> &[T] {
        &self.grads
    }
}
