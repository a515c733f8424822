//! # mibound
//!
//! Mutual-information estimation with variational bounds and neural critics, in pure Rust.
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
//! - [`bounds`]: lower bounds (InfoNCE, NWJ, TUBA, DV, MINE, JS, SMILE, I_α) and binary NCE,
//!   each returning its value and the gradient of its training objective w.r.t. `S`.
//! - [`data`]: distributions with analytic MI and their optimal critics.
//! - [`critics`]: separable, bilinear and concat critics with hand-written backprop.
//! - [`gemm`]: the one matrix-product module (matrixmultiply, or OpenBLAS with `--features blas`,
//!   then the default).
//! - [`optim`]: the Adam optimiser.
//! - [`train`]: problem → step → runner; [`parallel`]: how many threads one step may use;
//!   [`estimate`]: held-out estimates with intervals; [`plot`], [`figures`], [`cli`].

#![warn(missing_docs)]

pub mod bounds;
pub mod cli;
pub mod critics;
pub mod data;
pub mod error;
pub mod estimate;
pub mod figures;
pub mod flows;
pub mod gemm;
pub mod optim;
pub mod parallel;
pub mod plot;
pub mod real;
pub mod train;

pub use error::{Error, Result};
pub use real::Real;
