//! Each fold of a neural estimate trains the configured critic and its alternatives and keeps
//! the one with the highest validation objective (`Candidates::alternatives`). These tests
//! make one candidate unable to learn — an L2 weight decay of 10 holds every weight at zero, so
//! the critic stays the information-free one whose validation InfoNCE is 0 — and check that the
//! other is kept in every fold, whichever id it has; and that keeping the configured
//! critic gives exactly the number it gives alone (same seed).

use mibound::critics::{Activation, CriticSpec, Similarity, Tails};
use mibound::estimators::neural::CandidateId::{self, Trained, Untrained};
use mibound::estimators::neural::{Neighbours, NeuralSettings};
use mibound::estimators::{Alternative, EstimatorSpec, Settings, compare};
use nalgebra::DMatrix;

fn data() -> (DMatrix<f64>, DMatrix<f64>) {
    // Two correlated pairs in 3 + 3 dimensions, true MI 1.02 nats.
    mibound::tasks::get("multinormal-sparse-3-3-2-2.0").unwrap().draw(1000, 0).unwrap()
}

fn small(hidden: usize) -> CriticSpec {
    CriticSpec::Separable { hidden: vec![hidden], embed: 8, activation: Activation::Relu, similarity: Similarity::Dot }
}

fn settings(primary_decay: f64, alternative_decay: f64) -> Settings {
    let mut s = Settings::default();
    s.neural.max_steps = 300;
    s.neural.critic = small(32);
    s.neural.adam.weight_decay = primary_decay;
    s.neural.candidates.alternatives = vec![Alternative { critic: small(64), weight_decay: alternative_decay }];
    // The data's columns fall into blocks; the critics summed over them are the last test's.
    s.neural.candidates.blocks = false;
    // The candidates on the coordinates' squares and the nearest-neighbour candidates on the
    // coordinates as given are tests of their own below.
    s.neural.candidates.squares = false;
    s.neural.candidates.given = false;
    // So is the closed-form Gaussian candidate, which would read these Gaussian data best.
    s.neural.candidates.elliptical.clear();
    s
}

/// The id of the candidate each fold kept.
fn ids(used: &NeuralSettings) -> Vec<CandidateId> {
    used.chosen_per_fold.iter().map(|c| c.id).collect()
}

/// The number of an id.
fn number(id: CandidateId) -> usize {
    let (Trained(n) | Untrained(n)) = id;
    n as usize
}

/// (headline value, critic chosen per fold).
fn run(s: &Settings) -> (f64, Vec<CandidateId>) {
    let (x, y) = data();
    let specs = EstimatorSpec::parse_list("infonce").unwrap();
    let c = compare(&specs, s, x.as_view(), y.as_view(), 0, None).unwrap();
    let e = &c.estimates[0];
    let chosen = ids(e.settings.neural().unwrap());
    (e.value, chosen)
}

#[test]
fn a_fold_keeps_the_candidate_that_validates_higher() {
    let (v_alt, chosen) = run(&settings(10.0, 0.0));
    assert_eq!(chosen, [Trained(1); 5], "the configured critic cannot learn; the alternative must be kept");
    assert!(v_alt > 0.5, "the kept alternative learned nothing: {v_alt}");

    let (v_primary, chosen) = run(&settings(0.0, 10.0));
    assert_eq!(chosen, [Trained(0); 5], "the alternative cannot learn; the configured critic must be kept");
    assert!(v_primary > 0.5, "the kept critic learned nothing: {v_primary}");

    // The configured critic alone, with the same seed: the same number to the bit.
    let mut alone = settings(0.0, 10.0);
    alone.neural.candidates.alternatives.clear();
    let (v_alone, chosen) = run(&alone);
    assert_eq!(chosen, [Trained(0); 5]);
    assert_eq!(v_alone.to_bits(), v_primary.to_bits(), "alone {v_alone}, among candidates {v_primary}");
}

#[test]
fn alternatives_are_checked_like_the_critic() {
    let mut s = Settings::default();
    s.neural.candidates.alternatives = vec![Alternative { critic: small(0), weight_decay: 0.0 }];
    assert!(s.neural.validate().is_err(), "a zero hidden width in an alternative must be refused");
    s.neural.candidates.alternatives = vec![Alternative { critic: small(8), weight_decay: -1.0 }];
    assert!(s.neural.validate().is_err(), "a negative weight decay in an alternative must be refused");
}

