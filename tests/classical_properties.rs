//! Statistical properties of the classical estimators on the crate's tasks with known MI
//! (`CorrelatedGaussian`, `SplitGaussian`, `Transformed` with cubic / asinh maps).
//!
//! Tolerances are derived from the spread of the replicates (a mean must be within 4 standard
//! errors) or from the estimator's own subsampling standard error, with fixed seeds. Each test
//! also checks that it can fail: the plug-in Gaussian estimate is detectably biased at the same
//! tolerance, the Gaussian estimate on the cubic task is detectably off, and so on.

use mibound::data::{CorrelatedGaussian, Sampler, SplitGaussian, Transform, Transformed, rng};
use mibound::estimators::classical::{self, EntropyNorm, KsgVariant};
use mibound::estimators::{Estimate, Estimator, EstimatorSpec, WarningCode};
use nalgebra::DMatrix;

fn mean_se(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
    (m, (var / n).sqrt())
}

fn build(name: &str) -> Box<dyn Estimator> {
    EstimatorSpec::parse(name).unwrap().build_classical().unwrap()
}

fn subsample_sd(e: &Estimate) -> f64 {
    e.diagnostics.values["subsample_sd"]
}

/// The bias-corrected Gaussian estimate has mean I on normal data (exactly, by the Wishart
/// identity); the plug-in estimate is biased upwards by ≈ d_x d_y / (2N), which the same
/// 4-standard-error test detects.
#[test]
fn gaussian_estimate_is_unbiased_on_normal_families() {
    let mut cov = DMatrix::<f64>::identity(4, 4);
    for (i, j, c) in [(0, 1, 0.5), (0, 2, 0.4), (1, 3, -0.3), (2, 3, 0.2)] {
        cov[(i, j)] = c;
        cov[(j, i)] = c;
    }
    let tasks: Vec<(Box<dyn Sampler>, usize)> = vec![
        (Box::new(CorrelatedGaussian::with_mi(2, 0.5).unwrap()), 40),
        (Box::new(CorrelatedGaussian::with_mi(3, 2.0).unwrap()), 60),
        (Box::new(SplitGaussian::new(cov, 1).unwrap()), 30),
        (Box::new(SplitGaussian::new(DMatrix::identity(4, 4), 2).unwrap()), 30),
    ];
    let reps = 3000;
    for (t, (task, n)) in tasks.iter().enumerate() {
        let mut g = rng(100 + t as u64);
        let (mut corrected, mut plugin) = (Vec::new(), Vec::new());
        for _ in 0..reps {
            let (x, y) = task.sample(*n, &mut g);
            corrected.push(classical::gaussian_mi(x.as_view(), y.as_view()).unwrap());
            plugin.push(classical::gaussian_mi_plugin(x.as_view(), y.as_view()).unwrap());
        }
        let truth = task.true_mi();
        let (m, se) = mean_se(&corrected);
        let (mp, sep) = mean_se(&plugin);
        eprintln!("{} n={n}: true {truth:.4}, corrected {m:.4} ± {se:.4}, plug-in {mp:.4} ± {sep:.4}", task.name());
        assert!((m - truth).abs() < 4.0 * se, "{}: corrected mean {m} vs {truth} (se {se})", task.name());
        assert!(mp - truth > 4.0 * sep, "{}: the plug-in bias should be detectable: {mp} vs {truth}", task.name());
    }
}

