//! The MI-preserving maps of benchmark-mi (Czyż et al. 2023, `bmi.transforms` and
//! `bmi.benchmark.tasks.{normal_cdf,half_cube,asinh,wiggly,spiral,embeddings,bimodal_gaussians}`)
//! and [`Mapped`], a base task pushed forward through a chain of them on `x` and on `y`.
//!
//! Every map is injective and differentiable on the support of its input, so
//! `I(f(X); g(Y)) = I(X; Y)` and the optimal critic of the mapped task is the base critic at
//! the inverse-mapped points: `p(g(y) | f(x)) / p(g(y)) = p(y|x) / p(y)` because the Jacobian of
//! `g` cancels between numerator and denominator (and the one of `f` does not appear). The
//! swiss roll raises the dimension (1 → 2): it is an embedding, a bijection onto its image, and
//! the density ratio on the image is the same ratio.

use crate::data::Sampler;
use crate::error::{Error, Result};
use crate::rng::Rng;
use nalgebra::DMatrix;
use statrs::function::erf::{erfc, erfc_inv};
use std::f64::consts::{PI, SQRT_2};

/// `Φ(v)`, the standard normal CDF, through `erfc` (accurate in the lower tail).
pub fn normal_cdf(v: f64) -> f64 {
    0.5 * erfc(-v / SQRT_2)
}

/// `Φ⁻¹(p)`, the standard normal quantile, through `erfc⁻¹`.
pub fn normal_quantile(p: f64) -> f64 {
    -SQRT_2 * erfc_inv(2.0 * p)
}

/// A one-dimensional mixture of unit-variance normals `Σ_k w_k N(μ_k, 1)`, the target of the
/// quantile maps of bmi's bimodal task.
#[derive(Clone, Debug, PartialEq)]
pub struct NormalMixture {
    /// `(w_k, μ_k)`; the weights are positive and sum to one.
    pub components: Vec<(f64, f64)>,
}

impl NormalMixture {
    /// bmi's bimodal `x` marginal: `0.3 N(0, 1) + 0.7 N(5, 1)`.
    pub fn bimodal_x() -> Self {
        NormalMixture { components: vec![(0.3, 0.0), (0.7, 5.0)] }
    }

    /// bmi's bimodal `y` marginal: `0.5 N(−1, 1) + 0.5 N(3, 1)`.
    pub fn bimodal_y() -> Self {
        NormalMixture { components: vec![(0.5, -1.0), (0.5, 3.0)] }
    }

    /// The CDF `F(v) = Σ w_k Φ(v − μ_k)`.
    pub fn cdf(&self, v: f64) -> f64 {
        self.components.iter().map(|&(w, m)| w * normal_cdf(v - m)).sum()
    }

    /// The survival function `1 − F(v) = Σ w_k Φ(μ_k − v)`, without cancellation.
    pub fn sf(&self, v: f64) -> f64 {
        self.components.iter().map(|&(w, m)| w * normal_cdf(m - v)).sum()
    }

    fn mean_range(&self) -> (f64, f64) {
        let lo = self.components.iter().map(|c| c.1).fold(f64::INFINITY, f64::min);
        let hi = self.components.iter().map(|c| c.1).fold(f64::NEG_INFINITY, f64::max);
        (lo, hi)
    }

    /// `F⁻¹(Φ(z))`: the mixture quantile of the normal probability of `z`. For `z > 0` it solves
    /// `1 − F(v) = Φ(−z)` instead of `F(v) = Φ(z)`, so neither tail loses precision. The root
    /// lies in `[min μ + z, max μ + z]` (each `Φ(v − μ_k)` is bounded by `Φ(z)` from one side at
    /// each end) and is found by bisection to the last bit.
    pub fn from_normal(&self, z: f64) -> f64 {
        let (lo_m, hi_m) = self.mean_range();
        if z <= 0.0 {
            let p = normal_cdf(z);
            bisect(|v| self.cdf(v) < p, lo_m + z, hi_m + z)
        } else {
            let q = normal_cdf(-z);
            bisect(|v| self.sf(v) > q, lo_m + z, hi_m + z)
        }
    }

