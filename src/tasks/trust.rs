//! The trust suite: data that real users have and that break estimators silently — repeated
//! rows, blocks whose relation another block modulates, high MI per dimension, tiny samples,
//! heavy tails, values censored at a detection limit, class labels left undeclared, and independent data of each kind — each with its
//! exact MI (the formula is on each case). `tests/estimate_trust_suite.rs` runs the default
//! estimate on every case as a user's call makes it (the data rules, then `auto`) and counts per
//! family the silent failures (an error above `max(0.25, 25 %)` of the truth with no warning),
//! the unwarned false "dependence detected" on independent data, and the false alarms (a
//! warning on a reading within that tolerance); docs/trust.md has the table.
//!
//! Within each family the cases alternate between the tuning and the held-out half, starting
//! with the tuning half ([`TrustCase::split`]): defaults are chosen on the tuning half only.

use super::Split;
use crate::data::{mi_to_rho, rng};
use crate::rng::{Rng, derive_seed};
use nalgebra::DMatrix;
use rand_distr::{Distribution, StandardNormal};

/// `½ ln 2`: `I(x; x + e)` for independent standard normal `x` and `e`.
const HALF_LN2: f64 = 0.346_573_590_279_972_6;

/// Draws a case's rows: `(n, generator) → (x, y)`.
type Draw = fn(usize, &mut dyn Rng) -> (DMatrix<f64>, DMatrix<f64>);

/// One case of the trust suite.
#[derive(Clone, Copy)]
pub struct TrustCase {
    /// A stable id, `family/name`.
    pub id: &'static str,
    /// The family (`repeats`, `interaction`, `high-mi`, `tiny-n`, `heavy-tails`, `censoring`,
    /// `labels`, `independent`).
    pub family: &'static str,
    /// The true MI in nats (the formula is in the case's generator's comment).
    pub truth: f64,
    /// Rows drawn.
    pub n: usize,
    /// Which half.
    pub split: Split,
    draw: Draw,
}

impl std::fmt::Debug for TrustCase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (I = {:.4}, n = {}, {})", self.id, self.truth, self.n, self.split.name())
    }
}

impl TrustCase {
    /// The case's `n` rows drawn with `seed`.
    pub fn draw(&self, seed: u64) -> (DMatrix<f64>, DMatrix<f64>) {
        (self.draw)(self.n, &mut rng(derive_seed(seed, self.id)))
    }
}

fn normal(g: &mut dyn Rng) -> f64 {
    StandardNormal.sample(g)
}

/// `n` rows of `d` independent standard normals.
fn noise(n: usize, d: usize, g: &mut dyn Rng) -> DMatrix<f64> {
    DMatrix::from_fn(n, d, |_, _| normal(g))
}

/// `d` pairs `(x_j, y_j)` of correlation `ρ` (`I = −d/2 · ln(1 − ρ²)`).
fn pairs(n: usize, d: usize, rho: f64, g: &mut dyn Rng) -> (DMatrix<f64>, DMatrix<f64>) {
    let x = noise(n, d, g);
    let e = noise(n, d, g);
    let y = DMatrix::from_fn(n, d, |i, j| rho * x[(i, j)] + (1.0 - rho * rho).sqrt() * e[(i, j)]);
    (x, y)
}

/// Every row of `m` `times` times in a row block (the data appended to itself).
fn repeated(m: &DMatrix<f64>, times: usize) -> DMatrix<f64> {
    DMatrix::from_fn(m.nrows() * times, m.ncols(), |i, j| m[(i % m.nrows(), j)])
}

/// `m` with a normal jitter of sd 10⁻⁶ on every value.
fn jittered(mut m: DMatrix<f64>, g: &mut dyn Rng) -> DMatrix<f64> {
    m.iter_mut().for_each(|v| *v += 1e-6 * normal(g));
    m
}

