//! MI estimators that are not capped at `log N`: normalizing flows trained in pure Rust.
//!
//! - [`flow`]: flow layers (element-wise affine, sinh–arcsinh, monotone tanh-sum, full linear
//!   mixing, RealNVP affine coupling) with exact log-determinants and hand-written backprop on
//!   the crate's gemm path, stacked into a [`Flow`].
//! - [`gaussianise`]: the flow-Gaussianisation estimator of Butakov et al. (2024): per-variable
//!   flows trained jointly by maximum likelihood under a Gaussian base with learned per-coordinate
//!   correlations, MI read off the held-out latents' canonical correlations.
//! - [`entropy`]: an entropy-difference estimator with three flows (`H(X) + H(Y) − H(X, Y)` as
//!   held-out cross-entropies; McAllester & Stratos 2020), for comparison.
//! - [`fit`](mod@fit): a flow fitted by the crate's one training loop ([`crate::train::Runner`]),
//!   with the runner's [`Validation`](crate::train::Validation) and
//!   [`Termination`](crate::train::Termination).
//!
//! The flows run in `f64`: a flow's log-likelihood is a sum of many log-determinant terms and
//! the read-off `−½ log(1 − ρ²)` amplifies errors in `ρ` near 1, so single precision would spend
//! its accuracy where the estimate is most sensitive; finite-difference gradient checks are also
//! exact to ~1e-8 only in `f64`. See `docs/flows.md` for the maths and references
//! (Dinh et al. 2017; Butakov et al. 2024; McAllester & Stratos 2020).
//!
//! ```no_run
//! use mibound::data::{rng, CorrelatedGaussian, Sampler, Transformed};
//! use mibound::flows::{estimate, GaussianisationConfig};
//!
//! let task = Transformed::cubic_y(CorrelatedGaussian::with_mi(20, 6.0).unwrap());
//! let (x, y) = task.sample(20_000, &mut rng(1));
//! let est = estimate(&x, &y, &GaussianisationConfig::default()).unwrap();
//! println!("I ≈ {:.2} (true 6), 95 % read-off interval {:?}", est.mi, est.interval);
//! ```

pub mod entropy;
pub mod fit;
pub mod flow;
pub mod gaussianise;

pub use entropy::{EntropyEstimate, entropy_difference};
pub use fit::{FitReport, Trainable, fit};
pub use flow::{Flow, FlowCache, FlowSpec, LayerSpec};
pub use gaussianise::{FlowGaussianisation, FlowMiEstimate, GaussianisationConfig, LatentDiagnostics, estimate};