    /// `Φ⁻¹(F(v))`, the inverse of [`NormalMixture::from_normal`].
    pub fn to_normal(&self, v: f64) -> f64 {
        let p = self.cdf(v);
        if p <= 0.5 { normal_quantile(p) } else { -normal_quantile(self.sf(v)) }
    }
}

/// Bisection for the boundary of a monotone predicate: `below(v)` is true left of the root and
/// false right of it, `below(lo)` is true (or `lo` is the root) and `below(hi)` false.
fn bisect(below: impl Fn(f64) -> bool, mut lo: f64, mut hi: f64) -> f64 {
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if below(mid) { lo = mid } else { hi = mid }
    }
    0.5 * (lo + hi)
}

/// bmi's `wiggly_x`: `v + 0.4 sin v + 0.2 sin(1.7v + 1) + 0.03 sin(3.3v − 2.5)`; its derivative is
/// at least `1 − 0.4 − 0.34 − 0.099 > 0`, so it is strictly increasing.
pub fn wiggly_x(v: f64) -> f64 {
    v + 0.4 * v.sin() + 0.2 * (1.7 * v + 1.0).sin() + 0.03 * (3.3 * v - 2.5).sin()
}

/// bmi's `wiggly_y`: `v − 0.4 sin(0.4v) + 0.17 sin(1.3v + 3.5) + 0.02 sin(4.3v − 2.5)`; its
/// derivative is at least `1 − 0.16 − 0.221 − 0.086 > 0`.
pub fn wiggly_y(v: f64) -> f64 {
    v - 0.4 * (0.4 * v).sin() + 0.17 * (1.3 * v + 3.5).sin() + 0.02 * (4.3 * v - 2.5).sin()
}

/// An injective map of one variable (`x` or `y`), applied row by row.
#[derive(Clone, Debug, PartialEq)]
pub enum Bijection {
    /// `v ↦ Φ(v)` element-wise (bmi `normal_cdf`): Gaussian marginals become uniform.
    NormalCdf,
    /// `v ↦ v·√|v|` element-wise (bmi `half_cube`, a signed `v^{3/2}`): heavier tails.
    HalfCube,
    /// `v ↦ asinh v` element-wise (bmi's asinh task): lighter tails.
    Asinh,
    /// `v ↦ v³` element-wise (Poole et al. 2019's cubic task).
    Cubic,
    /// [`wiggly_x`] element-wise.
    WigglyX,
    /// [`wiggly_y`] element-wise.
    WigglyY,
    /// `v ↦ exp(speed·‖v‖²·A) v` with `A` the generator of rotations in the plane of
    /// coordinates `(i, j)` (`A_ij = −1`, `A_ji = 1`), bmi's `Spiral` with `so_generator(n, i, j)`:
    /// a rotation by the angle `speed·‖v‖²`, which leaves `‖v‖` unchanged (so it inverts by
    /// rotating back by the same angle).
    Spiral {
        /// First coordinate of the rotation plane.
        i: usize,
        /// Second coordinate of the rotation plane.
        j: usize,
        /// Angle per unit squared norm.
        speed: f64,
    },
    /// The swiss-roll embedding of `(0, 1)` into the plane (bmi `swissroll2d`):
    /// `t = 1.5π(1 + 2u)`, `u ↦ (t cos t, t sin t)/21`. The radius `t/21` identifies `u`.
    SwissRoll,
    /// `z ↦ F⁻¹(Φ(z))` element-wise for a normal mixture `F`: bmi's bimodal task applies
    /// `normal_cdf` and then the mixture's inverse CDF, which is this one map.
    NormalToMixture(NormalMixture),
    /// `v ↦ exp v` element-wise: a strong monotone map (light tails become log-normal ones).
    Exp,
    /// `v ↦ Q v` for an orthogonal `Q` (square, of the input's dimension): a rotation or
    /// reflection, inverted by `Qᵀ`. See [`random_orthogonal`].
    Orthogonal(DMatrix<f64>),
    /// `v ↦ A v` for an `m × k` matrix `A` of full column rank (`m ≥ k`, `k` the input's
    /// dimension): injective, onto the column space of `A`, where the left inverse `A⁺` (the
    /// Moore–Penrose pseudo-inverse, `A⁺A = I`) inverts it. Built by [`Bijection::linear`]; see
    /// [`random_linear`].
    Linear {
        /// `A`, `m × k`.
        a: DMatrix<f64>,
        /// `A⁺`, `k × m`.
        left_inverse: DMatrix<f64>,
    },
}