/// The Cauchy quantile of a standard normal's CDF: a strictly increasing map (MI unchanged).
fn cauchy(z: f64) -> f64 {
    let u = super::normal_cdf(z).clamp(1e-15, 1.0 - 1e-15);
    (std::f64::consts::PI * (u - 0.5)).tan()
}

/// The standard normal density.
fn normal_pdf(z: f64) -> f64 {
    (-0.5 * z * z).exp() / (2.0 * std::f64::consts::PI).sqrt()
}

/// `∫ f` over `[lo, lo + steps·10⁻³]` by the trapezoid rule at step 10⁻³.
fn trapezoid(lo: f64, steps: usize, f: impl Fn(f64) -> f64) -> f64 {
    const STEP: f64 = 1e-3;
    (0..=steps).map(|k| if k == 0 || k == steps { 0.5 } else { 1.0 } * f(lo + k as f64 * STEP) * STEP).sum()
}

/// The entropy (nats) of a mixture of unit-variance normals at `means` with equal weights,
/// by the trapezoid rule on a grid of step 10⁻³ over the means ± 12 (error far below 10⁻⁶).
fn normal_mixture_entropy(means: &[f64]) -> f64 {
    let lo = means.iter().copied().fold(f64::INFINITY, f64::min) - 12.0;
    let hi = means.iter().copied().fold(f64::NEG_INFINITY, f64::max) + 12.0;
    let k = means.len() as f64;
    let density = |x: f64| means.iter().map(|m| normal_pdf(x - m)).sum::<f64>() / k;
    trapezoid(lo, ((hi - lo) / 1e-3) as usize, |x| {
        let p = density(x);
        if p > 0.0 { -p * p.ln() } else { 0.0 }
    })
}

/// `I(c; x)` for a class `c` uniform on `K` classes and `x | c ~ N(μ_c, 1)`:
/// `h(x) − ½ ln(2πe)` with `h(x)` by the trapezoid rule on a grid of step 10⁻³ over the means ± 12.
pub fn class_mi(means: &[f64]) -> f64 {
    normal_mixture_entropy(means) - 0.5 * (2.0 * std::f64::consts::PI * std::f64::consts::E).ln()
}

/// `I(x; max(y, b))` for a standard normal pair of correlation `ρ` (`y` censored below `b`, as a
/// detection limit records it). With `μ = ρx`, `s² = 1 − ρ²`, `α = (b − μ)/s` and
/// `Q = 1 − Φ(α)`: the rows above the limit carry
/// `E[1{y>b} ln p(y|x)/p(y)] = −½ ln s²·Q − ½(Q + αφ(α)) + ½(s²(Q + αφ(α)) + 2μsφ(α) + μ²Q)`
/// (the truncated normal's first two moments), the atom at `b` carries
/// `Φ(α) ln(Φ(α)/Φ(b))`; the sum is averaged over `x ~ N(0, 1)` by the trapezoid rule at step
/// 10⁻³ over ±12 (error far below 10⁻⁶; the Monte Carlo test below checks it).
pub fn censored_mi(rho: f64, b: f64) -> f64 {
    trapezoid(-12.0, 24_000, |x| normal_pdf(x) * censored_integrand(rho, b, x))
}

/// `E[ln p(y_c | x)/p(y_c) | x]` for `y_c = max(y, b)` ([`censored_mi`]'s integrand).
fn censored_integrand(rho: f64, b: f64, x: f64) -> f64 {
    use super::normal_cdf;
    let s2 = 1.0 - rho * rho;
    let s = s2.sqrt();
    let mu = rho * x;
    let a = (b - mu) / s;
    let (q, f) = (1.0 - normal_cdf(a), normal_pdf(a));
    let second = q + a * f;
    let above = -0.5 * s2.ln() * q - 0.5 * second + 0.5 * (s2 * second + 2.0 * mu * s * f + mu * mu * q);
    let p = normal_cdf(a);
    let atom = if p > 0.0 { p * (p / normal_cdf(b)).ln() } else { 0.0 };
    above + atom
}

