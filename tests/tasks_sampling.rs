//! Sampling of the task suite: reproducibility, moments and marginals against their
//! definitions (4 standard errors computed from the samples, fixed seeds), invertibility of the
//! maps on their samples and invariance of the optimal critic, independence of the `indep-`
//! twins.

use mibound::data::{Sampler, rng};
use mibound::tasks::{self, BenchmarkTask, NormalMixture};
use nalgebra::DMatrix;
use statrs::distribution::{ContinuousCDF, FisherSnedecor, StudentsT};

fn get(id: &str) -> BenchmarkTask {
    tasks::get(id).unwrap_or_else(|e| panic!("{id}: {e}"))
}

fn joint(x: &DMatrix<f64>, y: &DMatrix<f64>) -> DMatrix<f64> {
    let mut z = DMatrix::zeros(x.nrows(), x.ncols() + y.ncols());
    z.columns_mut(0, x.ncols()).copy_from(x);
    z.columns_mut(x.ncols(), y.ncols()).copy_from(y);
    z
}

/// Mean and standard error of `v`.
fn mean_se(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|a| (a - m) * (a - m)).sum::<f64>() / (n - 1.0);
    (m, (var / n).sqrt())
}

/// Asserts that the fraction of `v ≤ t` is within 4 binomial standard errors of `p`.
fn assert_fraction(what: &str, v: impl Iterator<Item = f64>, t: f64, p: f64) {
    let v: Vec<f64> = v.collect();
    let n = v.len() as f64;
    let frac = v.iter().filter(|&&a| a <= t).count() as f64 / n;
    let se = (p * (1.0 - p) / n).sqrt();
    assert!((frac - p).abs() <= 4.0 * se, "{what}: P(≤ {t}) = {frac:.4}, expected {p:.4} ± 4·{se:.4}");
}

#[test]
fn the_same_seed_gives_the_same_samples_for_every_id() {
    for id in tasks::all_ids() {
        let t = get(&id);
        let (x1, y1) = t.draw(64, 11).unwrap();
        let (x2, y2) = t.draw(64, 11).unwrap();
        assert_eq!((x1.shape(), y1.shape()), ((64, t.dim_x()), (64, t.dim_y())), "{id}");
        assert!(x1 == x2 && y1 == y2, "{id}: same seed, different samples");
        let (x3, y3) = t.draw(64, 12).unwrap();
        assert!(x1 != x3 && y1 != y3, "{id}: another seed gave the same samples");
        assert!(x1.iter().chain(y1.iter()).all(|v| v.is_finite()), "{id}: non-finite sample");
    }
}

/// bmi's covariance, written out from its definition: dense `c` off the diagonal, sparse
/// `λ²/(1 + λ²)` between `x_i` and `y_i` for `i < k`.
fn expected_cov(id: &str, dx: usize, a: usize, b: usize) -> f64 {
    if a == b {
        return 1.0;
    }
    if let Some(r) = id.strip_prefix("multinormal-dense-") {
        return r.rsplit('-').next().unwrap().parse().unwrap();
    }
    if let Some(r) = id.strip_prefix("multinormal-sparse-") {
        let f: Vec<&str> = r.split('-').collect();
        let (k, s): (usize, f64) = (f[2].parse().unwrap(), f[3].parse().unwrap());
        let (lo, hi) = (a.min(b), a.max(b));
        return if lo < k && hi == dx + lo { s * s / (1.0 + s * s) } else { 0.0 };
    }
    let rho: f64 = id.strip_prefix("1v1-normal-").unwrap().parse().unwrap();
    rho
}

