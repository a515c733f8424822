//! The integration tests, one module per file of tests/ (one test program instead of 57: each
//! program linked the whole library and repeated its generic code, ~180 s of CPU to build them
//! all). Two stay programs of their own because they set process-wide state: the counting
//! global allocator (tests/train_no_alloc.rs) and rayon's global pool (tests/parallel_steps.rs).
//!
//! One module's tests: `cargo test --release --test suite MODULE::`; the acceptance tests
//! (minutes each, marked `#[ignore]`): `cargo test --release -- --ignored`.

mod common;

#[cfg(feature = "cli")]
mod benchmark_cli;
mod benchmark_config;
#[cfg(feature = "plot")]
mod benchmark_report;
mod benchmark_runner;
mod bound_gradients;
mod bound_properties;
mod bound_reference_values;
mod classical_properties;
mod classical_reference_values;
mod classical_spec;
#[cfg(feature = "cli")]
mod cli_accuracy;
mod cli_conditional;
#[cfg(feature = "cli")]
mod cli_errors;
mod cli_features;
#[cfg(feature = "cli")]
mod cli_inputs;
mod cli_rules;
mod compare_cross_check;
mod conditional_independence;
mod contrastive;
mod critic_gradients;
mod data_tasks;
mod discrete_reference_values;
mod estimate_bmi_tasks;
mod estimate_cancel;
mod estimate_coverage;
mod estimate_critic_choice;
mod estimate_independence;
mod estimate_labels;
mod estimate_options;
mod estimate_selfcheck;
mod estimate_trust;
mod flows_cubic;
mod flows_entropy;
mod flows_entropy_estimator;
mod flows_fit;
mod flows_gradients;
mod flows_spiral;
mod function_length;
mod gemm_backends;
mod layering;
mod moco;
mod neural_conditional;
mod neural_labels;
mod optim_adam;
mod score_convention;
mod tasks_cli;
mod tasks_monte_carlo;
mod tasks_registry;
mod tasks_sampling;
mod theory_optimal_critic;
mod train_accuracy;
mod train_baseline;
mod train_runner;
mod upper_bounds;