#[test]
fn a_nearest_neighbour_critic_is_kept_when_it_validates_higher() {
    // Neither trained candidate can learn (weight decay 10): the nearest-neighbour candidate,
    // which needs no training, validates higher and is kept in every fold; its id numbers on from
    // the two trained candidates'.
    let mut s = settings(10.0, 10.0);
    s.neural.candidates.knn = vec![1.0];
    s.neural.candidates.walks.clear();
    let (x, y) = data();
    let c = compare(&EstimatorSpec::parse_list("infonce").unwrap(), &s, x.as_view(), y.as_view(), 0, None).unwrap();
    let used = c.estimates[0].settings.neural().unwrap();
    let (v, chosen) = (c.estimates[0].value, ids(used));
    assert_eq!(chosen, [Untrained(2); 5], "the nearest-neighbour critic must be kept");
    assert_eq!(
        used.nearest_neighbour_kept(),
        Some(Neighbours::Counted { factor: 1.0, blocks: false, given: false }),
        "the settings name the kept critic's factor"
    );
    println!("nearest-neighbour critic: {v:.3}");
    assert!(v > KNN_FLOOR, "the nearest-neighbour critic read {v}");
    // Where a trained candidate wins, the nearest-neighbour candidate changes nothing.
    let mut s = settings(0.0, 10.0);
    s.neural.candidates.walks.clear();
    let (v_without, _) = run(&s);
    s.neural.candidates.knn = vec![1.0];
    let (v_with, chosen) = run(&s);
    assert_eq!(chosen, [Trained(0); 5]);
    assert_eq!(v_with.to_bits(), v_without.to_bits());
}

#[test]
fn a_random_walk_critic_is_kept_when_it_validates_higher() {
    // As above, with random walks as the only critics that need no training: one of them is
    // kept in every fold, its id numbered on from the two trained candidates, and the settings
    // name it.
    let mut s = settings(10.0, 10.0);
    s.neural.candidates.knn.clear();
    s.neural.candidates.walks = vec![2, 8];
    let (x, y) = data();
    let c = compare(&EstimatorSpec::parse_list("infonce").unwrap(), &s, x.as_view(), y.as_view(), 0, None).unwrap();
    let used = c.estimates[0].settings.neural().unwrap();
    let (v, chosen) = (c.estimates[0].value, ids(used));
    assert!(chosen.iter().all(|&c| c == chosen[0] && matches!(c, Untrained(2..=3))), "a walk must be kept: {chosen:?}");
    let kept = used.nearest_neighbour_kept();
    assert_eq!(
        kept,
        Some(Neighbours::Walk { steps: [2, 8][number(chosen[0]) - 2], blocks: false, given: false }),
        "the settings name the kept walk"
    );
    println!("random-walk critic ({}): {v:.3}", kept.unwrap());
    assert!(v > KNN_FLOOR, "the random-walk critic read {v}");
}

/// An information-free critic reads 0 within about ±0.05 here (5 test folds of 200 rows); a
/// kept critic above 0.2 found dependence (the truth is 1.02).
const KNN_FLOOR: f64 = 0.2;

#[test]
fn a_critic_summed_over_blocks_is_kept_where_the_columns_fall_into_blocks() {
    // Two independent pairs of 8×8 digit images side by side (`digits_x2-0.3`, true MI 2.07
    // nats, 1000 rows; its constant pixels dropped): the pixels fall into two blocks, one per
    // pair. With the trained candidates unable to learn and two random walks as the critics
    // that need no training, the walks summed over the blocks (ids `Untrained(4 | 5)`: two trained,
    // the two walks on every column, then the same summed over blocks) validate higher than
    // the walks on every column, one of them is kept in every fold, and it reads higher on the
    // test rows: a walk on every column needs neighbours of the same classes in both pairs at
    // once, 100 pairs of classes among 640 fit rows.
    let (x, y) = mibound::tasks::get("digits_x2-0.3").unwrap().draw(1000, 0).unwrap();
    let keep = |m: &DMatrix<f64>| -> Vec<usize> { (0..m.ncols()).filter(|&j| m.column(j).variance() > 0.0).collect() };
    let (x, y) = (x.select_columns(&keep(&x)), y.select_columns(&keep(&y)));
    let mut s = walks_only();
    let run = |s: &Settings| walk_kept(s, &x, &y, 0);
    s.neural.candidates.blocks = true;
    let (v_blocks, chosen, kept) = run(&s);
    assert!(
        chosen.iter().all(|&c| c == chosen[0] && matches!(c, Untrained(4..=5))),
        "a blocked walk must be kept: {chosen:?}"
    );
    assert_eq!(kept, Some(Neighbours::Walk { steps: [2, 8][number(chosen[0]) - 4], blocks: true, given: false }));
    s.neural.candidates.blocks = false;
    let (v_whole, chosen, _) = run(&s);
    assert!(chosen.iter().all(|&c| matches!(c, Untrained(2..=3))), "{chosen:?}");
    println!("walks on every column {v_whole:.3}, summed over the blocks {v_blocks:.3} (truth 2.07)");
    assert!(v_blocks > v_whole + 0.1, "summed over the blocks {v_blocks}, every column {v_whole}");
}