/// `I(max(x, 0); max(y, 0))` for a standard normal pair of correlation `ρ`: both sides censored
/// at their medians (zero-inflated data: the rows with both at 0 are an atom of mass
/// `P₀₀ = ¼ + asin(ρ)/(2π)`). The rows with `x > 0` carry [`censored_mi`]'s integrand at
/// `b = 0` over `x > 0`; the rows with `x` at 0 and `y > 0` carry
/// `∫_{y>0} φ(y) Φ(−ρy/s) ln(2Φ(−ρy/s)) dy`; the atom carries `P₀₀ ln(4P₀₀)`. Trapezoid rule at
/// step 10⁻³ (the Monte Carlo test below checks the sum).
pub fn censored_both_mi(rho: f64) -> f64 {
    use super::normal_cdf;
    let s = (1.0 - rho * rho).sqrt();
    let x_above = trapezoid(0.0, 12_000, |x| normal_pdf(x) * censored_integrand(rho, 0.0, x));
    let x_at_zero = trapezoid(0.0, 12_000, |y| {
        let p = normal_cdf(-rho * y / s);
        if p > 0.0 { normal_pdf(y) * p * (2.0 * p).ln() } else { 0.0 }
    });
    let p00 = 0.25 + rho.asin() / (2.0 * std::f64::consts::PI);
    x_above + x_at_zero + p00 * (4.0 * p00).ln()
}

/// `d` pairs of correlation `ρ` with every `y` column censored below its `q`-quantile: the
/// value `b` is recorded for every row below it, as a detection limit does.
fn censored_pairs(n: usize, d: usize, rho: f64, q: f64, g: &mut dyn Rng) -> (DMatrix<f64>, DMatrix<f64>) {
    let (x, y) = pairs(n, d, rho, g);
    let b = super::normal_quantile(q);
    (x, y.map(|v| v.max(b)))
}

/// `n` rows of `d` independent standard normals censored below their `q`-quantile.
fn censored_noise(n: usize, d: usize, q: f64, g: &mut dyn Rng) -> DMatrix<f64> {
    let b = super::normal_quantile(q);
    noise(n, d, g).map(|v| v.max(b))
}

macro_rules! case {
    ($id:literal, $family:literal, $truth:expr, $n:expr, $draw:expr) => {
        ($id, $family, $truth, $n, $draw as Draw)
    };
}