/// A `d × d` orthogonal matrix drawn from the Haar measure with a fixed seed: `Q` of the QR
/// factorisation of a matrix of iid standard normals (generator seeded with `seed`), with the
/// signs of its columns fixed by `sign(R_ii)` (Mezzadri 2007).
pub fn random_orthogonal(d: usize, seed: u64) -> DMatrix<f64> {
    use rand::RngExt;
    let mut g = crate::rng::rng(seed);
    let a = DMatrix::from_fn(d, d, |_, _| g.sample::<f64, _>(rand_distr::StandardNormal));
    let qr = a.qr();
    let (mut q, r) = (qr.q(), qr.r());
    for c in 0..d {
        if r[(c, c)] < 0.0 {
            q.column_mut(c).neg_mut();
        }
    }
    q
}

/// An `m × k` linear map with iid `N(0, gain²/k)` entries (generator seeded with `seed`), so
/// that a unit-variance input gives outputs of variance `gain²`: of full column rank with
/// probability one for `m ≥ k` (checked by [`Bijection::linear`]).
pub fn random_linear(m: usize, k: usize, gain: f64, seed: u64) -> Result<Bijection> {
    use rand::RngExt;
    let mut g = crate::rng::rng(seed);
    let s = gain / (k.max(1) as f64).sqrt();
    Bijection::linear(DMatrix::from_fn(m, k, |_, _| s * g.sample::<f64, _>(rand_distr::StandardNormal)))
}

impl Bijection {
    /// The injective linear map `v ↦ A v` ([`Bijection::Linear`]); an error unless `A` has at
    /// least as many rows as columns and full column rank (smallest singular value above
    /// `1e-10` times the largest).
    pub fn linear(a: DMatrix<f64>) -> Result<Bijection> {
        let (m, k) = a.shape();
        if k == 0 || m < k {
            return Err(Error::param("linear map shape", format!("{m} × {k}"), "needs rows ≥ columns ≥ 1"));
        }
        let svd = a.clone().svd(true, true);
        let (hi, lo) = (svd.singular_values.max(), svd.singular_values.min());
        if lo.is_nan() || lo <= 1e-10 * hi {
            return Err(Error::param(
                "linear map",
                format!("singular values {lo:e} … {hi:e}"),
                "needs full column rank",
            ));
        }
        let left_inverse = svd.pseudo_inverse(0.0).map_err(|e| Error::param("linear map", e, "pseudo-inverse"))?;
        Ok(Bijection::Linear { a, left_inverse })
    }

