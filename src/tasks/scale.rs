//! Tasks at the scale of learned representations (issue #53): 64 to 1024 dimensions per side,
//! 10⁴ to 10⁶ rows, each task with its own sample size, a group of their own
//! ([`super::Group::Scale`]) and a tuning / held-out split of their own (the rule of
//! [`super::Split`] over [`SCALE_IDS`] alone), so the results of the suite's groups stay
//! comparable.
//!
//! * `scale-N-ID`: the task `ID` at `N` rows (its suggested sample size), in the scale group.
//! * `student-staircase-D-ν-I`: a `D + D` multivariate Student-t whose dispersion is the
//!   staircase correlation of `staircase-D-I` (`corr(x_k, y_k) = ρ` for every `k`, MI spread
//!   thinly over all coordinates); `I_total = I + student_correction(ν, D, D)` exactly
//!   ([`super::SplitStudentT`]: the normal part of the dispersion is `I`).
//! * `embed-K-D-I`: the `K + K` latent Gaussian pair `staircase-K-I`, each side mapped to `D`
//!   dimensions by `u ↦ asinh(A₂ asinh(A₁ u))`, `A₁` (`D × K`) and `A₂` (`D × D`) random with
//!   iid `N(0, 4/fan-in)` entries ([`random_linear`], gain 2): an injective map, so the MI is the
//!   latent pair's, `I`.

use super::maps::random_linear;
use super::{BenchmarkTask, Bijection, MapChain, Mapped, Parts, SplitStudentT, fields, num, parts, task, with_rows};
use crate::data::CorrelatedGaussian;
use crate::error::{Error, Result};
use nalgebra::DMatrix;

/// The scale tasks in order (their halves alternate within each family in this order).
pub const SCALE_IDS: &[&str] = &[
    // Rotated Gaussians (`rotate-staircase-D-I`): I nats spread over all D pairs, each side
    // turned by a Haar-random rotation, so no coordinate pairs off with one of the other side.
    "scale-20000-rotate-staircase-64-4",
    "scale-10000-rotate-staircase-256-4",
    "scale-50000-rotate-staircase-128-6",
    "scale-20000-rotate-staircase-1024-4",
    "scale-1000000-rotate-staircase-64-3",
    // Rotated multivariate Student-t with a thinly spread correlated dispersion.
    "scale-20000-rotate-student-staircase-64-5-2",
    "scale-10000-rotate-student-staircase-256-10-3",
    "scale-100000-rotate-student-staircase-64-10-2",
    // Low-dimensional latent pairs embedded by random injective nonlinear maps.
    "scale-20000-embed-4-64-2",
    "scale-10000-embed-8-256-3",
    "scale-50000-embed-2-128-1",
    "scale-20000-embed-6-128-2",
];

/// The gain of both layers of the `embed-` maps: pre-activations of variance about 4.
pub const EMBED_GAIN: f64 = 2.0;
/// Seeds of the `embed-K-D-I` maps: `EMBED_SEED + 4·(1000·K + D) + j`, `j` = 0, 1 for `A₁`, `A₂`
/// of `x` and 2, 3 for those of `y`.
pub const EMBED_SEED: u64 = 5_000_000;

/// The ids of [`SCALE_IDS`] as strings.
pub fn scale_ids() -> Vec<String> {
    SCALE_IDS.iter().map(|s| s.to_string()).collect()
}

/// `scale-N-ID`: the task `ID` with suggested sample size `N`, in the scale group, its stratum
/// `scale:` and the family.
pub(super) fn prefixed(id: &str, rest: &str) -> Result<BenchmarkTask> {
    let (mut inner, n) = with_rows(id, rest, "scale sample size")?;
    inner.info.description = format!("{} — at representation scale, n = {n}", inner.info.description);
    inner.info.stratum = format!("scale:{}", inner.info.family);
    inner.info.group = super::Group::Scale;
    Ok(inner)
}

/// The base tasks of this module (`student-staircase-…`, `embed-…`), `None` for another id.
pub(super) fn base(id: &str) -> Result<Option<BenchmarkTask>> {
    if let Some(r) = id.strip_prefix("student-staircase-") {
        let f = fields(id, r, 3)?;
        let (d, df, mi): (usize, f64, f64) = (num(id, f[0])?, num(id, f[1])?, num(id, f[2])?);
        let rho = CorrelatedGaussian::with_mi(d, mi)?.rho();
        let mut sigma = DMatrix::<f64>::identity(2 * d, 2 * d);
        for k in 0..d {
            sigma[(k, d + k)] = rho;
            sigma[(d + k, k)] = rho;
        }
        let t = SplitStudentT::new(sigma, d, df)?;
        let p = parts(
            format!("Student-t staircase {d} × {d} (dof={df}, {mi} nats normal part)"),
            "student-staircase",
            format!(
                "multivariate t, ν = {df}, dispersion with corr(x_k, y_k) = {rho:.6} for all {d} k (staircase-{d}-{mi}'s); \
                 I = {mi} + Student-t correction {:.6}",
                t.mi_correction()
            ),
            "mibound (Arellano-Valle et al. 2013's MI of the multivariate t; a staircase dispersion)".into(),
        );
        return Ok(Some(task(id, Box::new(t), p, None)));
    }
    if let Some(r) = id.strip_prefix("embed-") {
        let f = fields(id, r, 3)?;
        let (k, d, mi): (usize, usize, f64) = (num(id, f[0])?, num(id, f[1])?, num(id, f[2])?);
        if k == 0 || d < k {
            return Err(Error::param("embedding dimensions", format!("{k} → {d}"), "needs 1 ≤ K ≤ D"));
        }
        let base_id = format!("staircase-{k}-{mi}");
        let latent = CorrelatedGaussian::with_mi(k, mi)?;
        let seed = EMBED_SEED + 4 * (1000 * k as u64 + d as u64);
        let layers = |s: u64| -> Result<Vec<Bijection>> {
            Ok(vec![
                random_linear(d, k, EMBED_GAIN, s)?,
                Bijection::Asinh,
                random_linear(d, d, EMBED_GAIN, s + 1)?,
                Bijection::Asinh,
            ])
        };
        let (xm, ym) = (layers(seed)?, layers(seed + 2)?);
        let p = embed_parts(k, d, mi, seed, &base_id);
        let s = Mapped::new(latent, xm.clone(), ym.clone())?;
        return Ok(Some(task(id, Box::new(s), p, Some(MapChain { base_id, x: xm, y: ym }))));
    }
    Ok(None)
}

fn embed_parts(k: usize, d: usize, mi: f64, seed: u64, base_id: &str) -> Parts {
    parts(
        format!("Embedded latents {k} → {d} ({mi} nats)"),
        "embed",
        format!(
            "{base_id} with each side u ↦ asinh(A₂ asinh(A₁ u)), A₁ {d} × {k}, A₂ {d} × {d}, iid N(0, {}/fan-in) \
             entries (seeds {seed} + 0, 1 for x, + 2, 3 for y); injective, so I = {mi}",
            EMBED_GAIN * EMBED_GAIN
        ),
        "mibound (a latent pair embedded by a random injective nonlinear map, issue #53)".into(),
    )
}
