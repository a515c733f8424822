//! Upper bounds and Barber–Agakov: with the true conditional (theory) and with a trained q(y|x),
//! and the sandwich lower ≤ I ≤ upper through a staircase.

use crate::common;

use common::mean_se;
use mibound::bounds::{BarberAgakov, Bound, BoundSpec, Club, ClubSample, LeaveOneOut};
use mibound::critics::CriticSpec;
use mibound::data::{CorrelatedGaussian, Sampler, rng};
use mibound::tasks::Parametric;
use mibound::train::{Data, Monitor, Schedule, TrainConfig, sandwich, train};
use nalgebra::DMatrix;

/// `S_ij = log p(y_j | x_i)`: the optimal critic plus the marginal log-density of column j.
fn true_log_conditional(task: &CorrelatedGaussian, x: &DMatrix<f64>, y: &DMatrix<f64>) -> DMatrix<f64> {
    let mut s = task.optimal_critic(x, y).unwrap();
    for (j, lp) in task.log_marginal_y(y).unwrap().into_iter().enumerate() {
        s.column_mut(j).add_scalar_mut(lp);
    }
    s
}

/// With q = p(y|x): CLUB and L1Out are upper bounds in expectation (checked as
/// `mean + 3 se ≥ I`), CLUB-sample is unbiased for CLUB, and BA is exactly I in expectation
/// (`|mean − I| ≤ 3 se`): `H(Y) + E log p(y|x) = I`.
#[test]
fn with_the_true_conditional_upper_bounds_are_above_and_ba_equals_i() {
    for (k, &mi) in [0.5, 2.0, 5.0].iter().enumerate() {
        let task = CorrelatedGaussian::with_mi(5, mi).unwrap();
        let mut g = rng(40 + k as u64);
        let h = task.entropy_y().unwrap();
        let (mut club, mut loo, mut cs, mut ba) = (vec![], vec![], vec![], vec![]);
        let mut sampler = ClubSample::new(1);
        for _ in 0..300 {
            let (x, y) = task.sample(64, &mut g);
            let s = true_log_conditional(&task, &x, &y);
            club.push(Club.value(&s).unwrap());
            loo.push(LeaveOneOut.value(&s).unwrap());
            cs.push(sampler.value(&s).unwrap());
            ba.push(BarberAgakov::new(h).unwrap().value(&s).unwrap());
        }
        for (name, v) in [("CLUB", &club), ("L1Out", &loo), ("CLUB-sample", &cs)] {
            let (m, se) = mean_se(v);
            println!("I = {mi}: {name} {m:.4} ± {se:.4}");
            assert!(m + 3.0 * se >= mi, "{name} at I = {mi}: mean {m} below I by more than 3 se ({se})");
        }
        let (m, se) = mean_se(&ba);
        println!("I = {mi}: BA {m:.4} ± {se:.4}");
        assert!((m - mi).abs() <= 3.0 * se, "BA at I = {mi}: {m} vs {se}");
        // CLUB-sample estimates CLUB without bias: their difference averages to 0.
        let diff: Vec<f64> = club.iter().zip(&cs).map(|(a, b)| a - b).collect();
        let (dm, dse) = mean_se(&diff);
        assert!(dm.abs() <= 3.0 * dse, "CLUB-sample vs CLUB: {dm} ± {dse}");
    }
}

/// A q(y|x) trained by maximum likelihood on d = 5, I = 2 nats (N = 128, 4000 steps), means
/// over the last 20 %: every upper bound is ≥ I − 0.1; L1Out and the VUB are within 0.5 of I;
/// BA ≤ I + 0.1.
///
/// CLUB is held to its own theoretical value instead of I: with the exact conditional of this
/// task, `CLUB = E_p log p(y|x) − E_{p(x)p(y)} log p(y|x) = d·ρ²/(1 − ρ²)` (6.08 nats here with N = 128, not 2),
/// so "within 0.5 of I" is impossible for CLUB and CLUB-sample even with a perfect q; a trained
/// q must bring them within 0.5 of that.
#[test]
fn with_a_trained_conditional_the_bounds_bracket_the_truth() {
    let task = CorrelatedGaussian::with_mi(5, 2.0).unwrap();
    let rho2 = task.rho() * task.rho();
    // Batch CLUB's expectation at the exact conditional, N = 128 (see the next test).
    let club_exact = (1.0 - 1.0 / 128.0) * 5.0 * rho2 / (1.0 - rho2);
    let data = Data::stream(Parametric::Gaussian { dim: 5 }, Schedule::Constant { mi: 2.0 }).unwrap();
    let mut cfg = TrainConfig::new(CriticSpec::gaussian(), BoundSpec::Club, 128, 4000);
    cfg.monitors = vec![
        Monitor::Bound { spec: BoundSpec::Loo },
        Monitor::Bound { spec: BoundSpec::ClubSample { seed: 0 } },
        Monitor::Vub,
        Monitor::Bound { spec: BoundSpec::Ba { entropy_y: Some(task.entropy_y().unwrap()) } },
    ];
    let r = train::<f32>(&data, &cfg).unwrap();
    let n = r.trace.len() as u64;
    let from = n - n / 5;
    let club = r.window(from, n).unwrap();
    println!("CLUB {:.3} ± {:.3} (exact conditional: {club_exact:.3})", club.mean, club.std);
    assert!(club.mean >= 2.0 - 0.1 && (club.mean - club_exact).abs() <= 0.5, "CLUB {}", club.mean);
    let target = [2.0, club_exact, 2.0];
    for (m, want) in target.iter().enumerate() {
        let w = r.monitor_window(m, from, n).unwrap();
        println!("{} {:.3} ± {:.3}", r.monitors[m].label, w.mean, w.std);
        assert!(
            w.mean >= 2.0 - 0.1 && (w.mean - want).abs() <= 0.5,
            "{}: {} (target {want})",
            r.monitors[m].label,
            w.mean
        );
    }
    let ba = r.monitor_window(3, from, n).unwrap();
    println!("BA {:.3} ± {:.3}", ba.mean, ba.std);
    assert!(ba.mean <= 2.0 + 0.1, "BA {}", ba.mean);
}