/// Every case of the trust suite, in suite order.
// Long because it is the suite's table: one entry per case, each with its truth's formula.
pub fn trust_cases() -> Vec<TrustCase> {
    let raw = vec![
        // Repeated rows. The copies carry no information: I is that of the distinct rows'
        // distribution. n counts the distinct rows; the data hold `times` copies of each.
        case!("repeats/independent-1-1-twice", "repeats", 0.0, 1000, |n, g| {
            let (x, y) = (noise(n, 1, g), noise(n, 1, g));
            (repeated(&x, 2), repeated(&y, 2))
        }),
        case!("repeats/gaussian-1-1-twice", "repeats", 0.35, 1000, |n, g| {
            let (x, y) = pairs(n, 1, mi_to_rho(0.35, 1), g);
            (repeated(&x, 2), repeated(&y, 2))
        }),
        case!("repeats/gaussian-1-1-five-times", "repeats", 0.35, 600, |n, g| {
            let (x, y) = pairs(n, 1, mi_to_rho(0.35, 1), g);
            (repeated(&x, 5), repeated(&y, 5))
        }),
        // Two pairs of I = ½ ln 2 each.
        case!("repeats/pairs-2-2-twice", "repeats", 2.0 * HALF_LN2, 1000, |n, g| {
            let (x, y) = pairs(n, 2, std::f64::consts::FRAC_1_SQRT_2, g);
            (repeated(&x, 2), repeated(&y, 2))
        }),
        case!("repeats/independent-5-5-jittered", "repeats", 0.0, 1500, |n, g| {
            let (x, y) = (repeated(&noise(n, 5, g), 2), repeated(&noise(n, 5, g), 2));
            (jittered(x, g), jittered(y, g))
        }),
        case!("repeats/gaussian-3-3-jittered", "repeats", 1.5, 1500, |n, g| {
            let (x, y) = pairs(n, 3, mi_to_rho(1.5, 3), g);
            (jittered(repeated(&x, 2), g), jittered(repeated(&y, 2), g))
        }),
        // A tenth of the rows oversampled twice more (an oversampled class).
        case!("repeats/gaussian-1-1-oversampled", "repeats", 0.5, 2000, |n, g| {
            let (x, y) = pairs(n, 1, mi_to_rho(0.5, 1), g);
            let extra = |m: &DMatrix<f64>| {
                DMatrix::from_fn(n + n / 5, 1, |i, j| if i < n { m[(i, j)] } else { m[((i - n) % (n / 10), j)] })
            };
            (extra(&x), extra(&y))
        }),
        case!("repeats/independent-2-2-five-times", "repeats", 0.0, 400, |n, g| {
            (repeated(&noise(n, 2, g), 5), repeated(&noise(n, 2, g), 5))
        }),
        // Blocks whose relation another block modulates: every correlation across blocks, of
        // columns, squares and products, is 0 by symmetry. y₁ = x₁ + e gives ½ ln 2; given x₁,
        // the second block is a Gaussian channel, so I = ½ ln 2 + I(x₂; y₂ | x₁).
        // Sign flip: y₂ = S x₂ + 0.3 e, S = ±1 by |x₁| ≶ 0.6745 (the median of |x₁|):
        // I(x₂; y₂ | x₁) = ½ ln(1 + 1/0.09).
        case!("interaction/sign-2-2", "interaction", HALF_LN2 + 0.5 * (1.0f64 + 1.0 / 0.09).ln(), 2000, |n, g| {
            let x = noise(n, 2, g);
            let e = noise(n, 2, g);
            let y = DMatrix::from_fn(n, 2, |i, j| match j {
                0 => x[(i, 0)] + e[(i, 0)],
                _ => regime_sign(x[(i, 0)]) * x[(i, 1)] + 0.3 * e[(i, 1)],
            });
            (x, y)
        }),
        // Rotation of (x₂, x₃) by the angle 2x₁, noise 0.1: I(·|x₁) = 2 · ½ ln(1 + 100).
        case!("interaction/rotate-3-3", "interaction", HALF_LN2 + (101.0f64).ln(), 2000, |n, g| {
            let x = noise(n, 3, g);
            let e = noise(n, 3, g);
            let y = DMatrix::from_fn(n, 3, |i, j| {
                let (c, s) = ((2.0 * x[(i, 0)]).cos(), (2.0 * x[(i, 0)]).sin());
                match j {
                    0 => x[(i, 0)] + e[(i, 0)],
                    1 => c * x[(i, 1)] - s * x[(i, 2)] + 0.1 * e[(i, 1)],
                    _ => s * x[(i, 1)] + c * x[(i, 2)] + 0.1 * e[(i, 2)],
                }
            });
            (x, y)
        }),
        // Scale by regime: y₂ = a x₂ + 0.3 e, a = 2 or ½ by |x₁| ≶ 0.6745, each with probability
        // ½: I(x₂; y₂ | x₁) = ½ (½ ln(1 + 4/0.09) + ½ ln(1 + 0.25/0.09)).
        case!(
            "interaction/scale-2-2",
            "interaction",
            HALF_LN2 + 0.25 * ((1.0f64 + 4.0 / 0.09).ln() + (1.0f64 + 0.25 / 0.09).ln()),
            2000,
            |n, g| {
                let x = noise(n, 2, g);
                let e = noise(n, 2, g);
                let y = DMatrix::from_fn(n, 2, |i, j| match j {
                    0 => x[(i, 0)] + e[(i, 0)],
                    _ => (if regime_sign(x[(i, 0)]) > 0.0 { 2.0 } else { 0.5 }) * x[(i, 1)] + 0.3 * e[(i, 1)],
                });
                (x, y)
            }
        ),
        // Swap: (y₂, y₃) = (x₂, x₃) or (x₃, x₂) by the sign of x₁, plus 0.3 e:
        // I(·|x₁) = 2 · ½ ln(1 + 1/0.09).
        case!("interaction/swap-3-3", "interaction", HALF_LN2 + (1.0f64 + 1.0 / 0.09).ln(), 2000, |n, g| {
            let x = noise(n, 3, g);
            let e = noise(n, 3, g);
            let y = DMatrix::from_fn(n, 3, |i, j| {
                let swap = x[(i, 0)] < 0.0;
                match (j, swap) {
                    (0, _) => x[(i, 0)] + e[(i, 0)],
                    (1, false) | (2, true) => x[(i, 1)] + 0.3 * e[(i, j)],
                    _ => x[(i, 2)] + 0.3 * e[(i, j)],
                }
            });
            (x, y)
        }),
        // High MI per dimension. y = x + σe: ½ ln(1 + 1/σ²).
        case!("high-mi/linear-1-1", "high-mi", 0.5 * (1.0f64 + 1e6).ln(), 2000, |n, g| {
            let x = noise(n, 1, g);
            let e = noise(n, 1, g);
            let y = DMatrix::from_fn(n, 1, |i, _| x[(i, 0)] + 1e-3 * e[(i, 0)]);
            (x, y)
        }),
        // y = x² + σe, σ = 10⁻³: h(x²) − h(σe) = h(χ²₁) − ½ ln(2πeσ²) to O(σ), with
        // h(χ²₁) = ½ + ln(2Γ(½)) + ½ ψ(½) = 0.7837571 (ψ(½) = −γ − 2 ln 2).
        case!(
            "high-mi/square-1-1",
            "high-mi",
            0.783_757_1 - 0.5 * (2.0 * std::f64::consts::PI * std::f64::consts::E * 1e-6).ln(),
            2000,
            |n, g| {
                let x = noise(n, 1, g);
                let e = noise(n, 1, g);
                let y = DMatrix::from_fn(n, 1, |i, _| x[(i, 0)] * x[(i, 0)] + 1e-3 * e[(i, 0)]);
                (x, y)
            }
        ),
        // Two pairs y = x + 0.01 e: 2 · ½ ln(1 + 10⁴).
        case!("high-mi/linear-2-2", "high-mi", (1.0f64 + 1e4).ln(), 2000, |n, g| {
            let x = noise(n, 2, g);
            let e = noise(n, 2, g);
            let y = DMatrix::from_fn(n, 2, |i, j| x[(i, j)] + 0.01 * e[(i, j)]);
            (x, y)
        }),
        case!("high-mi/gaussian-1-1-3", "high-mi", 3.0, 2000, |n, g| pairs(n, 1, mi_to_rho(3.0, 1), g)),
        // Tiny samples.
        case!("tiny-n/gaussian-1-1-0.5-n50", "tiny-n", 0.5, 50, |n, g| pairs(n, 1, mi_to_rho(0.5, 1), g)),
        case!("tiny-n/independent-1-1-n30", "tiny-n", 0.0, 30, |n, g| (noise(n, 1, g), noise(n, 1, g))),
        case!("tiny-n/gaussian-2-2-1-n80", "tiny-n", 1.0, 80, |n, g| pairs(n, 2, mi_to_rho(1.0, 2), g)),
        case!("tiny-n/independent-3-3-n60", "tiny-n", 0.0, 60, |n, g| (noise(n, 3, g), noise(n, 3, g))),
        // Heavy tails: Gaussian pairs through the Cauchy quantile (MI unchanged).
        case!("heavy-tails/cauchy-1-1-0.5", "heavy-tails", 0.5, 2000, |n, g| {
            let (x, y) = pairs(n, 1, mi_to_rho(0.5, 1), g);
            (x.map(cauchy), y.map(cauchy))
        }),
        case!("heavy-tails/cauchy-3-3-1.5", "heavy-tails", 1.5, 2000, |n, g| {
            let (x, y) = pairs(n, 3, mi_to_rho(1.5, 3), g);
            (x.map(cauchy), y.map(cauchy))
        }),
        case!("heavy-tails/lognormal-2-2-1", "heavy-tails", 1.0, 2000, |n, g| {
            let (x, y) = pairs(n, 2, mi_to_rho(1.0, 2), g);
            (x.map(|v| (3.0 * v).exp()), y.map(|v| (3.0 * v).exp()))
        }),
        case!("heavy-tails/cauchy-independent-2-2", "heavy-tails", 0.0, 2000, |n, g| {
            (noise(n, 2, g).map(cauchy), noise(n, 2, g).map(cauchy))
        }),
        // Censoring at a detection limit: every y below its q-quantile is recorded as that
        // quantile (a Tobit model at q = ½), so a share q of y's values tie. The pairs are
        // independent of each other, so I adds over them: d · censored_mi(ρ, Φ⁻¹(q)).
        case!("censoring/tobit-1-1", "censoring", censored_mi(mi_to_rho(0.5, 1), 0.0), 2000, |n, g| {
            censored_pairs(n, 1, mi_to_rho(0.5, 1), 0.5, g)
        }),
        case!(
            "censoring/limit-1-1-most",
            "censoring",
            censored_mi(mi_to_rho(1.0, 1), super::normal_quantile(0.7)),
            2000,
            |n, g| { censored_pairs(n, 1, mi_to_rho(1.0, 1), 0.7, g) }
        ),
        case!("censoring/independent-1-1", "censoring", 0.0, 2000, |n, g| {
            (censored_noise(n, 1, 0.3, g), censored_noise(n, 1, 0.3, g))
        }),
        case!("censoring/independent-2-2", "censoring", 0.0, 2000, |n, g| {
            (censored_noise(n, 2, 0.3, g), censored_noise(n, 2, 0.5, g))
        }),
        case!(
            "censoring/limit-3-3",
            "censoring",
            3.0 * censored_mi(mi_to_rho(0.5, 1), super::normal_quantile(0.4)),
            2000,
            |n, g| censored_pairs(n, 3, mi_to_rho(0.5, 1), 0.4, g)
        ),
        case!("censoring/tobit-2-2", "censoring", 2.0 * censored_mi(mi_to_rho(1.0, 1), 0.0), 2000, |n, g| {
            censored_pairs(n, 2, mi_to_rho(1.0, 1), 0.5, g)
        }),
        // Both sides zero-inflated (censored at 0): the rows with both at 0 are an atom.
        case!("censoring/zero-inflated-1-1", "censoring", censored_both_mi(0.8), 2000, |n, g| {
            let (x, y) = pairs(n, 1, 0.8, g);
            (x.map(|v| v.max(0.0)), y.map(|v| v.max(0.0)))
        }),
        case!("censoring/zero-inflated-independent-2-2", "censoring", 0.0, 2000, |n, g| {
            (noise(n, 2, g).map(|v| v.max(0.0)), noise(n, 2, g).map(|v| v.max(0.0)))
        }),
        // Class labels left undeclared: y a class uniform on K, x | y ~ N(μ_y, 1).
        case!("labels/three-classes", "labels", class_mi(&[0.0, 2.0, 4.0]), 2000, |n, g| {
            classes(n, &[0.0, 2.0, 4.0], g)
        }),
        case!("labels/two-classes", "labels", class_mi(&[0.0, 1.0]), 2000, |n, g| classes(n, &[0.0, 1.0], g)),
        case!("labels/five-classes", "labels", class_mi(&[0.0, 1.5, 3.0, 4.5, 6.0]), 2000, |n, g| {
            classes(n, &[0.0, 1.5, 3.0, 4.5, 6.0], g)
        }),
        case!("labels/independent", "labels", 0.0, 2000, |n, g| classes(n, &[0.0, 0.0, 0.0], g)),
        // Independent data of each kind.
        case!("independent/gaussian-1-1", "independent", 0.0, 2000, |n, g| (noise(n, 1, g), noise(n, 1, g))),
        case!("independent/gaussian-5-5", "independent", 0.0, 2000, |n, g| (noise(n, 5, g), noise(n, 5, g))),
        case!("independent/uniform-2-2", "independent", 0.0, 2000, |n, g| {
            (noise(n, 2, g).map(super::normal_cdf), noise(n, 2, g).map(super::normal_cdf))
        }),
        case!("independent/gaussian-2-2", "independent", 0.0, 2000, |n, g| (noise(n, 2, g), noise(n, 2, g))),
    ];
    let mut seen: Vec<&str> = Vec::new();
    raw.into_iter()
        .map(|(id, family, truth, n, draw)| {
            let k = seen.iter().filter(|f| **f == family).count();
            seen.push(family);
            let split = if k % 2 == 0 { Split::Tuning } else { Split::HeldOut };
            TrustCase { id, family, truth, n, split, draw }
        })
        .collect()
}

