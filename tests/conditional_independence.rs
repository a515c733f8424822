//! The local permutation test of conditional independence (Runge 2018;
//! `estimators::classical::ci_test`): its level on data with `I(X; Y | Z) = 0 < I(X; Y)`, its
//! power on the converse. Release mode, fixed seeds.
//!
//! Level: over `R = 200` data sets of `common-cause-1` (`I(X; Y) = 0.144`, `I(X; Y | Z) = 0`;
//! `tasks::conditional`), the share of p-values `≤ 0.05` must be at most `0.05 + 2 SE`,
//! `SE = √(0.05 · 0.95 / R) = 0.0154`, i.e. at most 16 rejections. The same bound on a second
//! null with a two-dimensional `Z` (`chain-3-0`), on 100 data sets (≤ 0.05 + 2·0.0218: 9).
//! Power: on `collider-1` (`I(X; Y) = 0`, `I(X; Y | Z) = 0.144`) at least 90 % of 50 data sets
//! rejected. Measured (this file, `--nocapture`): 3 of 200, 4 of 100, 49 of 50. The same bounds
//! with the library's default settings (k = 5, 199 permutations: what the CLI and Python use)
//! on fresh data sets: 12 of 200 (6 %, within the bound) and 49 of 50.

use mibound::data::rng;
use mibound::estimators::classical::{CiTestConfig, ci_test};
use mibound::tasks::conditional::GaussianTriple;

const N: usize = 250;
const ALPHA: f64 = 0.05;

fn config() -> CiTestConfig {
    CiTestConfig { k: 10, k_perm: 5, permutations: 99 }
}

fn rejections(id: &str, sets: usize, seed: u64) -> usize {
    rejections_with(id, sets, seed, &config())
}

fn rejections_with(id: &str, sets: usize, seed: u64, config: &CiTestConfig) -> usize {
    let task = GaussianTriple::parse(id).unwrap();
    (0..sets)
        .filter(|&r| {
            let (x, y, z) = task.sample(N, &mut rng(seed + r as u64));
            ci_test(x.as_view(), y.as_view(), z.as_view(), config, 1000 + r as u64).unwrap().p_value <= ALPHA
        })
        .count()
}

fn bound(sets: usize) -> usize {
    let se = (ALPHA * (1.0 - ALPHA) / sets as f64).sqrt();
    ((ALPHA + 2.0 * se) * sets as f64).floor() as usize
}

#[test]
#[ignore = "acceptance (minutes): run by .ci/run with --ignored"]
fn the_local_permutation_test_holds_its_level_under_a_common_cause() {
    let r = rejections("common-cause-1", 200, 0);
    println!("common-cause-1: {r} of 200 rejected at 0.05 (bound {})", bound(200));
    assert!(r <= bound(200), "{r} of 200 rejections > {}", bound(200));
}

#[test]
#[ignore = "acceptance (minutes): run by .ci/run with --ignored"]
fn the_local_permutation_test_holds_its_level_with_a_two_dimensional_z() {
    let r = rejections("chain-3-0", 100, 10_000);
    println!("chain-3-0: {r} of 100 rejected at 0.05 (bound {})", bound(100));
    assert!(r <= bound(100), "{r} of 100 rejections > {}", bound(100));
}

#[test]
#[ignore = "acceptance (minutes): run by .ci/run with --ignored"]
fn the_local_permutation_test_has_power_on_a_collider() {
    let r = rejections("collider-1", 50, 20_000);
    println!("collider-1: {r} of 50 rejected at 0.05");
    assert!(r >= 45, "only {r} of 50 collider data sets rejected");
}

/// The settings `mibound estimate --given` and Python's `conditional_test` use
/// (`CiTestConfig::default()`: k = 5, k_perm = 5, 199 permutations): the same level bound.
#[test]
#[ignore = "acceptance (minutes): run by .ci/run with --ignored"]
fn the_default_test_holds_its_level_under_a_common_cause_and_has_power_on_a_collider() {
    let r = rejections_with("common-cause-1", 200, 30_000, &CiTestConfig::default());
    println!("default settings, common-cause-1: {r} of 200 rejected at 0.05 (bound {})", bound(200));
    assert!(r <= bound(200), "{r} of 200 rejections > {}", bound(200));
    let r = rejections_with("collider-1", 50, 40_000, &CiTestConfig::default());
    println!("default settings, collider-1: {r} of 50 rejected at 0.05");
    assert!(r >= 45, "only {r} of 50 collider data sets rejected");
}