/// The copula estimate sees only ranks: strictly increasing maps of any coordinate leave it
/// bit-identical, decreasing ones (a sign flip of the scores) change it by rounding only.
#[test]
fn copula_is_invariant_under_monotone_maps() {
    let base = CorrelatedGaussian::with_mi(2, 1.0).unwrap();
    let (x, y) = base.sample(2000, &mut rng(5));
    let reference = classical::copula_mi(x.as_view(), y.as_view()).unwrap();
    // Through the task suite's transforms, from the same stream.
    for (xm, ym) in [
        (None, Some(Transform::Cubic)),
        (Some(Transform::Asinh), Some(Transform::Cubic)),
        (Some(Transform::Cubic), None),
    ] {
        let (tx, ty) = Transformed::new(base.clone(), xm, ym).sample(2000, &mut rng(5));
        let v = classical::copula_mi(tx.as_view(), ty.as_view()).unwrap();
        assert!((v - reference).abs() <= 1e-12, "{xm:?}/{ym:?}: {v} vs {reference}");
    }
    // Coordinate-wise maps, increasing and decreasing.
    type Map = (&'static str, fn(f64) -> f64);
    let maps: [Map; 6] = [
        ("exp", f64::exp),
        ("x³ + x", |v| v * v * v + v),
        ("atan", f64::atan),
        ("−x", |v| -v),
        ("−x³", |v| -(v * v * v)),
        ("1/(1+e^x)", |v| 1.0 / (1.0 + v.exp())),
    ];
    for (name, f) in maps {
        for col in 0..2 {
            let mut tx = x.clone();
            tx.column_mut(col).apply(|v| *v = f(*v));
            let mut ty = y.clone();
            ty.column_mut(1 - col).apply(|v| *v = f(*v));
            let v = classical::copula_mi(tx.as_view(), ty.as_view()).unwrap();
            assert!((v - reference).abs() <= 1e-12, "{name} on column {col}: {v} vs {reference}");
        }
    }
    // The whole estimate, interval included, is unchanged by an increasing map.
    let cubic = |m: &DMatrix<f64>| m.map(|v| v * v * v);
    let a = build("copula").estimate(x.as_view(), y.as_view(), 9).unwrap();
    let b = build("copula").estimate(cubic(&x).as_view(), cubic(&y).as_view(), 9).unwrap();
    assert_eq!((a.value, a.interval.low, a.interval.high), (b.value, b.interval.low, b.interval.high));
    // The Gaussian estimate is not invariant: this is what the test would catch.
    let g0 = classical::gaussian_mi(x.as_view(), y.as_view()).unwrap();
    let g1 = classical::gaussian_mi(cubic(&x).as_view(), cubic(&y).as_view()).unwrap();
    assert!((g0 - g1).abs() > 0.1, "{g0} {g1}");
}

/// On the cubic task the copula estimate recovers the MI within its standard error; the
/// Gaussian estimate, fooled by the non-linear map, does not.
#[test]
fn copula_recovers_mi_on_transformed_tasks() {
    for (seed, xm, ym) in [(1u64, None, Some(Transform::Cubic)), (2, Some(Transform::Asinh), Some(Transform::Cubic))] {
        let task = Transformed::new(CorrelatedGaussian::with_mi(2, 1.0).unwrap(), xm, ym);
        let (x, y) = task.sample(5000, &mut rng(seed));
        let c = build("copula").estimate(x.as_view(), y.as_view(), seed).unwrap();
        let g = build("gaussian").estimate(x.as_view(), y.as_view(), seed).unwrap();
        let truth = task.true_mi();
        eprintln!(
            "{}: true {truth:.4}, copula {:.4} (sd {:.4}), gaussian {:.4}",
            task.name(),
            c.value,
            subsample_sd(&c),
            g.value
        );
        assert!((c.value - truth).abs() < 4.0 * subsample_sd(&c), "copula {} vs {truth}", c.value);
        assert!((g.value - truth).abs() > 4.0 * subsample_sd(&g), "gaussian {} vs {truth}", g.value);
    }
}

/// KSG in low dimension: within 4 subsampling standard errors of the truth, both variants, on
/// the Gaussian and on the cubic task (KSG is invariant to the map only in the limit).
#[test]
fn ksg_is_accurate_in_low_dimension() {
    let tasks: Vec<Box<dyn Sampler>> = vec![
        Box::new(CorrelatedGaussian::with_mi(1, 0.5).unwrap()),
        Box::new(CorrelatedGaussian::with_mi(2, 1.0).unwrap()),
        Box::new(Transformed::cubic_y(CorrelatedGaussian::with_mi(1, 0.5).unwrap())),
    ];
    for (t, task) in tasks.iter().enumerate() {
        let (x, y) = task.sample(4000, &mut rng(20 + t as u64));
        for name in ["ksg:k=5", "ksg:k=5:variant=2", "ksg:k=3"] {
            let e = build(name).estimate(x.as_view(), y.as_view(), 3).unwrap();
            let truth = task.true_mi();
            eprintln!(
                "{} {name}: true {truth:.4}, estimate {:.4} (sd {:.4}) {:?}",
                task.name(),
                e.value,
                subsample_sd(&e),
                e.interval
            );
            assert!((e.value - truth).abs() < 4.0 * subsample_sd(&e), "{} {name}: {} vs {truth}", task.name(), e.value);
            assert!(e.interval.method.starts_with("subsampling"));
        }
    }
}

/// KSG's known downward bias in high dimension, shown rather than hidden: 10 + 10 dimensions at
/// 5 nats, n = 2000. The Gaussian estimate on the same data is right; the KSG estimator warns.
#[test]
fn ksg_bias_in_high_dimension_is_shown() {
    let task = CorrelatedGaussian::with_mi(10, 5.0).unwrap();
    let (x, y) = task.sample(2000, &mut rng(77));
    let mut ksg = classical::Ksg::new(5, KsgVariant::Ksg1).unwrap();
    ksg.subsamples = 20;
    let e = ksg.estimate(x.as_view(), y.as_view(), 1).unwrap();
    let g = build("gaussian").estimate(x.as_view(), y.as_view(), 1).unwrap();
    let truth = task.true_mi();
    eprintln!("10+10 dims, true {truth}: KSG-1 {:.3} {:?}; gaussian {:.3}", e.value, e.interval, g.value);
    assert!(e.value < 0.8 * truth, "KSG at 20 joint dimensions should be biased low: {}", e.value);
    assert!(!e.interval.contains(truth), "the interval does not cover the bias: {:?}", e.interval);
    assert!(
        e.diagnostics.warnings.iter().any(|w| w.code == WarningCode::HighDimension && w.message.contains("bias")),
        "{:?}",
        e.diagnostics.warnings
    );
    assert!((g.value - truth).abs() < 4.0 * subsample_sd(&g), "gaussian {}", g.value);
}

/// The interval has close to its nominal coverage where the estimator is unbiased (Gaussian on
/// normal data), is reproducible from the seed and changes with it.
#[test]
fn subsampling_interval_covers_and_is_seeded() {
    let task = CorrelatedGaussian::with_mi(2, 0.8).unwrap();
    let mut g = rng(31);
    let reps = 300;
    let mut covered = 0;
    for r in 0..reps {
        let (x, y) = task.sample(200, &mut g);
        let e = build("gaussian").estimate(x.as_view(), y.as_view(), r).unwrap();
        covered += usize::from(e.interval.contains(task.true_mi()));
    }
    let rate = covered as f64 / reps as f64;
    // Binomial standard error at 0.95 with 300 draws is 0.0126; allow 4 of them either way.
    eprintln!("gaussian interval coverage {rate:.3}");
    assert!((rate - 0.95).abs() < 4.0 * (0.95f64 * 0.05 / reps as f64).sqrt(), "coverage {rate}");
    let (x, y) = task.sample(500, &mut g);
    let a = build("ksg").estimate(x.as_view(), y.as_view(), 1).unwrap();
    let b = build("ksg").estimate(x.as_view(), y.as_view(), 1).unwrap();
    let c = build("ksg").estimate(x.as_view(), y.as_view(), 2).unwrap();
    assert_eq!((a.value, &a.interval), (b.value, &b.interval));
    assert_ne!(a.interval, c.interval);
    assert!(a.interval.low <= a.value && a.value <= a.interval.high);
    assert!(a.interval.method.contains("without replacement"), "{}", a.interval.method);
}

/// At the fewest rows KSG takes, every half-sample reads the same value whatever the data
/// (8 rows, k = 3: halves of 4 rows, each point's neighbours are all the others): no interval,
/// said so, instead of a zero-width one; on 40 rows of a Gaussian the interval is back.
#[test]
fn no_zero_width_interval_from_identical_half_samples() {
    let x = DMatrix::from_column_slice(8, 1, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
    let y = DMatrix::from_column_slice(8, 1, &[2.0, 1.0, 4.0, 3.0, 6.0, 5.0, 8.0, 7.0]);
    let e = build("ksg:k=3").estimate(x.as_view(), y.as_view(), 0).unwrap();
    assert_eq!((e.interval.low, e.interval.high), (e.value, e.value));
    assert!(e.interval.method.starts_with("none (every one of the"), "{}", e.interval.method);
    assert!(e.diagnostics.warnings.iter().any(|w| w.code == WarningCode::NoInterval), "{:?}", e.diagnostics.warnings);
    let (x, y) = CorrelatedGaussian::with_mi(1, 0.5).unwrap().sample(40, &mut rng(2));
    let e = build("ksg:k=3").estimate(x.as_view(), y.as_view(), 0).unwrap();
    assert!(e.interval.high > e.interval.low, "{:?}", e.interval);
    assert!(!e.diagnostics.warnings.iter().any(|w| w.code == WarningCode::NoInterval));
}

/// The result does not depend on the number of threads.
#[test]
fn ksg_is_identical_on_one_and_two_threads() {
    let task = CorrelatedGaussian::with_mi(3, 1.0).unwrap();
    let (x, y) = task.sample(3000, &mut rng(4));
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            [KsgVariant::Ksg1, KsgVariant::Ksg2].map(|v| classical::ksg_mi(x.as_view(), y.as_view(), 4, v).unwrap())
        })
    };
    assert_eq!(run(1), run(2));
}

