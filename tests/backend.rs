//! The tests of what the matrix backend computes: gemm against the native kernels, the critics'
//! and flows' gradients, training steps and runners, MoCo and the contrastive bounds. A program
//! of its own (not a module of tests/suite.rs) so that `.ci/run` runs them once more with the
//! OpenBLAS backend (`--features blas`) building only this program and the library: the whole
//! suite's build with the feature took 36 s of that step.
//!
//! One module's tests: `cargo test --release --test backend MODULE::`.

mod common;

mod contrastive;
mod critic_gradients;
mod flows_gradients;
mod gemm_backends;
mod moco;
mod train_runner;