    /// A short tag for names.
    pub fn tag(&self) -> &'static str {
        match self {
            Bijection::NormalCdf => "normal_cdf",
            Bijection::HalfCube => "half_cube",
            Bijection::Asinh => "asinh",
            Bijection::Cubic => "cubic",
            Bijection::WigglyX => "wiggly_x",
            Bijection::WigglyY => "wiggly_y",
            Bijection::Spiral { .. } => "spiral",
            Bijection::SwissRoll => "swissroll",
            Bijection::NormalToMixture(_) => "mixture_quantile",
            Bijection::Exp => "exp",
            Bijection::Orthogonal(_) => "orthogonal",
            Bijection::Linear { .. } => "linear",
        }
    }

    /// The output dimension for an input of dimension `dim`, or an error when the map does not
    /// apply (a spiral plane outside the dimension, a swiss roll of more than one coordinate).
    pub fn dim_out(&self, dim: usize) -> Result<usize> {
        match self {
            Bijection::Spiral { i, j, .. } if !(i < j && *j < dim) => {
                Err(Error::param("spiral plane", format!("({i}, {j})"), &format!("needs i < j < dim = {dim}")))
            }
            Bijection::SwissRoll if dim != 1 => Err(Error::param("swiss roll input dimension", dim, "must be 1")),
            Bijection::SwissRoll => Ok(2),
            Bijection::Orthogonal(q) if q.nrows() != dim || q.ncols() != dim => Err(Error::param(
                "orthogonal map size",
                format!("{} × {}", q.nrows(), q.ncols()),
                &format!("must be {dim} × {dim}"),
            )),
            Bijection::Linear { a, .. } if a.ncols() != dim => {
                Err(Error::param("linear map input dimension", dim, &format!("must be {}", a.ncols())))
            }
            Bijection::Linear { a, .. } => Ok(a.nrows()),
            _ => Ok(dim),
        }
    }

    /// Maps one row `v` into `out` (of length [`Bijection::dim_out`]).
    pub fn forward(&self, v: &[f64], out: &mut [f64]) {
        match self {
            Bijection::Spiral { i, j, speed } => {
                out.copy_from_slice(v);
                let theta = speed * v.iter().map(|a| a * a).sum::<f64>();
                let (s, c) = theta.sin_cos();
                out[*i] = c * v[*i] - s * v[*j];
                out[*j] = s * v[*i] + c * v[*j];
            }
            Bijection::SwissRoll => {
                let t = 1.5 * PI * (1.0 + 2.0 * v[0]);
                let (s, c) = t.sin_cos();
                out[0] = t * c / 21.0;
                out[1] = t * s / 21.0;
            }
            Bijection::Orthogonal(q) | Bijection::Linear { a: q, .. } => {
                out.iter_mut().enumerate().for_each(|(r, o)| *o = (0..v.len()).map(|c| q[(r, c)] * v[c]).sum());
            }
            _ => out.iter_mut().zip(v).for_each(|(o, &a)| *o = self.forward_scalar(a)),
        }
    }

    /// The inverse of [`Bijection::forward`] on its image: maps `w` back into `out`.
    pub fn inverse(&self, w: &[f64], out: &mut [f64]) {
        match self {
            Bijection::Spiral { i, j, speed } => {
                out.copy_from_slice(w);
                let theta = speed * w.iter().map(|a| a * a).sum::<f64>();
                let (s, c) = theta.sin_cos();
                out[*i] = c * w[*i] + s * w[*j];
                out[*j] = -s * w[*i] + c * w[*j];
            }
            Bijection::SwissRoll => {
                let t = 21.0 * w[0].hypot(w[1]);
                out[0] = 0.5 * (t / (1.5 * PI) - 1.0);
            }
            Bijection::Orthogonal(q) => {
                out.iter_mut().enumerate().for_each(|(c, o)| *o = (0..w.len()).map(|r| q[(r, c)] * w[r]).sum());
            }
            Bijection::Linear { left_inverse: p, .. } => {
                out.iter_mut().enumerate().for_each(|(r, o)| *o = (0..w.len()).map(|c| p[(r, c)] * w[c]).sum());
            }
            _ => out.iter_mut().zip(w).for_each(|(o, &a)| *o = self.inverse_scalar(a)),
        }
    }

    fn forward_scalar(&self, v: f64) -> f64 {
        match self {
            Bijection::NormalCdf => normal_cdf(v),
            Bijection::HalfCube => v * v.abs().sqrt(),
            Bijection::Asinh => v.asinh(),
            Bijection::Cubic => v * v * v,
            Bijection::WigglyX => wiggly_x(v),
            Bijection::WigglyY => wiggly_y(v),
            Bijection::NormalToMixture(m) => m.from_normal(v),
            Bijection::Exp => v.exp(),
            Bijection::Spiral { .. } | Bijection::SwissRoll | Bijection::Orthogonal(_) | Bijection::Linear { .. } => {
                unreachable!("not element-wise")
            }
        }
    }

    fn inverse_scalar(&self, w: f64) -> f64 {
        match self {
            Bijection::NormalCdf => normal_quantile(w),
            Bijection::HalfCube => w.signum() * (w * w).cbrt(),
            Bijection::Asinh => w.sinh(),
            Bijection::Cubic => w.cbrt(),
            // |wiggly(v) − v| ≤ 0.63, so the preimage of w lies in [w − 1, w + 1].
            Bijection::WigglyX => bisect(|v| wiggly_x(v) < w, w - 1.0, w + 1.0),
            Bijection::WigglyY => bisect(|v| wiggly_y(v) < w, w - 1.0, w + 1.0),
            Bijection::NormalToMixture(m) => m.to_normal(w),
            Bijection::Exp => w.ln(),
            Bijection::Spiral { .. } | Bijection::SwissRoll | Bijection::Orthogonal(_) | Bijection::Linear { .. } => {
                unreachable!("not element-wise")
            }
        }
    }
}