/// Kozachenko–Leonenko against the analytic entropy of a normal, both norms: in one and two
/// dimensions the mean of replicates is within 4 standard errors; in three dimensions its
/// known bias (density curvature over the neighbour ball, shrinking like `(k/n)^{2/d}`) is
/// visible at n = 2000 and must shrink, by more than 3 standard errors, when n grows eightfold.
#[test]
fn kozachenko_leonenko_recovers_gaussian_entropy() {
    let entropy = |d: usize| 0.5 * d as f64 * (2.0 * std::f64::consts::PI * std::f64::consts::E).ln();
    let replicate = |d: usize, n: usize, reps: usize, norm: EntropyNorm, seed: u64| {
        let mut g = rng(seed);
        let vals: Vec<f64> = (0..reps)
            .map(|_| {
                let x =
                    DMatrix::from_fn(n, d, |_, _| rand::RngExt::sample::<f64, _>(&mut g, rand_distr::StandardNormal));
                classical::kl_entropy(x.as_view(), 5, norm).unwrap()
            })
            .collect();
        mean_se(&vals)
    };
    for norm in [EntropyNorm::Max, EntropyNorm::Euclidean] {
        for d in [1, 2] {
            let (m, se) = replicate(d, 4000, 30, norm, 8);
            eprintln!("KL {norm:?} d={d}: true {:.4}, mean {m:.4} ± {se:.4}", entropy(d));
            assert!((m - entropy(d)).abs() < 4.0 * se, "{norm:?} d={d}: {m} vs {}", entropy(d));
        }
        let (small, se_small) = replicate(3, 2000, 100, norm, 9);
        let (large, se_large) = replicate(3, 16000, 20, norm, 10);
        let (e_small, e_large) = (small - entropy(3), large - entropy(3));
        eprintln!(
            "KL {norm:?} d=3: error {e_small:.4} ± {se_small:.4} at n=2000, {e_large:.4} ± {se_large:.4} at n=16000"
        );
        let se = (se_small * se_small + se_large * se_large).sqrt();
        assert!(e_small.abs() - e_large.abs() > 3.0 * se, "{norm:?}: the error should shrink: {e_small} → {e_large}");
    }
}

/// The Gaussian (CCA) estimate on bmi's Student-t task with ν = 1 read 8.4 nats (true 0.43) in
/// the default benchmark: it must say that heavy tails make it unreliable, and must not say so
/// on Gaussian data of the same size.
#[test]
fn gaussian_estimate_warns_about_heavy_tails() {
    use mibound::estimators::{Estimator, classical::Gaussian};
    let warned = |id: &str| {
        let (x, y) = mibound::tasks::get(id).unwrap().draw(5000, 0).unwrap();
        let e = Gaussian::default().estimate(x.as_view(), y.as_view(), 0).unwrap();
        e.diagnostics.warnings.iter().any(|w| w.code == WarningCode::HeavyTails && w.message.starts_with("heavy tails"))
    };
    assert!(warned("student-identity-2-2-1"), "no heavy-tail warning on Student-t with ν = 1");
    assert!(!warned("multinormal-dense-2-2-0.5"), "a heavy-tail warning on Gaussian data");
}