#[test]
fn normal_families_have_their_covariance() {
    let n = 20_000;
    for (seed, id) in [
        "1v1-normal-0.75",
        "multinormal-dense-2-2-0.5",
        "multinormal-dense-3-3-0.5",
        "multinormal-dense-5-5-0.5",
        "multinormal-dense-25-25-0.5",
        "multinormal-dense-50-50-0.5",
        "multinormal-sparse-2-2-2-2.0",
        "multinormal-sparse-3-3-2-2.0",
        "multinormal-sparse-5-5-2-2.0",
        "multinormal-sparse-25-25-2-2.0",
        "multinormal-sparse-5-5-5-10.0",
    ]
    .iter()
    .enumerate()
    {
        let t = get(id);
        let (x, y) = t.draw(n, 100 + seed as u64).unwrap();
        let z = joint(&x, &y);
        let (d, dx) = (z.ncols(), t.dim_x());
        // Every entry up to 10 coordinates; beyond, the diagonal, the first row and every
        // (x_i, y_i) pair.
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        if d <= 10 {
            pairs.extend((0..d).flat_map(|a| (a..d).map(move |b| (a, b))));
        } else {
            pairs.extend((0..d).map(|a| (a, a)));
            pairs.extend((1..d).map(|b| (0, b)));
            pairs.extend((1..dx).map(|a| (a, dx + a)));
        }
        for (a, b) in pairs {
            let prod: Vec<f64> = (0..n).map(|i| z[(i, a)] * z[(i, b)]).collect();
            let (m, se) = mean_se(&prod);
            let want = expected_cov(id, dx, a, b);
            assert!((m - want).abs() <= 4.0 * se, "{id}: cov({a}, {b}) = {m:.4}, expected {want} ± 4·{se:.4}");
        }
        // Means are zero.
        for a in 0..d.min(10) {
            let (m, se) = mean_se(&z.column(a).iter().copied().collect::<Vec<_>>());
            assert!(m.abs() <= 4.0 * se, "{id}: mean of coordinate {a} = {m}");
        }
    }
}

#[test]
fn student_t_tasks_have_f_distributed_norms_and_t_marginals() {
    // For t_ν(0, I_k), ‖v‖²/k ~ F(k, ν): checked on x, on y and on (x, y) at three quantiles.
    let n = 20_000;
    for (seed, id) in tasks::all_ids().iter().filter(|i| i.starts_with("student-identity-")).enumerate() {
        let t = get(id);
        let df: f64 = id.rsplit('-').next().unwrap().parse().unwrap();
        let (x, y) = t.draw(n, 200 + seed as u64).unwrap();
        for (part, m) in [("x", x.clone()), ("y", y.clone()), ("(x, y)", joint(&x, &y))] {
            let k = m.ncols() as f64;
            let f = FisherSnedecor::new(k, df).unwrap();
            for q in [0.1, 0.5, 0.9] {
                let norms = m.row_iter().map(|r| r.norm_squared() / k);
                assert_fraction(&format!("{id} {part}"), norms, f.inverse_cdf(q), q);
            }
        }
    }
    // A sparse dispersion has unit diagonal: every coordinate is a univariate t_ν.
    for df in [1.0, 2.0, 3.0] {
        let id = format!("student-sparse-5-5-{df}-2-2.0");
        let (x, y) = get(&id).draw(n, 300).unwrap();
        let t = StudentsT::new(0.0, 1.0, df).unwrap();
        for (part, col) in [("x0", x.column(0)), ("y4", y.column(4))] {
            for q in [0.1, 0.5, 0.9] {
                assert_fraction(&format!("{id} {part}"), col.iter().copied(), t.inverse_cdf(q), q);
            }
        }
    }
}

#[test]
fn additive_uniform_noise_is_uniform_and_bounded() {
    let n = 20_000;
    for eps in [0.1, 0.75] {
        let id = format!("1v1-additive-{eps}");
        let (x, y) = get(&id).draw(n, 400).unwrap();
        let noise: Vec<f64> = (0..n).map(|i| y[(i, 0)] - x[(i, 0)]).collect();
        assert!(x.iter().all(|&v| (0.0..1.0).contains(&v)), "{id}: x outside [0, 1)");
        assert!(noise.iter().all(|v| v.abs() <= eps + 1e-12), "{id}: |y − x| > ε");
        let (m, se) = mean_se(&noise);
        assert!(m.abs() <= 4.0 * se, "{id}: noise mean {m}");
        // Var N = ε²/3.
        let sq: Vec<f64> = noise.iter().map(|v| v * v).collect();
        let (v, se) = mean_se(&sq);
        assert!((v - eps * eps / 3.0).abs() <= 4.0 * se, "{id}: noise variance {v}");
        for q in [0.25, 0.5, 0.75] {
            assert_fraction(&id, x.iter().copied(), q, q);
        }
    }
}

