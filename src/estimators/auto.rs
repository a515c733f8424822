//! The default estimate, `auto`: the headline [`EstimatorSpec::auto`] chooses for the data's
//! dimensions, as one [`Estimator`]. In a comparison, [`super::compare`] expands `auto` into
//! the headline and its cross-check ([`EstimatorSpec::resolve`]).

use super::{Estimate, Estimator, EstimatorSpec, Kind, Settings};
use crate::error::Result;
use nalgebra::DMatrixView;

/// The default headline for the data at hand.
#[derive(Clone, Debug, PartialEq)]
pub struct Auto {
    /// The settings the chosen estimator is built with.
    pub settings: Settings,
}

impl Estimator for Auto {
    fn name(&self) -> String {
        EstimatorSpec::Auto.to_string()
    }

    /// The chosen estimator's kind depends on the data; the estimate reports it.
    fn kind(&self) -> Kind {
        Kind::Estimate
    }

    fn estimate(&self, x: DMatrixView<'_, f64>, y: DMatrixView<'_, f64>, seed: u64) -> Result<Estimate> {
        let headline = EstimatorSpec::auto(x.ncols(), y.ncols())[0];
        headline.build(&self.settings)?.estimate(x, y, seed)
    }
}