/// Applies a chain of maps (first map first, or last map first for the inverse) to every row
/// of `m`; an error when a map does not apply to the width it receives.
pub(super) fn apply_chain(chain: &[Bijection], m: &DMatrix<f64>, inverse: bool) -> Result<DMatrix<f64>> {
    let mut cur = m.clone();
    let order: Vec<&Bijection> = if inverse { chain.iter().rev().collect() } else { chain.iter().collect() };
    for b in order {
        let din = cur.ncols();
        // The linear maps as one matrix product (the same map as row by row, in BLAS time).
        if let Some(next) = linear_rows(b, &cur, inverse)? {
            cur = next;
            continue;
        }
        let dout = match (inverse, b) {
            (true, Bijection::SwissRoll) if din == 2 => 1,
            (true, Bijection::SwissRoll) => {
                return Err(Error::param("swiss roll inverse input dimension", din, "must be 2"));
            }
            _ => b.dim_out(din)?,
        };
        let mut next = DMatrix::zeros(cur.nrows(), dout);
        let (mut row, mut out) = (vec![0.0; din], vec![0.0; dout]);
        for r in 0..cur.nrows() {
            row.iter_mut().enumerate().for_each(|(c, v)| *v = cur[(r, c)]);
            if inverse {
                b.inverse(&row, &mut out)
            } else {
                b.forward(&row, &mut out)
            }
            out.iter().enumerate().for_each(|(c, v)| next[(r, c)] = *v);
        }
        cur = next;
    }
    Ok(cur)
}

/// A linear map (or its inverse) applied to every row of `m` as one product, `None` for a map
/// that is not linear; an error when the width of `m` does not fit the map.
fn linear_rows(b: &Bijection, m: &DMatrix<f64>, inverse: bool) -> Result<Option<DMatrix<f64>>> {
    let (mat, transpose) = match (b, inverse) {
        (Bijection::Orthogonal(q), false) => (q, true),
        (Bijection::Orthogonal(q), true) => (q, false),
        (Bijection::Linear { a, .. }, false) => (a, true),
        (Bijection::Linear { left_inverse, .. }, true) => (left_inverse, true),
        _ => return Ok(None),
    };
    let width = if transpose { mat.ncols() } else { mat.nrows() };
    if m.ncols() != width {
        return Err(Error::param(&format!("{} map input dimension", b.tag()), m.ncols(), &format!("must be {width}")));
    }
    Ok(Some(if transpose { m * mat.transpose() } else { m * mat }))
}

