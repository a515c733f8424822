//! Two threads per step change the speed, never the numbers: the concurrent halves of a step
//! (the separable critic's encoders with their share of ∂S, the concat critic's two halves of
//! pair blocks, Adam's two halves) do the same arithmetic as one thread, so traces and
//! parameters are bit-identical.

use mibound::bounds::BoundSpec;
use mibound::compute::Compute;
use mibound::critics::{Activation, CriticSpec, Similarity};
use mibound::tasks::Parametric;
use mibound::train::{Data, Schedule, TrainConfig, train};

fn separable(similarity: Similarity) -> CriticSpec {
    // 2 × (20·128 + 128·128 + 128·16) ≈ 42 k parameters: above Adam's split threshold (16 384).
    CriticSpec::Separable { hidden: vec![128, 128], embed: 16, activation: Activation::Relu, similarity }
}

#[test]
fn one_and_two_threads_give_bit_identical_runs() {
    let _ = rayon::ThreadPoolBuilder::new().num_threads(2).build_global();
    let data = Data::stream(Parametric::Gaussian { dim: 20 }, Schedule::Constant { mi: 2.0 }).unwrap();
    // Concat at N = 80: 6400 pairs in 4 blocks of 1600, two per half.
    let concat = CriticSpec::Concat { hidden: vec![64, 64], activation: Activation::Relu };
    let cases = [
        ("separable", separable(Similarity::Dot), "infonce", 32),
        ("cosine, learned τ", separable(Similarity::Cosine { tau: 0.1, learn: true }), "infonce", 32),
        ("separable", separable(Similarity::Dot), "nwj", 32),
        ("cpc", CriticSpec::parse("cpc").unwrap(), "infonce", 32),
        ("concat", concat, "infonce", 80),
    ];
    for (name, critic, bound, batch) in cases {
        let cfg = TrainConfig::new(critic, BoundSpec::parse(bound).unwrap(), batch, 80);
        let one = train::<f32>(&data, &cfg).unwrap();
        let cfg2 = TrainConfig { compute: Compute::with_threads(2).unwrap(), ..cfg.clone() };
        let two = train::<f32>(&data, &cfg2).unwrap();
        assert_eq!(one.trace.len(), 80);
        assert!(one.trace == two.trace, "{name} / {bound}: traces differ between 1 and 2 threads");
        assert!(one.params == two.params, "{name} / {bound}: parameters differ between 1 and 2 threads");
        // The run learned something, so the comparison is not between two untouched states.
        assert!(one.params != cfg.critic.build::<f32>(20, 20).unwrap().init_params(cfg.init, cfg.seed));
    }
}

/// A whole default estimate (three trained candidates through a pilot, the nearest-neighbour
/// candidates validated beside them, five folds) gives the same numbers with one and two
/// threads per step: the step threads and the order the candidates run in change the speed only.
#[test]
fn an_estimate_is_the_same_with_one_and_two_step_threads() {
    use mibound::estimators::{EstimatorSpec, Settings, compare};
    let _ = rayon::ThreadPoolBuilder::new().num_threads(2).build_global();
    let (x, y) = mibound::tasks::get("multinormal-sparse-3-3-2-2.0").unwrap().draw(1000, 0).unwrap();
    let specs = EstimatorSpec::parse_list("infonce").unwrap();
    let run = |threads: usize| {
        let mut s = Settings::default();
        (s.neural.max_steps, s.neural.pilot_steps) = (200, 60);
        s.neural.compute = Compute::with_threads(threads).unwrap();
        compare(&specs, &s, x.as_view(), y.as_view(), 0, None).unwrap().estimates.remove(0)
    };
    let (one, two) = (run(1), run(2));
    assert!(one.value > 0.3, "the estimate learned nothing: {}", one.value);
    assert_eq!(one.value.to_bits(), two.value.to_bits(), "{} against {}", one.value, two.value);
    assert_eq!(one.interval, two.interval);
    let chosen = |e: &mibound::estimators::Estimate| e.settings.neural().unwrap().critic_chosen_per_fold.clone();
    assert_eq!(chosen(&one), chosen(&two));
}