/// CLUB of the exact conditional equals d·ρ²/(1 − ρ²) in expectation (the closed form used above).
#[test]
fn club_of_the_exact_conditional_matches_its_closed_form() {
    let task = CorrelatedGaussian::with_mi(5, 2.0).unwrap();
    let rho2 = task.rho() * task.rho();
    let mut g = rng(77);
    let v: Vec<f64> = (0..300)
        .map(|_| {
            let (x, y) = task.sample(64, &mut g);
            Club.value(&true_log_conditional(&task, &x, &y)).unwrap()
        })
        .collect();
    let (m, se) = mean_se(&v);
    // The batch CLUB includes the N diagonal pairs in its negative term (a (1 − 1/N) shrink of
    // the gap between the two expectations): E = (1 − 1/N)·d·ρ²/(1 − ρ²).
    let want = (1.0 - 1.0 / 64.0) * 5.0 * rho2 / (1.0 - rho2);
    assert!((m - want).abs() <= 3.0 * se, "CLUB {m} ± {se} vs {want}");
}

/// The sandwich on a short staircase (d = 5, N = 64, levels 1, 2, 3 nats × 1500 steps):
/// in the last 20 % of each level, InfoNCE ≤ I ≤ CLUB and L1Out. InfoNCE is a lower bound for
/// any critic; the upper bounds hold once q is accurate, which the previous test checks.
#[test]
fn sandwich_brackets_the_truth_through_a_staircase() {
    let data = Data::stream(
        Parametric::Gaussian { dim: 5 },
        Schedule::Staircase { levels: vec![1.0, 2.0, 3.0], steps_per_level: 1500 },
    )
    .unwrap();
    let lower = TrainConfig::new(CriticSpec::poole_separable(), BoundSpec::InfoNce, 64, 4500);
    let r = sandwich::<f32>(&data, &lower, None).unwrap();
    assert!(r.lower.trace.iter().zip(&r.upper.trace).all(|(a, b)| a.true_mi == b.true_mi), "same batches, same levels");
    for l in 0..3u64 {
        let (from, to) = (l * 1500 + 1200, (l + 1) * 1500);
        let lo = r.lower.window(from, to).unwrap();
        let up = r.upper.window(from, to).unwrap();
        let loo = r.upper.monitor_window(0, from, to).unwrap();
        let mi = lo.true_mi.unwrap();
        println!("I = {mi:.2}: InfoNCE {:.3} ≤ I ≤ CLUB {:.3}, L1Out {:.3}", lo.mean, up.mean, loo.mean);
        assert!(
            lo.mean <= mi && mi <= up.mean && mi <= loo.mean,
            "level {l}: {} ≤ {mi} ≤ {} / {}",
            lo.mean,
            up.mean,
            loo.mean
        );
    }
}

#[test]
fn upper_bounds_refuse_critics_that_are_not_densities() {
    let data = Data::stream(Parametric::Gaussian { dim: 2 }, Schedule::Constant { mi: 1.0 }).unwrap();
    let cfg = TrainConfig::new(CriticSpec::poole_separable(), BoundSpec::Club, 16, 10);
    let e = train::<f32>(&data, &cfg).unwrap_err().to_string();
    assert!(e.contains("gaussian"), "{e}");
    let cubic = Data::stream(Parametric::Cubic { dim: 2 }, Schedule::Constant { mi: 1.0 }).unwrap();
    let ba = TrainConfig::new(CriticSpec::gaussian(), BoundSpec::Ba { entropy_y: None }, 16, 10);
    assert!(train::<f32>(&cubic, &ba).is_err(), "no analytic H(Y) for the cubic task");
    assert!(train::<f32>(&data, &ba).is_ok(), "H(Y) comes from the Gaussian task");
}