/// A base task pushed forward through `x_maps` on `x` and `y_maps` on `y` (each chain applied
/// first map first): bmi's `TransformedSampler`. `true_mi` is the base task's.
#[derive(Debug)]
pub struct Mapped<S> {
    base: S,
    x_maps: Vec<Bijection>,
    y_maps: Vec<Bijection>,
    dim_x: usize,
    dim_y: usize,
}

impl<S: Sampler> Mapped<S> {
    /// Checks that each chain applies to the base task's dimensions.
    pub fn new(base: S, x_maps: Vec<Bijection>, y_maps: Vec<Bijection>) -> Result<Self> {
        let dim_x = x_maps.iter().try_fold(base.dim_x(), |d, b| b.dim_out(d))?;
        let dim_y = y_maps.iter().try_fold(base.dim_y(), |d, b| b.dim_out(d))?;
        Ok(Mapped { base, x_maps, y_maps, dim_x, dim_y })
    }

    /// The base task.
    pub fn base(&self) -> &S {
        &self.base
    }

    /// The maps of `x` and of `y`, first map first.
    pub fn chains(&self) -> (&[Bijection], &[Bijection]) {
        (&self.x_maps, &self.y_maps)
    }

    /// Maps base samples forward (an error when their widths are not the base task's).
    pub fn forward(&self, x: &DMatrix<f64>, y: &DMatrix<f64>) -> Result<(DMatrix<f64>, DMatrix<f64>)> {
        Ok((apply_chain(&self.x_maps, x, false)?, apply_chain(&self.y_maps, y, false)?))
    }

    /// Maps samples of this task back to the base task's space.
    pub fn inverse(&self, x: &DMatrix<f64>, y: &DMatrix<f64>) -> Result<(DMatrix<f64>, DMatrix<f64>)> {
        Ok((apply_chain(&self.x_maps, x, true)?, apply_chain(&self.y_maps, y, true)?))
    }
}

impl<S: Sampler> Sampler for Mapped<S> {
    fn name(&self) -> String {
        let tags = |c: &[Bijection]| {
            if c.is_empty() { "id".to_string() } else { c.iter().map(|b| b.tag()).collect::<Vec<_>>().join("∘") }
        };
        format!("{} ↦ (x: {}, y: {})", self.base.name(), tags(&self.x_maps), tags(&self.y_maps))
    }
    fn dim_x(&self) -> usize {
        self.dim_x
    }
    fn dim_y(&self) -> usize {
        self.dim_y
    }
    fn true_mi(&self) -> f64 {
        self.base.true_mi()
    }

    /// Draws the base samples (allocating base-sized buffers) and maps them.
    fn sample_into(&self, rng: &mut dyn Rng, x: &mut DMatrix<f64>, y: &mut DMatrix<f64>) {
        let (bx, by) = self.base.sample(x.nrows(), rng);
        let (fx, fy) = self.forward(&bx, &by).expect("Mapped::new checked the chains against the base");
        x.copy_from(&fx);
        y.copy_from(&fy);
    }

    fn optimal_critic(&self, x: &DMatrix<f64>, y: &DMatrix<f64>) -> Option<DMatrix<f64>> {
        let (bx, by) = self.inverse(x, y).ok()?;
        self.base.optimal_critic(&bx, &by)
    }

    fn entropy_y(&self) -> Option<f64> {
        if self.y_maps.is_empty() { self.base.entropy_y() } else { None }
    }

    fn log_marginal_y(&self, y: &DMatrix<f64>) -> Option<Vec<f64>> {
        if self.y_maps.is_empty() { self.base.log_marginal_y(y) } else { None }
    }
}
