//! Tasks with known truth for discrete, mixed and conditional estimators.
//!
//! **Pairs** ([`MixedTask`], a [`Sampler`] with the kinds of its columns):
//!
//! | id | distribution | `I(X; Y)` (nats) |
//! |---|---|---|
//! | `channel-M-E` | `X` uniform on `M` symbols; `Y = X` with probability `1 − E`, else one of the other `M − 1` uniformly (the `M`-ary symmetric channel) | `ln M − h(E) − E ln(M − 1)`, `h` the binary entropy |
//! | `gao-uniform-M` | `X` uniform on `{0, …, M − 1}`, `Y | X ~ U[X, X + 2]` (Gao et al. 2017, §5) | `ln M − (M − 1) ln 2 / M` |
//! | `zero-inflated-P-ρ` | with probability `P`, `(X, Y) = (0, 0)`; else a bivariate normal with correlation `ρ` | `h(P) + (1 − P)(−½ ln(1 − ρ²))` |
//!
//! For the zero-inflated task, `B = 1{X = 0}` is a function of `X` and of `Y` (the normal part
//! has no mass at 0), so `I(X; Y) = I(X, B; Y, B) = H(B) + I(X; Y | B)`, and given `B = 1` both
//! are constant.
//!
//! **Triples** ([`GaussianTriple`]): `(X, Y, Z)` jointly normal with covariance `Σ`;
//! `I(X; Y | Z) = ½ ln(|Σ_xz| |Σ_yz| / (|Σ_z| |Σ_xyz|))` and `I(X; Y) = ½ ln(|Σ_x| |Σ_y| / |Σ_xy|)`.
//!
//! | id | construction | `I(X; Y)` | `I(X; Y | Z)` |
//! |---|---|---|---|
//! | `common-cause-A` | `Z ~ N(0, 1)`, `X = A Z + ε₁`, `Y = A Z + ε₂` | `−½ ln(1 − ρ²)`, `ρ = A²/(A² + 1)` | 0 |
//! | `collider-S` | `X, Y ~ N(0, 1)` independent, `Z = X + Y + S ε` | 0 | `−½ ln(1 − 1/(1 + S²)²)` |
//! | `chain-dz-C` | `Z ~ N(0, I_dz)`, `X = Σ Z/√dz + ε₁`, `Y = Σ Z/√dz + C X + ε₂` | closed form | `−½ ln(1 − C²/(C² + 1))` |
//!
//! References: W. Gao, S. Kannan, S. Oh, P. Viswanath, *Estimating mutual information for
//! discrete-continuous mixtures*, NeurIPS 2017; J. Runge 2018 (the common-cause and collider
//! settings of its CI-test experiments).

use crate::data::{Sampler, VarKind};
use crate::error::{Error, Result};
use crate::rng::Rng;
use nalgebra::{Cholesky, DMatrix};
use rand::RngExt;
use rand_distr::StandardNormal;

/// The binary entropy `h(p) = −p ln p − (1 − p) ln(1 − p)` in nats (0 at 0 and 1).
pub fn binary_entropy(p: f64) -> f64 {
    let t = |q: f64| if q > 0.0 { -q * q.ln() } else { 0.0 };
    t(p) + t(1.0 - p)
}

/// Which pair distribution (module docs).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "family", rename_all = "kebab-case")]
pub enum MixedFamily {
    /// The `m`-ary symmetric channel with error `e`.
    Channel {
        /// Symbols (≥ 2).
        m: usize,
        /// Error probability in `[0, 1]`.
        e: f64,
    },
    /// Gao et al.'s `X ~ U{0..m−1}`, `Y | X ~ U[X, X+2]`.
    GaoUniform {
        /// Symbols (≥ 1).
        m: usize,
    },
    /// An atom at `(0, 0)` with probability `p`, else a bivariate normal with correlation `rho`.
    ZeroInflated {
        /// Weight of the atom in `[0, 1)`.
        p: f64,
        /// Correlation in `(−1, 1)`.
        rho: f64,
    },
}

