//! Reference simulations: what an estimator reads on a Gaussian with the data's shape (rows,
//! dimensions) and a chosen MI. An estimator's bias depends on the rows, the dimensions and the
//! MI far more than on the distribution's details (Kraskov et al. 2004; Gao, Ver Steeg &
//! Galstyan 2015 for KSG's at high MI per dimension), so a reading on such a reference tells
//! what a reading on the data would be if the data's MI were that value. The interval of a KSG
//! headline and the classical cross-check are judged against it, instead of against a fixed
//! band that ignores the bias:
//!
//! - KSG's interval is widened to cover its bias at the MI its reading implies ([`bias_at`]),
//!   with a warning where that bias exceeds the tolerance of a reading;
//! - the cross-check ([`super::compare`]) warns only when KSG reads more on the data than it reads
//!   on a reference whose MI is the headline's plus a material margin ([`material`]).
//!
//! The reference is `min(d_x, d_y)` pairs of correlated standard normals (the MI spread evenly
//! over them) and the other columns independent, drawn with seeds derived from the caller's.

use crate::data::mi_to_rho;
use crate::error::Result;
use crate::rng::{Rng, derive_seed, rng};
use nalgebra::{DMatrix, DMatrixView};
use rand_distr::{Distribution, StandardNormal};

/// The margin beyond which a reading is wrong in a way that matters: `max(0.25, 25 %)` of the
/// MI. The trust suite judges readings with the same margin (`tasks::trust::tolerance`).
pub fn material(mi: f64) -> f64 {
    (0.25f64).max(0.25 * mi.abs())
}

/// `n` rows of the reference Gaussian with `dx` and `dy` columns and MI `mi` (module docs).
pub fn gaussian_like(dx: usize, dy: usize, n: usize, mi: f64, g: &mut dyn Rng) -> (DMatrix<f64>, DMatrix<f64>) {
    let pairs = dx.min(dy).max(1);
    let rho = if mi > 0.0 { mi_to_rho(mi, pairs) } else { 0.0 };
    let mut normal = || -> f64 { StandardNormal.sample(&mut *g) };
    let x = DMatrix::from_fn(n, dx, |_, _| normal());
    let e = DMatrix::from_fn(n, dy, |_, _| normal());
    let y = DMatrix::from_fn(n, dy, |i, j| {
        if j < pairs && j < dx { rho * x[(i, j)] + (1.0 - rho * rho).sqrt() * e[(i, j)] } else { e[(i, j)] }
    });
    (x, y)
}

/// An estimator's value on `(x, y)` with a seed: what a reference reads.
pub type Reading<'a> = dyn Fn(DMatrixView<'_, f64>, DMatrixView<'_, f64>, u64) -> Result<f64> + 'a;

/// How many reference draws average out the reading's noise at `n` rows: enough for about
/// 4000 rows in all, between 1 and 8.
pub fn draws_for(n: usize) -> usize {
    4000usize.div_ceil(n.max(1)).clamp(1, 8)
}

/// The mean of `read` over [`draws_for`] reference samples of `n` rows with `dx`, `dy` columns
/// and MI `mi`.
pub fn mean_reading(read: &Reading<'_>, (dx, dy, n): (usize, usize, usize), mi: f64, seed: u64) -> Result<f64> {
    let draws = draws_for(n);
    let mut sum = 0.0;
    for d in 0..draws {
        let s = derive_seed(seed, &format!("reference {d}"));
        let (x, y) = gaussian_like(dx, dy, n, mi, &mut rng(s));
        sum += read(x.as_view(), y.as_view(), s)?;
    }
    Ok(sum / draws as f64)
}

/// The bias of `read` (reading minus MI) at the MI whose mean reading is `value`: the root
/// `m` of `r(m) = value`, `r` being [`mean_reading`] (the same draws at every `m`, so `r` is
/// smooth in `m`), by the secant method from `m₀ = value` and `m₁ = value − (r(m₀) − m₀)`, at
/// most [`BIAS_STEPS`] readings. Returns `value − m` (the reading corrected for it is `m`) and
/// whether the root was found (the last reading within 0.02 nats of `value`, at an MI below
/// `4·max(value, 0.25) + 1`, where the search stops, with the reading growing there by at
/// least a fifth of the MI's growth): near an estimator's ceiling, where its reading hardly
/// grows with the MI, it is not.
pub fn bias_at(read: &Reading<'_>, shape: (usize, usize, usize), value: f64, seed: u64) -> Result<(f64, bool)> {
    let r = |m: f64| mean_reading(read, shape, m, seed);
    let most = 4.0 * value.max(0.25) + 1.0;
    let (mut m0, mut f0) = (value.max(0.0), 0.0);
    f0 += r(m0)? - value;
    if f0.abs() < 0.005 {
        return Ok((0.0, true));
    }
    let mut m1 = (m0 - f0).max(0.0);
    let (mut f1, mut slope) = (f64::NAN, f64::NAN);
    for step in 1..=BIAS_STEPS {
        f1 = r(m1)? - value;
        slope = (f1 - f0) / (m1 - m0);
        if step == BIAS_STEPS || f1.abs() < 0.005 || (f1 - f0).abs() < 1e-9 {
            break;
        }
        let next = (m1 - f1 * (m1 - m0) / (f1 - f0)).clamp(0.0, most);
        (m0, f0, m1) = (m1, f1, next);
    }
    // Where the reading grows by less than a fifth of the MI's growth, it hardly tells MIs
    // apart (an estimator at its ceiling): no root is found there.
    Ok((value - m1, f1.abs() < 0.02 && m1 < 0.99 * most && slope > 0.2))
}

/// The most reference readings [`bias_at`] takes.
pub const BIAS_STEPS: usize = 5;

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference has the MI asked for: its CCA read-off converges to it.
    #[test]
    fn the_reference_has_its_mi() {
        for (dx, dy, mi) in [(1, 1, 0.5), (3, 2, 2.0), (2, 5, 1.0)] {
            let (x, y) = gaussian_like(dx, dy, 200_000, mi, &mut rng(1));
            let fit = crate::cca::gaussian_fit(x.as_view(), y.as_view()).unwrap();
            assert!((fit.plugin - mi).abs() < 0.02, "{dx}+{dy}: {} for {mi}", fit.plugin);
        }
    }
}
