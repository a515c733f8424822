//! The default estimate, `auto`: the headline [`EstimatorSpec::auto`] chooses for the data's
//! dimensions (with declared class labels, [`EstimatorSpec::auto_with_labels`]), as one
//! [`Estimator`]. In a comparison, [`super::compare`] expands `auto` into the headline and its
//! cross-check ([`EstimatorSpec::resolve_with_labels`]).

use super::classical::label_estimator;
use super::{Estimate, Estimator, EstimatorSpec, Kind, Settings};
use crate::bounds::BoundSpec;
use crate::data::kinds::LabelColumns;
use crate::error::Result;
use nalgebra::DMatrixView;

impl EstimatorSpec {
    /// What `auto` stands for with `dx + dy` joint dimensions of which `labels` are declared
    /// class labels: [`EstimatorSpec::auto`] when none are. Otherwise an estimator that reads
    /// labels as categories ([`label_estimator`]: `discrete` when both sides are labels, `ross`
    /// when one side is all labels and the other all measurements, `mixed-ksg` for any other
    /// mixture) is the headline up to [`super::LOW_DIMENSION`] joint dimensions, as KSG is
    /// without labels; above, the InfoNCE lower bound (which embeds the labels) is, with that
    /// estimator as its cross-check.
    pub fn auto_with_labels(dx: usize, dy: usize, labels: &LabelColumns) -> Vec<EstimatorSpec> {
        if labels.is_empty() {
            return Self::auto(dx, dy);
        }
        let (kx, ky) = labels.kinds(dx, dy);
        let for_labels = label_estimator(&kx, &ky);
        if dx + dy <= super::LOW_DIMENSION {
            vec![for_labels]
        } else {
            vec![EstimatorSpec::Neural { bound: BoundSpec::InfoNce }, for_labels]
        }
    }

    /// `specs` with every `auto` replaced by [`EstimatorSpec::auto_with_labels`]'s list (an
    /// estimator named twice is kept once).
    pub fn resolve_with_labels(
        specs: &[EstimatorSpec],
        dx: usize,
        dy: usize,
        labels: &LabelColumns,
    ) -> Vec<EstimatorSpec> {
        Self::expand(specs, &Self::auto_with_labels(dx, dy, labels))
    }
}

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
        let headline = EstimatorSpec::auto_with_labels(x.ncols(), y.ncols(), &self.settings.neural.labels)[0];
        headline.build(&self.settings)?.estimate(x, y, seed)
    }
}