/// How a reading of a case is judged ([`judge`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Within `max(0.25, 25 %)` of the truth, no warning (and, on independent data, no
    /// unwarned "dependence detected").
    Right,
    /// Within the tolerance, with a warning: a false alarm.
    FalseAlarm,
    /// Outside the tolerance, with a warning.
    Warned,
    /// Outside the tolerance, no warning.
    Silent,
    /// Independent data, "dependence detected", no warning.
    FalseDependence,
}

/// The tolerance of the trust suite: `max(0.25, 25 %)` of the truth.
pub fn tolerance(truth: f64) -> f64 {
    (0.25f64).max(0.25 * truth)
}

/// The verdict on a reading `value` of a case with MI `truth`, with `warned` (any warning on
/// the headline or the comparison) and `dependent` (the dependence test rejected).
pub fn judge(value: f64, truth: f64, warned: bool, dependent: bool) -> Verdict {
    let right = (value - truth).abs() <= tolerance(truth);
    match (right, warned) {
        (true, true) => Verdict::FalseAlarm,
        (false, true) => Verdict::Warned,
        (false, false) => Verdict::Silent,
        (true, false) if truth == 0.0 && dependent => Verdict::FalseDependence,
        (true, false) => Verdict::Right,
    }
}

/// −1 where `|x₁|` is below the median of `|N(0, 1)|` (0.6745), else +1: two regimes of
/// probability ½ each.
fn regime_sign(x1: f64) -> f64 {
    if x1.abs() < 0.674_489_750_196_081_7 { -1.0 } else { 1.0 }
}

