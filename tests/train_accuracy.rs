//! Statistical tests of trained critics (release mode, fixed seeds). Tolerances are the
//! acceptance thresholds of the training issue, each justified against the theory below.

use mibound::bounds::BoundSpec;
use mibound::critics::CriticSpec;
use mibound::tasks::Parametric;
use mibound::train::{Data, Monitor, Schedule, TrainConfig, TrainResult, train};

fn run(bound: BoundSpec, steps: u64) -> TrainResult<f32> {
    let data = Data::stream(Parametric::Gaussian { dim: 5 }, Schedule::Constant { mi: 2.0 }).unwrap();
    train::<f32>(&data, &TrainConfig::new(CriticSpec::poole_separable(), bound, 128, steps)).unwrap()
}

/// d = 5, I = 2 nats, N = 128, separable critic: the mean over the last 20 % of steps lies
/// within 0.15 nats of I. For InfoNCE the optimal critic itself reaches only
/// `I − E log((1/N)Σ_j r_ij)` (≈ 1.89 at N = 128, see tests/theory_optimal_critic.rs), so 0.15
/// leaves ≈ 0.04 for optimisation; NWJ and JS are unbiased at their optima. The mean of 1000
/// steps has a standard error of ≈ 0.005 (InfoNCE, NWJ) to ≈ 0.02 (JS, per-step std ≈ 0.6),
/// far below the tolerance.
fn check(bound: BoundSpec, steps: u64) {
    let r = run(bound, steps);
    let tail = r.tail(0.2).unwrap();
    println!("{bound:?}: {:.4} ± {:.4} over the last 20 % of {steps} steps", tail.mean, tail.std);
    assert!((tail.mean - 2.0).abs() <= 0.15, "{bound:?}: mean {} not within 0.15 of I = 2", tail.mean);
}

#[test]
fn infonce_reaches_the_true_mi_within_5000_steps() {
    check(BoundSpec::InfoNce, 5000);
}

#[test]
fn nwj_reaches_the_true_mi_within_5000_steps() {
    check(BoundSpec::Nwj, 5000);
}

/// The mean and the median of per-step values over the last 20 % of them.
fn tail_mean_median(values: &[f64]) -> (f64, f64) {
    let k = values.len() / 5;
    let mut tail: Vec<f64> = values[values.len() - k..].to_vec();
    let mean = tail.iter().sum::<f64>() / k as f64;
    tail.sort_by(f64::total_cmp);
    (mean, tail[k / 2])
}

/// Per seed, the tail mean and median ([`tail_mean_median`]) of the `js-shifted` and the `js`
/// read-offs of one JS-trained critic (d = 5, I = 2, N = 128, separable critic, seeds
/// 0..seeds): the critic trains on `js-shifted`'s objective and `js` is a monitor on the same
/// scores. The two bounds share their objective, so training on `js` gives the same critic to
/// the bit (checked on 2026-11-26: 300 steps at seed 1, every per-step `js` value and every
/// final parameter identical), and one run per seed serves both. One run per seed, in parallel
/// (each run is independent and seeded, so the numbers do not depend on the threads).
fn js_over_seeds(steps: u64, seeds: u64) -> Vec<((f64, f64), (f64, f64))> {
    use rayon::prelude::*;
    (0..seeds)
        .into_par_iter()
        .map(|seed| {
            let data = Data::stream(Parametric::Gaussian { dim: 5 }, Schedule::Constant { mi: 2.0 }).unwrap();
            let mut cfg = TrainConfig::new(CriticSpec::poole_separable(), BoundSpec::JsShifted, 128, steps);
            cfg.seed = seed;
            cfg.monitors = vec![Monitor::Bound { spec: BoundSpec::Js }];
            let r = train::<f32>(&data, &cfg).unwrap();
            let shifted: Vec<f64> = r.trace.iter().map(|s| s.value).collect();
            let (shifted, plain) = (tail_mean_median(&shifted), tail_mean_median(&r.monitors[0].values));
            for (name, (mean, median)) in [("js-shifted", shifted), ("js", plain)] {
                println!("{name}: seed {seed}: tail mean {mean:.4}, tail median {median:.4}");
            }
            (shifted, plain)
        })
        .collect()
}

fn mean_sd(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    (m, (v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0)).sqrt())
}

