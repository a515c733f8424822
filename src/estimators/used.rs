//! [`SettingsUsed`]: what produced an estimate, enough to reproduce it, as a type.
//!
//! Each estimator family fills its own variant; the table, the trace plot and the tests read the
//! fields they need by matching on it. JSON is made only at the edge (`--json`, Python): the
//! enum serialises *untagged*, so an estimate's `settings` is the variant's fields as an object
//! (`{"k": 3, "variant": 1, …}`), or `null` for [`SettingsUsed::None`].

use super::classical::{DiscreteCorrection, KsgSearch, Side};
use super::neural::NeuralSettings;
use crate::flows::GaussianisationConfig;
use serde::Serialize;

/// The settings that produced an [`super::Estimate`] (module docs).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SettingsUsed {
    /// Nothing recorded (an estimate built by hand).
    None,
    /// A neural bound's training protocol.
    Neural(Box<NeuralSettings>),
    /// The flow-Gaussianisation estimator's architecture, optimiser and splits.
    Flow(Box<GaussianisationConfig>),
    /// KSG (`ksg`).
    Ksg {
        /// Neighbours.
        k: usize,
        /// 1 or 2 (Kraskov et al. 2004's two estimators).
        variant: u8,
        /// The distance: always the max norm.
        norm: &'static str,
        /// Whether each column was scaled to unit variance.
        standardize: bool,
        /// `"normal scores"` or `"as given"`.
        margins: &'static str,
        /// Tie-breaking noise, in units of each column's sd.
        noise: f64,
        /// Half-sample refits behind the interval.
        subsamples: usize,
        /// How neighbours were searched.
        search: KsgSearch,
        /// `ksg-blocks`: the blocks summed over and the columns of x and y left out of them.
        #[serde(skip_serializing_if = "Option::is_none")]
        blocks: Option<crate::blocks::Blocks>,
    },
    /// The binned plug-in (`binned`).
    Binned {
        /// Bins per coordinate.
        bins: usize,
        /// How the bin count was chosen.
        rule: &'static str,
        /// Where the bins lie.
        binning: &'static str,
        /// Half-sample refits behind the interval.
        subsamples: usize,
    },
    /// The discrete plug-in (`discrete`).
    Discrete {
        /// The bias correction.
        correction: DiscreteCorrection,
        /// Half-sample refits behind the interval.
        subsamples: usize,
    },
    /// The Gaussian (CCA) estimate and the Gaussian CMI.
    Gaussian {
        /// Which bias correction.
        bias_correction: &'static str,
        /// Half-sample refits behind the interval.
        subsamples: usize,
    },
    /// The Gaussian-copula estimate (`copula`).
    Copula {
        /// The normal scores' formula.
        scores: &'static str,
        /// Which bias correction.
        bias_correction: &'static str,
        /// Half-sample refits behind the interval.
        subsamples: usize,
        /// What makes the estimate a lower bound where it is one.
        lower_bound_when: &'static str,
        /// Each side's verdict.
        sides: [crate::estimators::classical::normality::SideNormality; 2],
    },
    /// Ross 2014's estimator for one discrete side (`ross`).
    Ross {
        /// Neighbours.
        k: usize,
        /// The discrete side.
        discrete: Side,
        /// Tie-breaking noise on the continuous side.
        noise: f64,
        /// How the continuous side was scaled.
        scale: &'static str,
        /// Half-sample refits behind the interval.
        subsamples: usize,
    },
    /// Gao et al. 2017's mixed KSG (`mixed-ksg`) and Frenzel–Pompe's conditional KSG.
    NearestNeighbours {
        /// Neighbours.
        k: usize,
        /// The distance: always the max norm.
        norm: &'static str,
        /// Whether each column was scaled to unit variance.
        standardize: bool,
        /// Tie-breaking noise (none for mixed KSG: it would break the atoms).
        #[serde(skip_serializing_if = "Option::is_none")]
        noise: Option<f64>,
        /// Half-sample refits behind the interval.
        subsamples: usize,
    },
}

impl SettingsUsed {
    /// The neural protocol, when a neural bound produced the estimate.
    pub fn neural(&self) -> Option<&NeuralSettings> {
        match self {
            SettingsUsed::Neural(n) => Some(n),
            _ => None,
        }
    }
}