#[test]
fn a_walk_on_the_coordinates_as_given_is_kept_where_normal_scores_inflate_noise() {
    // Ten classes shared by both sides (MI about log 10 = 2.30 nats, the classes well apart):
    // on each side two coordinates place the row near its class's point on a circle, and six
    // carry noise 100 times smaller. Normal scores give the six the spread of the two, so a
    // distance mostly measures noise — as they give a digit image's rarely inked border pixels
    // the spread of its strokes. With the trained candidates unable to learn and two random
    // walks as the critics that need no training, a walk on the coordinates as given (ids
    // `Untrained(4 | 5)`: two trained, the two walks on normal scores, then the same on the
    // coordinates)
    // validates higher, is kept in every fold (each fold choosing for itself), and reads higher
    // on the test rows.
    for seed in 0..3 {
        let (x, y) = classes_with_quiet_noise(1000, seed);
        let mut s = walks_only();
        s.neural.candidates.choose_once = false;
        let run = |s: &Settings| walk_kept(s, &x, &y, seed);
        s.neural.candidates.given = true;
        let (v_given, chosen, kept) = run(&s);
        assert!(chosen.iter().all(|c| matches!(c, Untrained(4..=5))), "a walk as given in every fold: {chosen:?}");
        if chosen.iter().all(|&c| c == chosen[0]) {
            assert_eq!(
                kept,
                Some(Neighbours::Walk { steps: [2, 8][number(chosen[0]) - 4], blocks: false, given: true })
            );
        }
        s.neural.candidates.given = false;
        let (v_mapped, chosen, _) = run(&s);
        assert!(chosen.iter().all(|&c| matches!(c, Untrained(2..=3))), "{chosen:?}");
        println!("seed {seed}: walks on normal scores {v_mapped:.3}, on the coordinates {v_given:.3} (about 2.30)");
        assert!(v_given > v_mapped + GIVEN_GAIN, "seed {seed}: as given {v_given}, on normal scores {v_mapped}");
    }
}

/// [`settings`] with the trained candidates unable to learn and random walks of 2 and 8 steps
/// as the only critics that need no training.
fn walks_only() -> Settings {
    let mut s = settings(10.0, 10.0);
    s.neural.candidates.knn.clear();
    s.neural.candidates.walks = vec![2, 8];
    s
}

/// (headline value, candidate kept per fold, the nearest-neighbour critic every fold kept) of
/// InfoNCE with `s` on `(x, y)`.
fn walk_kept(
    s: &Settings,
    x: &DMatrix<f64>,
    y: &DMatrix<f64>,
    seed: u64,
) -> (f64, Vec<CandidateId>, Option<Neighbours>) {
    let c = compare(&EstimatorSpec::parse_list("infonce").unwrap(), s, x.as_view(), y.as_view(), seed, None).unwrap();
    let used = c.estimates[0].settings.neural().unwrap();
    (c.estimates[0].value, ids(used), used.nearest_neighbour_kept())
}

/// Half the smallest gain of the walks on the coordinates as given over those on normal scores
/// in the test above, measured at seeds 0–4 (the test run with `0..5`): 1.676–1.733 nats
/// (normal scores 0.438–0.457, as given 2.131–2.171).
const GIVEN_GAIN: f64 = 0.83;