/// A pair task with the kinds of its columns.
#[derive(Clone, Debug, PartialEq)]
pub struct MixedTask {
    /// The distribution.
    pub family: MixedFamily,
}

impl MixedTask {
    /// The task of `family`, its parameters checked.
    pub fn new(family: MixedFamily) -> Result<Self> {
        match family {
            MixedFamily::Channel { m, e } if m < 2 || !(0.0..=1.0).contains(&e) => {
                Err(Error::param("channel", format!("M = {m}, E = {e}"), "needs M ≥ 2 and 0 ≤ E ≤ 1"))
            }
            MixedFamily::GaoUniform { m: 0 } => Err(Error::param("gao-uniform M", 0, "must be at least 1")),
            MixedFamily::ZeroInflated { p, rho } if !(0.0..1.0).contains(&p) || rho.is_nan() || rho.abs() >= 1.0 => {
                Err(Error::param("zero-inflated", format!("P = {p}, ρ = {rho}"), "needs 0 ≤ P < 1 and |ρ| < 1"))
            }
            _ => Ok(MixedTask { family }),
        }
    }

    /// Parses `channel-M-E`, `gao-uniform-M` or `zero-inflated-P-ρ`.
    pub fn parse(id: &str) -> Result<Self> {
        let bad = || Error::Unknown { kind: "mixed task", name: id.into(), known: MIXED_IDS.join(", ") };
        let num = |s: &str| s.parse::<f64>().map_err(|_| bad());
        let family = if let Some(rest) = id.strip_prefix("channel-") {
            let (m, e) = rest.split_once('-').ok_or_else(bad)?;
            MixedFamily::Channel { m: m.parse().map_err(|_| bad())?, e: num(e)? }
        } else if let Some(m) = id.strip_prefix("gao-uniform-") {
            MixedFamily::GaoUniform { m: m.parse().map_err(|_| bad())? }
        } else if let Some(rest) = id.strip_prefix("zero-inflated-") {
            let (p, rho) = rest.split_once('-').ok_or_else(bad)?;
            MixedFamily::ZeroInflated { p: num(p)?, rho: num(rho)? }
        } else {
            return Err(bad());
        };
        Self::new(family)
    }

    /// The kinds of x's and y's column.
    pub fn kinds(&self) -> (VarKind, VarKind) {
        match self.family {
            MixedFamily::Channel { .. } => (VarKind::Discrete, VarKind::Discrete),
            MixedFamily::GaoUniform { .. } => (VarKind::Discrete, VarKind::Continuous),
            // Mixed: an atom and a density in each; only Gao et al.'s estimator applies.
            MixedFamily::ZeroInflated { .. } => (VarKind::Continuous, VarKind::Continuous),
        }
    }
}

/// The ids of the pair tasks used in the docs' table (docs/discrete.md).
pub const MIXED_IDS: [&str; 5] =
    ["channel-4-0.1", "channel-10-0.3", "gao-uniform-5", "zero-inflated-0.3-0.8", "zero-inflated-0.1-0.5"];

