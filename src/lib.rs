//! # mibound
//!
//! Mutual-information estimation in pure Rust: variational bounds on neural critics trained
//! with hand-written backprop, classical estimators (KSG, Gaussian, copula, binning) and more,
//! all behind one [`estimators::Estimator`] interface, with honest intervals and kinds.
//!
//! ```
//! use mibound::estimators::{EstimatorSpec, Settings};
//!
//! # fn main() -> mibound::Result<()> {
//! // A task with known MI (benchmark-mi's id): 3 + 3 heavy-tailed coordinates, 1000 rows.
//! let task = mibound::tasks::get("asinh-student-identity-3-3-2")?;
//! let (x, y) = task.draw(1000, 0)?;
//! println!("{} (true MI {:.3} nats)", task.info().id, task.info().true_mi);
//! for name in ["ksg:k=5", "copula", "gaussian"] {
//!     let estimator = EstimatorSpec::parse(name)?.build(&Settings::default())?;
//!     let e = estimator.estimate(x.as_view(), y.as_view(), 0)?;
//!     println!("{:<16} {:>8.3}  [{:.3}, {:.3}]  {}", e.label, e.value, e.interval.low, e.interval.high, e.kind.describe());
//!     assert!(e.interval.low <= e.value && e.value <= e.interval.high);
//! }
//! # Ok(())
//! # }
//! ```
//!
//! The neural bounds (`infonce`, `smile:5`, `l1out`, …) take the same path with their names;
//! `examples/compare.rs` runs them beside these (`cargo run --release --example compare`).
//!
//! Every bound is also a plain function of a score matrix:
//!
//! ```
//! use mibound::bounds::{Bound, InfoNce};
//! use mibound::data::{rng, CorrelatedGaussian, Sampler};
//!
//! // 20-dimensional correlated Gaussian with 2 nats of mutual information.
//! let task = CorrelatedGaussian::with_mi(20, 2.0).unwrap();
//! let (x, y) = task.sample(128, &mut rng(7));
//! // The optimal critic log p(y|x) − log p(y) as a 128 × 128 score matrix (row = x, column = y).
//! let scores = task.optimal_critic(&x, &y).unwrap();
//! let estimate = InfoNce::<f64>::new().value(&scores).unwrap();
//! let log_n = (128f64).ln();
//! println!("InfoNCE = {estimate:.3}  true I = {:.3}  log N = {log_n:.3}", task.true_mi());
//! assert!(estimate <= log_n); // InfoNCE can never exceed log N
//! assert!((estimate - 2.0).abs() < 0.5); // and with I ≪ log N it is close to I
//! ```
//!
//! ## The score convention
//!
//! Every bound is a function of an `N × N` score matrix with `S[(i, j)] = f(x_i, y_j)`:
//! **row = x sample, column = y sample, diagonal = joint pairs** `(x_i, y_i) ~ p(x, y)`,
//! off-diagonal = pairs from `p(x)p(y)`. Poole et al.'s `vbmi` and the SMILE code use the
//! transpose; see [`bounds`] and `docs/bounds.md`.
//!
//! ## Layout
//!
//! Layers, lowest first; a module imports only from layers below it.
//! - Foundations: [`error`], [`real`] (sealed `f32`/`f64`), [`rng`] (seeded generators,
//!   shuffling, child seeds), [`numerics`] (stable log-sum-exp, softmax, softplus, digamma),
//!   [`ranks`] (mid-ranks and normal scores), [`cca`] (canonical correlations and the Gaussian
//!   MI of a sample), [`names`] (the grammar of estimator and bound names); above them [`gemm`]
//!   (the one matrix-product module), [`compute`] (backend and threads, passed in — no global
//!   settings) and [`blocks`] (blocks of dependent columns, whose correlations are products).
//! - Building blocks: [`bounds`] (MI bounds on a score matrix, each with its exact gradient and
//!   an honest [`bounds::BoundKind`]), [`contrastive`] (representation-learning losses, to
//!   minimise), [`critics`] (hand-written backprop), [`optim`] (Adam), [`data`] (samplers with
//!   known MI, `.npy`/CSV files), [`tasks`] (the one task registry: the parametric families
//!   at any dimension and MI, benchmark-mi's 40 tasks by id and harder ones).
//! - [`train`]: the one training loop ([`train::Runner`] over any [`train::Trainable`]) with
//!   observers, validation, early stopping, divergence handling and checkpoints.
//! - [`estimators`]: the [`estimators::Estimator`] interface and its implementations, names
//!   such as `infonce`, `smile:5`, `l1out` ([`estimators::EstimatorSpec`]), and
//!   [`estimators::compare`].
//! - [`benchmark`]: every estimator on every task, resumable and sharded (`mibound benchmark`).
//! - With the `plot` feature: `plot` (drawing, a foundation the report uses) and `figures`;
//!   with `cli` (default): the `mibound` command.

#![warn(missing_docs)]

pub mod benchmark;
pub mod blocks;
pub mod bounds;
pub mod cca;
#[cfg(feature = "cli")]
pub mod cli;
pub mod compute;
pub mod contrastive;
pub mod critics;
pub mod data;
pub mod error;

pub mod estimators;
#[cfg(feature = "plot")]
pub mod figures;
pub mod flows;
pub mod gemm;
pub mod names;
pub mod numerics;
pub mod optim;
#[cfg(feature = "plot")]
pub mod plot;
pub mod ranks;
pub mod real;
pub mod rng;
pub mod tasks;
pub mod train;

pub use error::{Error, Result};
pub use real::Real;