/// `n` rows of [`a_walk_on_the_coordinates_as_given_is_kept_where_normal_scores_inflate_noise`]'s
/// data, drawn from `seed`: class `c` uniform on 0..10, each side `(3 cos θ_c, 3 sin θ_c) + ε`
/// with `θ_c = 2πc/10`, `ε ~ N(0, 0.3²)` per coordinate, then six coordinates `N(0, 0.003²)`.
fn classes_with_quiet_noise(n: usize, seed: u64) -> (DMatrix<f64>, DMatrix<f64>) {
    use rand::RngExt;
    use rand_distr::{Distribution, StandardNormal};
    let mut g = mibound::rng::rng(seed);
    let (mut x, mut y) = (DMatrix::zeros(n, 8), DMatrix::zeros(n, 8));
    for i in 0..n {
        let theta = std::f64::consts::TAU * g.random_range(0..10) as f64 / 10.0;
        for m in [&mut x, &mut y] {
            for j in 0..8 {
                let noise: f64 = StandardNormal.sample(&mut g);
                m[(i, j)] = match j {
                    0 => 3.0 * theta.cos() + 0.3 * noise,
                    1 => 3.0 * theta.sin() + 0.3 * noise,
                    _ => 0.003 * noise,
                };
            }
        }
    }
    (x, y)
}

/// Three coordinates on each side that share one scale: `x = σ·z₁`, `y = σ·z₂` with
/// `log σ ~ N(0, 1)` and `z₁, z₂` independent standard normal vectors, `n` rows drawn from
/// `seed`. The sides do not correlate, nor do their normal scores: all the information is in
/// the magnitudes.
fn shared_scale(n: usize, seed: u64) -> (DMatrix<f64>, DMatrix<f64>) {
    use rand_distr::{Distribution, StandardNormal};
    let mut g = mibound::rng::rng(seed);
    let mut draw = || -> f64 { StandardNormal.sample(&mut g) };
    let (mut x, mut y) = (DMatrix::zeros(n, 3), DMatrix::zeros(n, 3));
    for i in 0..n {
        let sigma = draw().exp();
        for j in 0..3 {
            x[(i, j)] = sigma * draw();
            y[(i, j)] = sigma * draw();
        }
    }
    (x, y)
}

/// (headline value, critic chosen per fold) of the small candidates of [`settings`] on
/// [`shared_scale`] data, with and without the candidates on the squares.
fn on_shared_scale(seed: u64, squares: bool) -> (f64, Vec<CandidateId>) {
    let (x, y) = shared_scale(1000, seed);
    let mut s = settings(0.0, 0.0);
    s.neural.candidates.squares = squares;
    s.neural.candidates.knn.clear();
    s.neural.candidates.walks.clear();
    let c = compare(&EstimatorSpec::parse_list("infonce").unwrap(), &s, x.as_view(), y.as_view(), seed, None).unwrap();
    (c.estimates[0].value, ids(c.estimates[0].settings.neural().unwrap()))
}

#[test]
fn a_candidate_on_the_squares_is_kept_where_the_information_is_in_the_magnitudes() {
    // Two small trained candidates, each also on the squares (ids `Trained(2 | 3)`). Measured at
    // seeds 0–4 (2026-11-28): without the squares 0.213–0.288, with them 0.343–0.405, a gain of
    // 0.107–0.130, and a candidate on the squares kept in every fold at every seed. The gain
    // asked for is half the smallest measured one.
    for seed in 0..3 {
        let (plain, chosen) = on_shared_scale(seed, false);
        assert!(chosen.iter().all(|&c| matches!(c, Trained(0..=1))), "seed {seed}: without squares, {chosen:?}");
        let (squared, chosen) = on_shared_scale(seed, true);
        assert!(
            chosen.iter().all(|&c| matches!(c, Trained(2..=3))),
            "seed {seed}: a squares candidate must be kept: {chosen:?}"
        );
        assert!(squared > plain + 0.05, "seed {seed}: with the squares {squared}, without {plain}");
    }
}

/// `n` rows of a `dim + dim` Gaussian with `mi` nats spread over every pair of coordinates:
/// the correlated Gaussian with each side turned by a Haar-random orthogonal matrix.
fn rotated(n: usize, dim: usize, mi: f64, seed: u64) -> (DMatrix<f64>, DMatrix<f64>) {
    use mibound::data::{CorrelatedGaussian, Sampler};
    let (x, y) = CorrelatedGaussian::with_mi(dim, mi).unwrap().sample(n, &mut mibound::rng::rng(seed));
    let (qx, qy) = (mibound::tasks::random_orthogonal(dim, 1), mibound::tasks::random_orthogonal(dim, 2));
    (x * qx.transpose(), y * qy.transpose())
}