#[test]
fn transformed_marginals_have_their_distributions() {
    let n = 20_000;
    // Φ of a standard normal is uniform on (0, 1).
    let (x, y) = get("normal_cdf-1v1-normal-0.75").draw(n, 500).unwrap();
    for q in [0.1, 0.5, 0.9] {
        assert_fraction("normal_cdf x", x.iter().copied(), q, q);
        assert_fraction("normal_cdf y", y.iter().copied(), q, q);
    }
    // bmi's bimodal marginals: 0.3 N(0,1) + 0.7 N(5,1) and 0.5 N(−1,1) + 0.5 N(3,1), with the CDF
    // written out here from the definition.
    let phi = |v: f64| 0.5 * statrs::function::erf::erfc(-v / std::f64::consts::SQRT_2);
    let (x, y) = get("1v1-bimodal-0.75").draw(n, 501).unwrap();
    for t in [-1.0, 0.5, 2.5, 4.0, 5.0, 6.5] {
        assert_fraction("bimodal x", x.iter().copied(), t, 0.3 * phi(t) + 0.7 * phi(t - 5.0));
        assert_fraction("bimodal y", y.iter().copied(), t, 0.5 * phi(t + 1.0) + 0.5 * phi(t - 3.0));
    }
    assert_eq!(NormalMixture::bimodal_x().cdf(2.5), 0.3 * phi(2.5) + 0.7 * phi(-2.5));
    // The swiss roll lies on the spiral of radius t/21, t = 1.5π(1 + 2u), u ∈ (0, 1).
    let (x, _) = get("swissroll_x-normal_cdf-1v1-normal-0.75").draw(n, 502).unwrap();
    let pi = std::f64::consts::PI;
    for r in x.row_iter() {
        let t = 21.0 * r.norm();
        assert!(t > 1.5 * pi && t < 4.5 * pi, "radius {t}");
        assert!((r[0] - t * t.cos() / 21.0).abs() < 1e-12 && (r[1] - t * t.sin() / 21.0).abs() < 1e-12);
    }
    // Half-cube, asinh, spiral: the spiral keeps norms, the others are monotone maps, so the
    // fraction below the image of a base quantile is the quantile.
    let (bx, by) = get("multinormal-sparse-5-5-2-2.0").draw(2000, 503).unwrap();
    let (sx, sy) = get("spiral-multinormal-sparse-5-5-2-2.0").draw(2000, 503).unwrap();
    for (b, s) in [(&bx, &sx), (&by, &sy)] {
        for (rb, rs) in b.row_iter().zip(s.row_iter()) {
            assert!((rb.norm() - rs.norm()).abs() < 1e-12 * (1.0 + rb.norm()));
        }
    }
    assert!((&bx - &sx).amax() > 0.1, "the spiral moved nothing");
}

fn close(a: &DMatrix<f64>, b: &DMatrix<f64>, tol: f64) -> bool {
    a.shape() == b.shape()
        && a.iter().zip(b.iter()).all(|(p, q)| p == q || (p - q).abs() <= tol * (1.0 + p.abs().max(q.abs())))
}

#[test]
fn maps_are_invertible_on_their_samples_and_keep_the_optimal_critic() {
    let n = 1000;
    let mut checked = 0;
    for (seed, id) in tasks::all_ids().iter().enumerate() {
        let t = get(id);
        let Some(chain) = t.chain() else { continue };
        let base = get(&chain.base_id);
        let seed = 600 + seed as u64;
        let (bx, by) = base.draw(n, seed).unwrap();
        let (tx, ty) = t.draw(n, seed).unwrap();
        // The task's samples are the base samples pushed through the chain ...
        let (fx, fy) = chain.forward(&bx, &by).unwrap();
        assert!(fx == tx && fy == ty, "{id}: samples are not the mapped base samples");
        // ... the chain inverts on them ...
        let (ix, iy) = chain.inverse(&tx, &ty).unwrap();
        assert!(close(&ix, &bx, 1e-9) && close(&iy, &by, 1e-9), "{id}: inverse: {}", (&ix - &bx).amax());
        // ... and the optimal critic is the base critic at the base points.
        let m = 64;
        let (sx, sy) = (tx.rows(0, m).into_owned(), ty.rows(0, m).into_owned());
        let st = t.optimal_critic(&sx, &sy).expect("critic");
        let sb = base.optimal_critic(&bx.rows(0, m).into_owned(), &by.rows(0, m).into_owned()).expect("critic");
        assert!(close(&st, &sb, 1e-7), "{id}: critic differs by {}", (&st - &sb).amax());
        // The maps change the samples (so the checks above are not vacuous).
        assert!(tx.shape() != bx.shape() || (&tx - &bx).amax() > 1e-3 || (&ty - &by).amax() > 1e-3, "{id}");
        checked += 1;
    }
    assert!(checked >= 25, "only {checked} transformed tasks");
}