/// `n` rows of (x, class): the class uniform on the means' indices, x ~ N(mean, 1).
fn classes(n: usize, means: &[f64], g: &mut dyn Rng) -> (DMatrix<f64>, DMatrix<f64>) {
    let c: Vec<usize> = (0..n).map(|_| (g.next_u64() % means.len() as u64) as usize).collect();
    let x = DMatrix::from_fn(n, 1, |i, _| means[c[i]] + normal(g));
    let y = DMatrix::from_fn(n, 1, |i, _| c[i] as f64);
    (x, y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_every_family_has_both_halves() {
        let cases = trust_cases();
        let mut ids: Vec<&str> = cases.iter().map(|c| c.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), cases.len());
        for family in cases.iter().map(|c| c.family) {
            let halves: Vec<Split> = cases.iter().filter(|c| c.family == family).map(|c| c.split).collect();
            assert!(halves.contains(&Split::Tuning) && halves.contains(&Split::HeldOut), "{family}");
        }
    }

    /// The class MI by quadrature against its limits: two classes far apart carry ln 2, equal
    /// means carry nothing.
    #[test]
    fn class_mi_has_its_limits() {
        assert!((class_mi(&[0.0, 40.0]) - std::f64::consts::LN_2).abs() < 1e-6);
        assert!(class_mi(&[0.0, 0.0, 0.0]).abs() < 1e-6);
        // Two classes one sd apart: 0.1114 nats, three two sds apart 0.6191, by an independent
        // midpoint rule at step 10⁻⁴ over min − 12 to max + 13 (numpy, 2026-11-28).
        assert!((class_mi(&[0.0, 1.0]) - 0.111_421_5).abs() < 1e-6, "{}", class_mi(&[0.0, 1.0]));
        assert!((class_mi(&[0.0, 2.0, 4.0]) - 0.619_144_5).abs() < 1e-6, "{}", class_mi(&[0.0, 2.0, 4.0]));
    }

    /// The censored MI against its limits (no censoring: the Gaussian's; everything censored:
    /// nothing) and against a Monte Carlo mean of the log density ratio over 4·10⁵ draws
    /// (tolerance 4 standard errors of that mean).
    #[test]
    fn censored_mi_matches_its_limits_and_monte_carlo() {
        let rho = mi_to_rho(0.5, 1);
        assert!((censored_mi(rho, -12.0) - 0.5).abs() < 1e-6, "{}", censored_mi(rho, -12.0));
        assert!(censored_mi(rho, 12.0).abs() < 1e-6);
        let (b, n) = (0.3, 400_000);
        let mut g = rng(7);
        let s2 = 1.0 - rho * rho;
        let logs: Vec<f64> = (0..n)
            .map(|_| {
                let x = normal(&mut g);
                let y = rho * x + s2.sqrt() * normal(&mut g);
                if y > b {
                    -0.5 * s2.ln() - (y - rho * x).powi(2) / (2.0 * s2) + y * y / 2.0
                } else {
                    let p = crate::tasks::normal_cdf((b - rho * x) / s2.sqrt());
                    (p / crate::tasks::normal_cdf(b)).ln()
                }
            })
            .collect();
        let mean = logs.iter().sum::<f64>() / n as f64;
        let sd = (logs.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
        let truth = censored_mi(rho, b);
        assert!((mean - truth).abs() < 4.0 * sd / (n as f64).sqrt(), "{mean} {truth} {sd}");
        assert!(truth < 0.5 && truth > 0.2, "{truth}");
    }

    /// Both sides censored at 0: the sum of the three parts against a Monte Carlo mean of the
    /// log probability ratio over 4·10⁵ draws (4 standard errors), and its limits.
    #[test]
    fn censored_both_mi_matches_monte_carlo() {
        use crate::tasks::normal_cdf;
        assert!(censored_both_mi(0.0).abs() < 1e-6);
        let (rho, n) = (0.8, 400_000);
        let s = (1.0f64 - rho * rho).sqrt();
        let p00 = 0.25 + rho.asin() / (2.0 * std::f64::consts::PI);
        let mut g = rng(8);
        let logs: Vec<f64> = (0..n)
            .map(|_| {
                let x = normal(&mut g);
                let y = rho * x + s * normal(&mut g);
                match (x > 0.0, y > 0.0) {
                    (true, true) => -0.5 * (s * s).ln() - (y - rho * x).powi(2) / (2.0 * s * s) + y * y / 2.0,
                    (true, false) => (2.0 * normal_cdf(-rho * x / s)).ln(),
                    (false, true) => (2.0 * normal_cdf(-rho * y / s)).ln(),
                    (false, false) => (4.0 * p00).ln(),
                }
            })
            .collect();
        let mean = logs.iter().sum::<f64>() / n as f64;
        let sd = (logs.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
        let truth = censored_both_mi(rho);
        assert!((mean - truth).abs() < 4.0 * sd / (n as f64).sqrt(), "{mean} {truth} {sd}");
    }

    #[test]
    fn draws_are_seeded_and_sized() {
        for c in trust_cases() {
            let (x, y) = c.draw(3);
            assert_eq!(x.nrows(), y.nrows(), "{c:?}");
            assert!(x.iter().chain(y.iter()).all(|v| v.is_finite()), "{c:?}");
            assert_eq!(c.draw(3), (x, y));
        }
    }
}