#[test]
fn the_gaussian_critic_is_kept_where_many_weak_linear_dependences_carry_the_information() {
    // 16 + 16 dims, 2 nats spread over all 256 pairs of coordinates, 2000 rows: the small
    // trained candidates of `settings` reach a fraction of it in 300 steps; the closed-form
    // Gaussian critic (`Untrained(2)`, after the two trained and no nearest-neighbour candidates)
    // validates higher in the fold that chooses, and reads the truth but for the noise of a
    // covariance from 1440 fit rows. Measured at seeds 0–2 (2026-11-28): the trained candidates
    // alone 0.727–0.745, with the Gaussian 1.856–1.925, kept in every fold. Asked for: half the
    // smallest gain (1.11), a reading at least 0.15 below the smallest measured (twice their
    // range), and none above the truth by more than 0.1 (a lower bound in expectation).
    for seed in 0..3 {
        let (x, y) = rotated(2000, 16, 2.0, seed);
        let mut s = settings(0.0, 0.0);
        s.neural.candidates.knn.clear();
        s.neural.candidates.walks.clear();
        let specs = EstimatorSpec::parse_list("infonce").unwrap();
        let trained = compare(&specs, &s, x.as_view(), y.as_view(), seed, None).unwrap().estimates[0].value;
        s.neural.candidates.elliptical = vec![Tails::Normal];
        let c = compare(&specs, &s, x.as_view(), y.as_view(), seed, None).unwrap();
        let e = &c.estimates[0];
        let chosen = ids(e.settings.neural().unwrap());
        eprintln!("seed {seed}: trained {trained:.3}, with the Gaussian {:.3} {chosen:?}", e.value);
        assert_eq!(chosen, [Untrained(2); 5], "seed {seed}");
        assert!(e.value > trained + 0.55, "seed {seed}: {} against {trained}", e.value);
        assert!(e.value > 1.7 && e.value < 2.0 + 0.1, "seed {seed}: {}", e.value);
    }
}

#[test]
fn a_student_t_critic_is_kept_where_a_shared_scale_carries_the_information() {
    // 16 + 16 dims of a Student-t (ν = 5) with 2 nats in its normal part, each side rotated, 2000
    // rows: the elliptical tails' shared scale makes the sides' norms dependent, which the
    // Gaussian critic cannot score (`tasks::student_correction`: the truth is above 2 by it).
    // With the default tails (Gaussian, then ν = 4 and 16: `Untrained(2..=4)`) a Student-t critic
    // validates higher in the fold that chooses. Measured at seeds 0–2 (2026-12-02): the
    // Gaussian critic alone 1.646–1.741, with the default tails 2.137–2.273 (truth 2.478), ν = 4
    // (`Untrained(3)`) kept in every fold. Asked for: a Student-t critic in every fold, half the
    // smallest gain (0.245), a reading at least 0.27 below the smallest measured (twice their
    // range), and none above the truth by more than 0.1 (a lower bound in expectation).
    let task = mibound::tasks::get("rotate-student-staircase-16-5-2").unwrap();
    for seed in 0..3 {
        let (x, y) = task.draw(2000, seed).unwrap();
        let mut s = settings(0.0, 0.0);
        s.neural.candidates.knn.clear();
        s.neural.candidates.walks.clear();
        s.neural.candidates.elliptical = vec![Tails::Normal];
        let specs = EstimatorSpec::parse_list("infonce").unwrap();
        let normal = compare(&specs, &s, x.as_view(), y.as_view(), seed, None).unwrap().estimates[0].value;
        s.neural.candidates.elliptical = mibound::estimators::neural::default_tails();
        let c = compare(&specs, &s, x.as_view(), y.as_view(), seed, None).unwrap();
        let e = &c.estimates[0];
        let chosen = ids(e.settings.neural().unwrap());
        eprintln!(
            "seed {seed}: truth {:.3}, Gaussian only {normal:.3}, default tails {:.3} {chosen:?}",
            task.info().true_mi,
            e.value
        );
        assert!(chosen.iter().all(|&id| id == Untrained(3) || id == Untrained(4)), "seed {seed}: {chosen:?}");
        assert!(e.value > normal + 0.245, "seed {seed}: {} against {normal}", e.value);
        assert!(e.value > 2.137 - 0.27 && e.value < task.info().true_mi + 0.1, "seed {seed}: {}", e.value);
    }
}