/// Spearman's rank correlation of two columns, with tied values given their mean rank (the
/// discrete tasks — class labels, pixels, an atom at 0 — have many ties; ranking ties in row
/// order would correlate any two such columns through the row order).
fn spearman(a: &[f64], b: &[f64]) -> f64 {
    let rank = |v: &[f64]| {
        let mut idx: Vec<usize> = (0..v.len()).collect();
        idx.sort_by(|&i, &j| v[i].total_cmp(&v[j]));
        let mut r = vec![0.0; v.len()];
        let mut k = 0;
        while k < idx.len() {
            let mut e = k;
            while e + 1 < idx.len() && v[idx[e + 1]] == v[idx[k]] {
                e += 1;
            }
            idx[k..=e].iter().for_each(|&i| r[i] = 0.5 * (k + e) as f64);
            k = e + 1;
        }
        r
    };
    let (ra, rb) = (rank(a), rank(b));
    let n = a.len() as f64;
    let m = (n - 1.0) / 2.0;
    let cov: f64 = ra.iter().zip(&rb).map(|(p, q)| (p - m) * (q - m)).sum();
    let va: f64 = ra.iter().map(|p| (p - m) * (p - m)).sum();
    let vb: f64 = rb.iter().map(|q| (q - m) * (q - m)).sum();
    cov / (va * vb).sqrt()
}

#[test]
fn independent_twins_keep_the_marginals_and_lose_the_dependence() {
    let n = 4000;
    // Under independence Spearman's ρ has standard deviation 1/√(n − 1).
    let se = 1.0 / ((n - 1) as f64).sqrt();
    for (seed, id) in tasks::all_ids().iter().filter(|i| i.starts_with("indep-")).enumerate() {
        let t = get(id);
        let base = get(id.strip_prefix("indep-").unwrap());
        let seed = 700 + seed as u64;
        let (x, y) = t.draw(n, seed).unwrap();
        // x is the first joint draw's x, y the second joint draw's y.
        let mut g = rng(seed);
        let (x1, _) = base.sample(n, &mut g);
        let (_, y2) = base.sample(n, &mut g);
        assert!(x == x1 && y == y2, "{id}");
        // The first non-constant coordinates are rank-uncorrelated, and so are their magnitudes
        // (which is where the Student-t tasks' dependence lives). (The digits' first pixels are
        // always 0.)
        let varying = |m: &DMatrix<f64>| {
            (0..m.ncols()).find(|&c| m.column(c).iter().any(|&v| v != m[(0, c)])).expect("a varying column")
        };
        let (a, b): (Vec<f64>, Vec<f64>) =
            (x.column(varying(&x)).iter().copied().collect(), y.column(varying(&y)).iter().copied().collect());
        let r = spearman(&a, &b);
        assert!(r.abs() <= 4.0 * se, "{id}: Spearman {r}");
        let (aa, ba): (Vec<f64>, Vec<f64>) = (a.iter().map(|v| v.abs()).collect(), b.iter().map(|v| v.abs()).collect());
        let r = spearman(&aa, &ba);
        assert!(r.abs() <= 4.0 * se, "{id}: Spearman of |·| {r}");
    }
    // The same statistics see the dependence of the dependent tasks.
    for id in ["1v1-normal-0.75", "student-identity-1-1-1", "1v1-bimodal-0.75", "gao-uniform-5"] {
        let (x, y) = get(id).draw(n, 800).unwrap();
        let (a, b): (Vec<f64>, Vec<f64>) =
            (x.column(0).iter().map(|v| v.abs()).collect(), y.column(0).iter().map(|v| v.abs()).collect());
        assert!(spearman(&a, &b).abs() > 4.0 * se, "{id}: dependence not seen");
    }
}

