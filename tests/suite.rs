//! The integration tests, one module per file of tests/ (one test program instead of 57: each
//! program linked the whole library and repeated its generic code, ~180 s of CPU to build them
//! all). Two stay programs of their own because they set process-wide state: the counting
//! global allocator (tests/train_no_alloc.rs) and rayon's global pool (tests/parallel_steps.rs).
//! The tests of what the matrix backend computes are the program tests/backend.rs, which CI
//! builds and runs once more with OpenBLAS without building this one again.
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
mod copula_bound;
mod data_tasks;
mod discrete_reference_values;
mod estimate_blocks;
mod estimate_bmi_tasks;
mod estimate_cancel;
mod estimate_coverage;
mod estimate_critic_choice;
mod estimate_independence;
mod estimate_labels;
mod estimate_memory;
mod estimate_options;
mod estimate_selfcheck;
mod estimate_trust;
mod estimate_trust_suite;
mod estimator_names;
mod flows_cubic;
mod flows_entropy;
mod flows_entropy_estimator;
mod flows_fit;
mod flows_spiral;
mod function_length;
mod inputs_range;
mod layering;
mod neural_conditional;
mod neural_labels;
mod optim_adam;
mod score_convention;
mod tasks_cli;
mod tasks_monte_carlo;
mod tasks_registry;
mod tasks_sampling;
mod tasks_scale;
mod theory_optimal_critic;
mod train_accuracy;
mod train_baseline;
mod upper_bounds;

/// Every file of tests/ is a module of exactly one of this program and tests/backend.rs, or a
/// program of its own (Cargo.toml's `autotests = false` builds nothing else): a new test file
/// cannot be silently left out, nor built twice.
#[test]
fn every_test_file_is_built() {
    let programs = ["tests/suite.rs", "tests/backend.rs"].map(|p| std::fs::read_to_string(p).unwrap());
    let apart = ["suite", "backend", "train_no_alloc", "parallel_steps"];
    let manifest = std::fs::read_to_string("Cargo.toml").unwrap();
    for name in apart {
        assert!(manifest.contains(&format!("[[test]]\nname = \"{name}\"")), "Cargo.toml lacks the test {name}");
    }
    let mut modules = 0;
    for entry in std::fs::read_dir("tests").unwrap() {
        let path = entry.unwrap().path();
        let Some(name) =
            path.file_stem().and_then(|s| s.to_str()).filter(|_| path.extension().is_some_and(|e| e == "rs"))
        else {
            continue;
        };
        if apart.contains(&name) {
            continue;
        }
        let in_programs = programs.iter().filter(|p| p.lines().any(|l| l == format!("mod {name};"))).count();
        assert_eq!(
            in_programs, 1,
            "tests/{name}.rs is a module of {in_programs} of tests/suite.rs and tests/backend.rs"
        );
        modules += 1;
    }
    assert!(modules > 50, "only {modules} test files found: run from the repository root");
}