/// The JS-trained critic over four seeds. JS shares its critic with `js-shifted` (same
/// objective, same seed, so the same critic); the two read-offs differ. At the JS optimum `js`
/// (the literature's NWJ(f)) reads `I − 1/e` and `js-shifted` reads `I`
/// (tests/theory_optimal_critic.rs). The logistic loss's gradient vanishes on confidently
/// classified pairs, so the critic approaches the optimum slowly: the budget is 10 000 steps.
///
/// The statistic is each seed's **median** of the per-step values over the last 20 % of steps,
/// not the mean: the NWJ read-off is heavy-tailed (an average of `e^{S_ij}`), and one batch with
/// large off-diagonal scores moves a 2000-step mean by nats. Measured (seeds 0–3): `js-shifted`
/// medians 1.897 / 1.904 / 1.904 / 1.902, means 1.875 / 1.879 / **−0.969** / 1.871; `js` medians
/// 1.578 / 1.583 / 1.582 / 1.584, means 1.579 / 1.584 / **0.533** / 1.581 (target 1.632). The
/// bound `|m̄ − target| + t·sd/√K` measured 0.108 (`js-shifted`) and 0.055 (`js`). The
/// measurement trained 8 × 10 000 steps at N = 128 (955 s on the shared machine at load ≈ 10);
/// the test trains 4 × 10 000 steps and reads both bounds off each run ([`js_over_seeds`]).
/// Seed 2's critic is as good as the others' (its median agrees to 0.003); its read-off's mean
/// is not.
///
/// Tolerance: the acceptance threshold is 0.15 nats of optimisation bias (as for InfoNCE and
/// NWJ above). The test requires the *upper 99 % confidence limit* of the bias to be within it:
/// `|m̄ − target| + t_{0.995, K−1}·sd/√K ≤ 0.15`, with `m̄` and `sd` the mean and standard
/// deviation of the K = 4 medians and `t_{0.995, 3} = 5.841`. The spread therefore enters the
/// tolerance; a seed whose critic had not learned would raise `sd` and fail the test.
#[test]
#[ignore = "acceptance (minutes): run by .ci/run with --ignored"]
fn js_reaches_its_optimum_read_off_over_seeds() {
    const T_995_3: f64 = 5.841;
    let seeds = 4;
    let runs = js_over_seeds(10_000, seeds);
    let shifted: Vec<(f64, f64)> = runs.iter().map(|r| r.0).collect();
    let plain: Vec<(f64, f64)> = runs.iter().map(|r| r.1).collect();
    for (name, v, target) in [("js-shifted", &shifted, 2.0), ("js", &plain, 2.0 - (-1f64).exp())] {
        let (m, sd) = mean_sd(&v.iter().map(|p| p.0).collect::<Vec<_>>());
        let (mm, msd) = mean_sd(&v.iter().map(|p| p.1).collect::<Vec<_>>());
        println!(
            "{name}: means {m:.4} ± {sd:.4}, medians {mm:.4} ± {msd:.4} (sd over {seeds} seeds), target {target:.4}"
        );
        let limit = (mm - target).abs() + T_995_3 * msd / (seeds as f64).sqrt();
        assert!(limit <= 0.15, "{name}: |{mm:.4} − {target:.4}| + t·sd/√K = {limit:.4} > 0.15");
    }
}

fn staircase(steps_per_level: u64) {
    let data = Data::stream(Parametric::Gaussian { dim: 20 }, Schedule::poole(steps_per_level)).unwrap();
    let cfg = TrainConfig::new(CriticSpec::poole_separable(), BoundSpec::InfoNce, 64, 5 * steps_per_level);
    let r = train::<f32>(&data, &cfg).unwrap();
    let log_n = 64f64.ln();
    let levels = r.levels(steps_per_level, 0.2);
    for w in &levels {
        println!("true {:>5.2}: InfoNCE {:.3} ± {:.3}", w.true_mi.unwrap(), w.mean, w.std);
    }
    // InfoNCE ≤ log N holds for every batch, whatever the critic (tests/bound_properties.rs).
    assert!(r.trace.iter().all(|s| s.value <= log_n + 1e-9), "a step exceeded log N");
    let last = levels.last().unwrap();
    assert!(last.mean >= log_n - 0.4 && last.mean <= log_n, "final level {} not in [log N − 0.4, log N]", last.mean);
    assert!((levels[0].mean - 2.0).abs() <= 0.35, "2-nat level: {}", levels[0].mean);
}

/// The Poole et al. staircase (d = 20, N = 64, levels 2…10 nats), shortened to 1500 steps per
/// level for CI. At 10 nats ≫ log 64 = 4.16 the optimal critic's InfoNCE is within 0.04 of
/// log N (the saturation floor of tests/theory_optimal_critic.rs), so log N − 0.4 leaves room
/// for an imperfect critic; at 2 nats the optimal value at N = 64 is 1.81.
#[test]
fn poole_staircase_infonce_saturates_under_log_n() {
    staircase(1500);
}

/// The full-length staircase (4000 steps per level, 20 000 steps: about 15 s at the measured
/// separable N = 64 step rate), run in CI.
#[test]
#[ignore = "acceptance (minutes): run by .ci/run with --ignored"]
fn poole_staircase_full_length() {
    staircase(4000);
}