#[test]
fn the_new_families_sample_their_definitions() {
    let n = 20_000;
    // Digits: the classes of x and y agree with probability 1 − ε, for every pair side by side,
    // and the class of x is uniform.
    let imgs = tasks::digit_images();
    for (id, eps, pairs) in [("digits-0.3", 0.3, 1), ("digits_x2-0.6", 0.6, 2)] {
        let (x, y) = get(id).draw(n, 900).unwrap();
        for p in 0..pairs {
            let class = |m: &DMatrix<f64>, i: usize| {
                let v: Vec<f64> = m.row(i).iter().skip(64 * p).take(64).copied().collect();
                imgs.class_of(&v).expect("a bundled image")
            };
            let same = (0..n).map(|i| if class(&x, i) == class(&y, i) { 0.0 } else { 1.0 });
            assert_fraction(&format!("{id} pair {p}: same class"), same, 0.5, 1.0 - eps);
            assert_fraction(&format!("{id} pair {p}: class of x"), (0..n).map(|i| class(&x, i) as f64), 2.5, 0.3);
        }
    }
    // Class labels: uniform on {0, …, K−1}; y's first coordinate has mean k given class k (σ = 0.5).
    let (x, y) = get("classes-4-1-0.5").draw(n, 901).unwrap();
    assert!(x.iter().all(|&v| [0.0, 1.0, 2.0, 3.0].contains(&v)));
    assert_fraction("classes x", x.iter().copied(), 1.5, 0.5);
    for k in 0..4 {
        let r: Vec<f64> = (0..n).filter(|&i| x[(i, 0)] == k as f64).map(|i| y[(i, 0)] - k as f64).collect();
        let (m, se) = mean_se(&r);
        assert!(m.abs() <= 4.0 * se, "class {k}: mean offset {m}");
    }
    // Gao et al.: y − x ~ U[0, 2].
    let (x, y) = get("gao-uniform-5").draw(n, 902).unwrap();
    let d: Vec<f64> = (0..n).map(|i| y[(i, 0)] - x[(i, 0)]).collect();
    assert!(d.iter().all(|v| (0.0..=2.0).contains(v)));
    assert_fraction("gao y − x", d.iter().copied(), 0.5, 0.25);
    // Mixtures on the diagonal: every coordinate has mean 0 and variance σ² + (K² − 1)/12.
    let (x, y) = get("mixture-diag-2-1-4-0.25").draw(n, 903).unwrap();
    for col in [x.column(0), x.column(1), y.column(0)] {
        let sq: Vec<f64> = col.iter().map(|v| v * v).collect();
        let (v, se) = mean_se(&sq);
        let want = 0.25f64.powi(2) + 15.0 / 12.0;
        assert!((v - want).abs() <= 4.0 * se, "variance {v} vs {want}");
    }
    // The X-shaped mixture: uncorrelated coordinates, correlated squares.
    let (x, y) = get("mixture-cross-0.9").draw(n, 904).unwrap();
    let (m, se) = mean_se(&(0..n).map(|i| x[(i, 0)] * y[(i, 0)]).collect::<Vec<_>>());
    assert!(m.abs() <= 4.0 * se, "cross covariance {m}");
    // Zero inflation: the fraction of zero rows of y is p; x is untouched.
    let (x, y) = get("zero_inflated-0.3-1v1-normal-0.9").draw(n, 905).unwrap();
    let zero = (0..n).map(|i| if y[(i, 0)] == 0.0 { 0.0 } else { 1.0 });
    assert_fraction("zero-inflated", zero, 0.5, 0.3);
    assert!(x.iter().all(|&v| v != 0.0));
    // Additive noise on normal x: |y − x| ≤ ε and x has unit variance.
    let (x, y) = get("additive-normal-3-2.0").draw(n, 906).unwrap();
    assert!((&y - &x).amax() <= 2.0);
    let (v, se) = mean_se(&x.column(2).iter().map(|v| v * v).collect::<Vec<_>>());
    assert!((v - 1.0).abs() <= 4.0 * se, "{v}");
    // The rotations are orthogonal, and differ between x and y.
    for d in [2, 5, 64] {
        let q = tasks::random_orthogonal(d, 7);
        assert!((q.transpose() * &q - DMatrix::<f64>::identity(d, d)).amax() < 1e-12);
    }
    assert!((tasks::random_orthogonal(5, 1005) - tasks::random_orthogonal(5, 2005)).amax() > 0.1);
}