impl Sampler for MixedTask {
    fn name(&self) -> String {
        match self.family {
            MixedFamily::Channel { m, e } => format!("channel-{m}-{e}"),
            MixedFamily::GaoUniform { m } => format!("gao-uniform-{m}"),
            MixedFamily::ZeroInflated { p, rho } => format!("zero-inflated-{p}-{rho}"),
        }
    }
    fn dim_x(&self) -> usize {
        1
    }
    fn dim_y(&self) -> usize {
        1
    }
    fn true_mi(&self) -> f64 {
        match self.family {
            MixedFamily::Channel { m, e } => {
                let mf = m as f64;
                mf.ln() - binary_entropy(e) - if e > 0.0 { e * (mf - 1.0).ln() } else { 0.0 }
            }
            // One implementation of Gao et al.'s example: the registry's task (tasks::GaoUniform).
            MixedFamily::GaoUniform { m } => super::GaoUniform::new(m).map(|t| t.true_mi()).unwrap_or(f64::NAN),
            MixedFamily::ZeroInflated { p, rho } => binary_entropy(p) - (1.0 - p) * 0.5 * (1.0 - rho * rho).ln(),
        }
    }
    fn sample_into(&self, g: &mut dyn Rng, x: &mut DMatrix<f64>, y: &mut DMatrix<f64>) {
        for i in 0..x.nrows() {
            let (a, b) = match self.family {
                MixedFamily::Channel { m, e } => {
                    let a = g.random_range(0..m);
                    let b = if g.random::<f64>() < e { (a + 1 + g.random_range(0..m - 1)) % m } else { a };
                    (a as f64, b as f64)
                }
                MixedFamily::GaoUniform { m } => super::GaoUniform::draw_one(m, g),
                MixedFamily::ZeroInflated { p, rho } => {
                    if g.random::<f64>() < p {
                        (0.0, 0.0)
                    } else {
                        let u: f64 = g.sample(StandardNormal);
                        let v: f64 = g.sample(StandardNormal);
                        (u, rho * u + (1.0 - rho * rho).sqrt() * v)
                    }
                }
            };
            x[(i, 0)] = a;
            y[(i, 0)] = b;
        }
    }
}

/// `(X, Y, Z)` jointly normal (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct GaussianTriple {
    id: String,
    cov: DMatrix<f64>,
    dims: (usize, usize, usize),
    chol: DMatrix<f64>,
}

/// The ids of the triple tasks (docs/discrete.md and the CI-test acceptance).
pub const TRIPLE_IDS: [&str; 4] = ["common-cause-1", "collider-1", "chain-2-0.5", "chain-3-0"];

fn ln_det(m: DMatrix<f64>) -> f64 {
    crate::cca::ln_det(&Cholesky::new(m).expect("covariance blocks are positive definite").unpack())
}

impl GaussianTriple {
    /// `(X, Y, Z)` with covariance `cov`, x the first `dx` coordinates, y the next `dy`, z the rest.
    pub fn new(id: impl Into<String>, cov: DMatrix<f64>, dx: usize, dy: usize) -> Result<Self> {
        let d = cov.nrows();
        if cov.ncols() != d || dx == 0 || dy == 0 || dx + dy >= d {
            return Err(Error::param(
                "triple",
                format!("{d}×{} with dx = {dx}, dy = {dy}", cov.ncols()),
                "needs a square covariance with x, y and at least one z coordinate",
            ));
        }
        let chol = Cholesky::new(cov.clone())
            .ok_or_else(|| Error::param("covariance", "of (x, y, z)", "is not positive definite"))?
            .unpack();
        Ok(GaussianTriple { id: id.into(), cov, dims: (dx, dy, d - dx - dy), chol })
    }

