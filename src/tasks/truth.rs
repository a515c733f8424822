//! Monte-Carlo true MI for the tasks without a closed form (Gaussian mixtures, class-conditional
//! Gaussians): `I = E_{p(x,y)}[log p(x, y) − log p(x) − log p(y)]`, the mean of the exact pointwise
//! MI over [`MC_N`] joint samples drawn with seed [`MC_SEED`], and its standard error.
//!
//! The listed tasks' values are stored in [`MC_TRUTHS`] (printed by `examples/task_truths.rs`,
//! which reruns exactly this computation); an id outside the table (other parameters) is measured
//! the same way when it is built, which takes a few seconds.

use crate::data::Sampler;
use crate::rng::rng;

/// Joint samples behind a Monte-Carlo true MI.
pub const MC_N: usize = 2_000_000;
/// The seed of those samples.
pub const MC_SEED: u64 = 20_240_601;

/// A sampler whose pointwise MI `log p(x, y) − log p(x) − log p(y)` is known at every point.
pub(super) trait Pointwise: Sampler {
    /// The pointwise MI of one pair (`x` of length `dim_x`, `y` of length `dim_y`).
    fn pmi(&self, x: &[f64], y: &[f64]) -> f64;
}

/// Mean and standard error of the pointwise MI over `n` joint samples of `s` drawn with `seed`
/// (in chunks of 65 536 rows, so memory stays bounded).
pub(super) fn monte_carlo(s: &dyn Pointwise, n: usize, seed: u64) -> (f64, f64) {
    const CHUNK: usize = 65_536;
    let mut g = rng(seed);
    // Welford's running mean and sum of squared deviations.
    let (mut count, mut mean, mut m2) = (0.0, 0.0, 0.0);
    let mut left = n;
    let (mut xr, mut yr) = (vec![0.0; s.dim_x()], vec![0.0; s.dim_y()]);
    while left > 0 {
        let len = CHUNK.min(left);
        let (x, y) = s.sample(len, &mut g);
        for i in 0..len {
            xr.iter_mut().enumerate().for_each(|(c, v)| *v = x[(i, c)]);
            yr.iter_mut().enumerate().for_each(|(c, v)| *v = y[(i, c)]);
            let v = s.pmi(&xr, &yr);
            count += 1.0;
            let d = v - mean;
            mean += d / count;
            m2 += d * (v - mean);
        }
        left -= len;
    }
    (mean, (m2 / (count - 1.0) / count).sqrt())
}

/// `(base id, MI, standard error)` of every listed Monte-Carlo task: [`MC_N`] = 2·10⁶ joint
/// samples, seed [`MC_SEED`]. Provenance: `cargo run --release --example task_truths` prints
/// this table (and `tests/tasks_monte_carlo.rs` re-measures every entry with fresh samples).
pub const MC_TRUTHS: &[(&str, f64, f64)] = &[
    ("mixture-cross-0.9", 0.40814392120771054, 0.0005265172269301849),
    ("mixture-cross-0.99", 1.3514839304264963, 0.0006677130038365359),
    ("mixture-diag-1-1-3-0.3", 0.8074276953315705, 0.0004254696801484164),
    ("mixture-ring-1-1-6-0.3", 0.517340657780893, 0.0003600992444765217),
    ("mixture-ring-1-1-8-0.1", 1.0327397136752645, 0.00025930289602566257),
    ("mixture-diag-1-1-5-0.3", 1.2599548381616639, 0.00046159937134235523),
    ("mixture-ring-2-1-5-0.2", 1.4695983074316543, 0.0003096607646469355),
    ("mixture-diag-2-1-4-0.25", 1.2868480384657663, 0.0002925406402538582),
    ("mixture-diag-2-2-3-0.5", 0.6642624198736936, 0.0004566695702612338),
    ("mixture-ring-2-2-5-0.5", 1.3076085947615523, 0.00047499645724804573),
    ("mixture-ring-2-2-8-0.3", 1.843742600256985, 0.00040067464648970634),
    ("classes-2-1-1.0", 0.11116694617459787, 0.00029876651919114885),
    ("classes-4-1-0.5", 0.8447829316415101, 0.00047030698489624397),
    ("classes-10-2-0.5", 1.7192887495001978, 0.0004911466849911157),
    ("classes-3-3-1.0", 0.5558844043370607, 0.0005074169031730924),
    ("classes-5-5-1.0", 1.0671787541317528, 0.0005829008444510632),
];

/// The stored Monte-Carlo MI of `id`, or a fresh measurement when it is not stored.
pub(super) fn measured(id: &str, s: &dyn Pointwise) -> (f64, f64) {
    match MC_TRUTHS.iter().find(|t| t.0 == id) {
        Some(&(_, mi, se)) => (mi, se),
        None => monte_carlo(s, MC_N, MC_SEED),
    }
}

/// A [`Pointwise`] sampler with its measured MI and standard error (the sampler's own
/// `true_mi` is not known in closed form).
pub(super) struct Measured {
    inner: Box<dyn Pointwise>,
    mi: f64,
    se: f64,
}

impl Measured {
    /// `inner` with the stored or freshly measured MI of base id `id`.
    pub(super) fn new(id: &str, inner: Box<dyn Pointwise>) -> Self {
        let (mi, se) = measured(id, inner.as_ref());
        Measured { inner, mi, se }
    }

    /// The Monte-Carlo standard error of [`Sampler::true_mi`].
    pub(super) fn se(&self) -> f64 {
        self.se
    }

    /// The sampler.
    pub(super) fn inner(&self) -> &dyn Pointwise {
        self.inner.as_ref()
    }
}

impl Sampler for Measured {
    fn name(&self) -> String {
        self.inner.name()
    }
    fn dim_x(&self) -> usize {
        self.inner.dim_x()
    }
    fn dim_y(&self) -> usize {
        self.inner.dim_y()
    }
    fn true_mi(&self) -> f64 {
        self.mi
    }
    fn sample_into(
        &self,
        rng: &mut dyn crate::rng::Rng,
        x: &mut nalgebra::DMatrix<f64>,
        y: &mut nalgebra::DMatrix<f64>,
    ) {
        self.inner.sample_into(rng, x, y)
    }
    fn optimal_critic(&self, x: &nalgebra::DMatrix<f64>, y: &nalgebra::DMatrix<f64>) -> Option<nalgebra::DMatrix<f64>> {
        self.inner.optimal_critic(x, y)
    }
    fn entropy_y(&self) -> Option<f64> {
        self.inner.entropy_y()
    }
    fn log_marginal_y(&self, y: &nalgebra::DMatrix<f64>) -> Option<Vec<f64>> {
        self.inner.log_marginal_y(y)
    }
}