    /// Parses `common-cause-A`, `collider-S` or `chain-dz-C` (module docs).
    pub fn parse(id: &str) -> Result<Self> {
        let bad = || Error::Unknown { kind: "conditional task", name: id.into(), known: TRIPLE_IDS.join(", ") };
        let num = |s: &str| s.parse::<f64>().map_err(|_| bad());
        // Linear models: rows of B give (x, y, z) = B (z-noise, ε₁, ε₂, …); Σ = B Bᵀ.
        let b = if let Some(a) = id.strip_prefix("common-cause-") {
            let a = num(a)?;
            DMatrix::from_row_slice(3, 3, &[a, 1.0, 0.0, a, 0.0, 1.0, 1.0, 0.0, 0.0])
        } else if let Some(s) = id.strip_prefix("collider-") {
            let s = num(s)?;
            DMatrix::from_row_slice(3, 3, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, s])
        } else if let Some(rest) = id.strip_prefix("chain-") {
            let (dz, c) = rest.split_once('-').ok_or_else(bad)?;
            let (dz, c): (usize, f64) = (dz.parse().map_err(|_| bad())?, num(c)?);
            if dz == 0 {
                return Err(bad());
            }
            // Sources: z₁..z_dz, ε₁, ε₂.
            let w = 1.0 / (dz as f64).sqrt();
            let mut b = DMatrix::zeros(2 + dz, 2 + dz);
            for j in 0..dz {
                b[(0, j)] = w;
                b[(1, j)] = w + c * w;
                b[(2 + j, j)] = 1.0;
            }
            b[(0, dz)] = 1.0;
            b[(1, dz)] = c;
            b[(1, dz + 1)] = 1.0;
            b
        } else {
            return Err(bad());
        };
        Self::new(id, &b * b.transpose(), 1, 1)
    }

    /// Dimensions of x, y and z.
    pub fn dims(&self) -> (usize, usize, usize) {
        self.dims
    }

    fn block(&self, idx: &[usize]) -> DMatrix<f64> {
        DMatrix::from_fn(idx.len(), idx.len(), |i, j| self.cov[(idx[i], idx[j])])
    }

    /// `I(X; Y | Z)` in nats.
    pub fn true_cmi(&self) -> f64 {
        let (dx, dy, dz) = self.dims;
        let (x, y, z): (Vec<usize>, Vec<usize>, Vec<usize>) =
            ((0..dx).collect(), (dx..dx + dy).collect(), (dx + dy..dx + dy + dz).collect());
        let cat = |a: &[usize], b: &[usize]| [a, b].concat();
        0.5 * (ln_det(self.block(&cat(&x, &z))) + ln_det(self.block(&cat(&y, &z)))
            - ln_det(self.block(&z))
            - ln_det(self.cov.clone()))
    }

    /// `I(X; Y)` in nats.
    pub fn true_mi(&self) -> f64 {
        let (dx, dy, _) = self.dims;
        let (x, y): (Vec<usize>, Vec<usize>) = ((0..dx).collect(), (dx..dx + dy).collect());
        0.5 * (ln_det(self.block(&x)) + ln_det(self.block(&y)) - ln_det(self.block(&[x.clone(), y.clone()].concat())))
    }

    /// The task's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// `n` joint samples `(x, y, z)`.
    pub fn sample(&self, n: usize, g: &mut dyn Rng) -> (DMatrix<f64>, DMatrix<f64>, DMatrix<f64>) {
        let d = self.cov.nrows();
        let e = DMatrix::from_fn(d, n, |_, _| g.sample::<f64, _>(StandardNormal));
        let v = (&self.chol * e).transpose();
        let (dx, dy, dz) = self.dims;
        (v.columns(0, dx).into_owned(), v.columns(dx, dy).into_owned(), v.columns(dx + dy, dz).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_forms_match_their_special_cases() {
        // Common cause: CMI 0, MI from ρ = A²/(A² + 1).
        let t = GaussianTriple::parse("common-cause-1").unwrap();
        assert!(t.true_cmi().abs() < 1e-12);
        assert!((t.true_mi() + 0.5 * (1.0f64 - 0.25).ln()).abs() < 1e-12);
        // Collider: MI 0, CMI −½ ln(1 − 1/(1 + S²)²).
        let t = GaussianTriple::parse("collider-1").unwrap();
        assert!(t.true_mi().abs() < 1e-12);
        assert!((t.true_cmi() + 0.5 * (1.0f64 - 0.25).ln()).abs() < 1e-12);
        // Chain: given z, y = c x + noise, so CMI = −½ ln(1 − c²/(c² + 1)).
        let t = GaussianTriple::parse("chain-2-0.5").unwrap();
        assert!((t.true_cmi() + 0.5 * (1.0f64 - 0.25 / 1.25).ln()).abs() < 1e-12);
        // Channel without error: ln M; Gao's M = 1: 0.
        let c = MixedTask::parse("channel-4-0").unwrap();
        assert!((c.true_mi() - 4f64.ln()).abs() < 1e-15);
        assert_eq!(MixedTask::parse("gao-uniform-1").unwrap().true_mi(), 0.0);
    }
}
