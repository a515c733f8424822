//! Critics: trainable functions `f(x, y)` that produce the score matrix every bound consumes.
//!
//! A critic maps a batch `x` (`N × dim_x`, one sample per row) and `y` (`M × dim_y`) to the score
//! matrix `S` (`N × M`, `S_ij = f(x_i, y_j)`: the crate's one convention, see [`crate::bounds`])
//! and, given `∂L/∂S`, returns the gradient with respect to its parameters. It never knows which
//! bound consumes its scores.
//!
//! Parameters live outside the critic in one flat vector (so an optimiser, a checkpoint or a
//! finite-difference test sees a single slice); the critic holds only its architecture, forward
//! caches and scratch space, all reused from step to step without allocating.
//!
//! | critic | score | reference |
//! |---|---|---|
//! | [`Separable`] | `f(x)ᵀ g(y)`, or cosine `f̂(x)ᵀ ĝ(y) / τ` | Poole et al. 2019; SimCLR/MoCo (cosine) |
//! | [`Bilinear`] | `xᵀ W y` or `f(x)ᵀ W g(y)` | CPC (van den Oord et al. 2018) |
//! | [`Concat`] | `h([x; y])` on all `N·M` pairs | MINE (Belghazi et al. 2018) |
//! | [`GaussianConditional`] | `log q(y|x)`, `q = N(μ(x), diag σ²(x))` | CLUB (Cheng et al. 2020), Barber & Agakov 2003 |
//! | [`Knn`] (not trained) | `log` of shared nearest neighbours in a reference set over `k²/M` | after Kraskov et al. 2004's neighbourhoods |
//! | [`Elliptical`] (not trained) | the log density ratio of a jointly Gaussian or Student-t model, its covariance shrunk (Ledoit–Wolf) | the optimal critic of such data |
//! | [`KnnSum`] (not trained) | `Σ_b` of [`Knn`] critics on blocks of dependent columns ([`crate::blocks::dependent_blocks`]) | `I(X; Y) = Σ_b I(X_b; Y_b)` for independent blocks |

mod bilinear;
mod concat;
mod elliptical;
mod gaussian;
mod knn;
pub mod mlp;
mod moco;
mod separable;

pub use bilinear::Bilinear;
pub use concat::Concat;
pub use elliptical::{Elliptical, Tails};
pub use gaussian::{GaussianConditional, Variance};
pub use knn::{Knn, KnnSum};
pub use mlp::{Activation, Init, Mlp, MlpSpec};
pub use moco::Moco;
pub use separable::{Separable, Similarity};

use crate::compute::Compute;
use crate::error::{Error, Result};
use crate::real::Real;
use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

/// A trainable critic `f(x, y)`; see the module docs.
pub trait Critic<T: Real>: Send {
    /// A short name (`"separable"`, `"bilinear"`, `"concat"`).
    fn name(&self) -> &'static str;
    /// Dimension of `x`.
    fn dim_x(&self) -> usize;
    /// Dimension of `y`.
    fn dim_y(&self) -> usize;
    /// Length of the parameter vector.
    fn n_params(&self) -> usize;
    /// Initialises a parameter vector of length [`Critic::n_params`].
    fn init_into(&self, params: &mut [T], init: Init, rng: &mut dyn crate::rng::Rng);

    /// Sets the parameters so that the scores carry no information about the pairing (a
    /// constant critic, or `q(y|x)` independent of x): every bound then starts at 0 nats, a
    /// baseline that training must beat on validation data to be selected.
    fn zero_output(&self, params: &mut [T]);

    /// A freshly initialised parameter vector from a seed.
    fn init_params(&self, init: Init, seed: u64) -> Vec<T> {
        let mut p = vec![T::zero(); self.n_params()];
        self.init_into(&mut p, init, &mut crate::rng::rng(seed));
        p
    }

    /// Computes `S_ij = f(x_i, y_j)` into `s` (resized to `N × M` if needed) and keeps what
    /// [`Critic::backward`] needs.
    fn scores(&mut self, params: &[T], x: &DMatrix<T>, y: &DMatrix<T>, s: &mut DMatrix<T>) -> Result<()>;

    /// Given `∂L/∂S` for the last [`Critic::scores`] call, writes `∂L/∂params` into `grads`
    /// (overwriting it).
    fn backward(&mut self, params: &[T], ds: &DMatrix<T>, grads: &mut [T]) -> Result<()>;

    /// Multiply-adds of one forward plus backward pass at batch size `n` (`n × n` scores), for
    /// throughput reporting.
    fn macs_per_step(&self, n: usize) -> f64;

    /// Sets the matrix-product backend and the threads one pass may use (default:
    /// [`Compute::default`]). Results are bit-identical for any thread count.
    fn set_compute(&mut self, compute: Compute);

    /// Called by the training step after each optimiser update (MoCo's momentum update and
    /// queue). No-op for ordinary critics.
    fn after_step(&mut self, _params: &[T]) {}

    /// For a critic that models `q(y|x)` in closed form: the variational upper bound
    /// `E_x KL(q(y|x) ‖ r(y))` of the last batch with the best diagonal-Gaussian `r`. `None` for
    /// critics without a normalised conditional.
    fn variational_upper_bound(&self) -> Option<f64> {
        None
    }
}

/// Checks the inputs of [`Critic::scores`] and shapes `s`.
pub(crate) fn check_inputs<T: Real>(
    name: &str,
    (dx, dy, np): (usize, usize, usize),
    params: &[T],
    x: &DMatrix<T>,
    y: &DMatrix<T>,
    s: &mut DMatrix<T>,
) -> Result<()> {
    let shape_err = |what: &str, expected: String, got: String| {
        Err(Error::Shape { what: format!("{name} critic: {what}"), expected, got })
    };
    if params.len() != np {
        return shape_err("parameters", format!("length {np}"), format!("length {}", params.len()));
    }
    if x.ncols() != dx || x.nrows() == 0 {
        return shape_err("x", format!("N × {dx} with N ≥ 1"), format!("{} × {}", x.nrows(), x.ncols()));
    }
    if y.ncols() != dy || y.nrows() == 0 {
        return shape_err("y", format!("M × {dy} with M ≥ 1"), format!("{} × {}", y.nrows(), y.ncols()));
    }
    if s.shape() != (x.nrows(), y.nrows()) {
        *s = DMatrix::zeros(x.nrows(), y.nrows());
    }
    Ok(())
}

/// Checks the inputs of [`Critic::backward`].
pub(crate) fn check_backward<T: Real>(
    name: &str,
    shape: (usize, usize),
    np: usize,
    ds: &DMatrix<T>,
    grads: &[T],
) -> Result<()> {
    if ds.shape() != shape || shape.0 == 0 {
        return Err(Error::Shape {
            what: format!("{name} critic: ∂L/∂S (call scores first)"),
            expected: format!("{} × {}", shape.0, shape.1),
            got: format!("{} × {}", ds.nrows(), ds.ncols()),
        });
    }
    if grads.len() != np {
        return Err(Error::Shape {
            what: format!("{name} critic: gradients"),
            expected: format!("length {np}"),
            got: format!("length {}", grads.len()),
        });
    }
    Ok(())
}

/// Copies `m` (`N × d`, samples as rows) into `out` as `d × N` (features × batch).
pub(crate) fn transpose_into<T: Real>(m: &DMatrix<T>, out: &mut Vec<T>) {
    let (n, d) = m.shape();
    out.resize(n * d, T::zero());
    for (k, col) in m.as_slice().chunks_exact(n.max(1)).enumerate().take(d) {
        for (i, &v) in col.iter().enumerate() {
            out[i * d + k] = v;
        }
    }
}

/// A critic chosen by name with its sizes: the serialisable description used by the runner,
/// checkpoints and the results files.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "critic", rename_all = "lowercase")]
pub enum CriticSpec {
    /// [`Separable`].
    Separable {
        /// Hidden widths of `f` and `g`.
        hidden: Vec<usize>,
        /// Embedding dimension.
        embed: usize,
        /// Hidden activation.
        activation: Activation,
        /// Dot product or cosine with temperature.
        similarity: Similarity,
    },
    /// [`Bilinear`]; `hidden = None` is `xᵀ W y` on the raw inputs.
    Bilinear {
        /// Encoder hidden widths, or `None` for identity encoders.
        hidden: Option<Vec<usize>>,
        /// Embedding dimension of the encoders (ignored without encoders).
        embed: usize,
        /// Hidden activation.
        activation: Activation,
    },
    /// [`GaussianConditional`]: scores are `log q(y_j | x_i)`, for the upper bounds and BA.
    Gaussian {
        /// Hidden widths of the MLP `x → (μ, log σ²)`.
        hidden: Vec<usize>,
        /// Hidden activation.
        activation: Activation,
        /// Learned (bounded) or fixed log-variance.
        variance: Variance,
    },
    /// [`Moco`]: a shared encoder for x (queries) and y (keys, momentum copy), cosine / τ, and
    /// a queue of past keys as extra negatives (needs `dim_x == dim_y`; use with InfoNCE).
    Moco {
        /// Hidden widths of the encoder.
        hidden: Vec<usize>,
        /// Embedding dimension.
        embed: usize,
        /// Hidden activation.
        activation: Activation,
        /// Temperature τ.
        tau: f64,
        /// Momentum m of `θk ← m·θk + (1 − m)·θq`.
        momentum: f64,
        /// Queue length K (a multiple of the batch is natural).
        queue: usize,
    },
    /// [`Concat`].
    Concat {
        /// Hidden widths (the first is the split layer `Wx·x + Wy·y`).
        hidden: Vec<usize>,
        /// Hidden activation.
        activation: Activation,
    },
}

impl CriticSpec {
    /// The separable critic of Poole et al. 2019: two MLPs `d → 256 → 256 → 32`, ReLU.
    pub fn poole_separable() -> Self {
        CriticSpec::Separable {
            hidden: vec![256, 256],
            embed: 32,
            activation: Activation::Relu,
            similarity: Similarity::Dot,
        }
    }

    /// The concat critic of Poole et al. 2019: one MLP `2d → 256 → 256 → 1`, ReLU.
    pub fn poole_concat() -> Self {
        CriticSpec::Concat { hidden: vec![256, 256], activation: Activation::Relu }
    }

    /// The conditional Gaussian `q(y|x)` for CLUB and BA: an MLP `d → 256 → 256 → 2d`, ReLU,
    /// log-variance learned in `[−10, 10]`.
    pub fn gaussian() -> Self {
        CriticSpec::Gaussian { hidden: vec![256, 256], activation: Activation::Relu, variance: Variance::default() }
    }

    /// Parses `separable`, `bilinear`, `cpc` (bilinear with encoders), `concat`, `cosine`,
    /// `gaussian` and `gaussian-mean` (fixed unit variance, CLUB-mean) with the Poole et al. sizes.
    pub fn parse(s: &str) -> Result<Self> {
        Ok(match s {
            "separable" => Self::poole_separable(),
            "cosine" => CriticSpec::Separable {
                hidden: vec![256, 256],
                embed: 32,
                activation: Activation::Relu,
                similarity: Similarity::Cosine { tau: 0.1, learn: true },
            },
            "concat" => Self::poole_concat(),
            "gaussian" => Self::gaussian(),
            "moco" => CriticSpec::Moco {
                hidden: vec![256, 256],
                embed: 32,
                activation: Activation::Relu,
                tau: 0.1,
                momentum: 0.99,
                queue: 1024,
            },
            "gaussian-mean" => CriticSpec::Gaussian {
                hidden: vec![256, 256],
                activation: Activation::Relu,
                variance: Variance::Fixed { log_var: 0.0 },
            },
            "bilinear" => CriticSpec::Bilinear { hidden: None, embed: 0, activation: Activation::Relu },
            "cpc" => CriticSpec::Bilinear { hidden: Some(vec![256, 256]), embed: 32, activation: Activation::Relu },
            _ => {
                return Err(Error::Unknown {
                    kind: "critic",
                    name: s.into(),
                    known: "separable, cosine, bilinear, cpc, concat, gaussian, gaussian-mean, moco".into(),
                });
            }
        })
    }

    /// Builds the critic for inputs of the given dimensions, computing with `compute`.
    pub fn build_with<T: Real>(&self, dim_x: usize, dim_y: usize, compute: Compute) -> Result<Box<dyn Critic<T>>> {
        let mut c = self.build::<T>(dim_x, dim_y)?;
        c.set_compute(compute);
        Ok(c)
    }

    /// Builds the critic for inputs of the given dimensions ([`Compute::default`]).
    pub fn build<T: Real>(&self, dim_x: usize, dim_y: usize) -> Result<Box<dyn Critic<T>>> {
        if dim_x == 0 || dim_y == 0 {
            return Err(Error::param("critic input dimension", 0, "must be at least 1"));
        }
        let (hidden, embed): (&[usize], Option<usize>) = match self {
            CriticSpec::Separable { hidden, embed, .. } | CriticSpec::Moco { hidden, embed, .. } => {
                (hidden, Some(*embed))
            }
            CriticSpec::Bilinear { hidden: Some(h), embed, .. } => (h, Some(*embed)),
            CriticSpec::Bilinear { hidden: None, .. } => (&[], None),
            CriticSpec::Gaussian { hidden, .. } | CriticSpec::Concat { hidden, .. } => (hidden, None),
        };
        if hidden.contains(&0) {
            return Err(Error::param("hidden width", 0, "every hidden layer needs at least 1 unit"));
        }
        if embed == Some(0) {
            return Err(Error::param("embedding dimension", 0, "must be at least 1"));
        }
        Ok(match self {
            CriticSpec::Separable { hidden, embed, activation, similarity } => {
                Box::new(Separable::new(dim_x, dim_y, hidden, *embed, *activation, *similarity)?)
            }
            CriticSpec::Bilinear { hidden, embed, activation } => {
                Box::new(Bilinear::new(dim_x, dim_y, hidden.as_deref(), *embed, *activation)?)
            }
            CriticSpec::Concat { hidden, activation } => Box::new(Concat::new(dim_x, dim_y, hidden, *activation)?),
            CriticSpec::Moco { hidden, embed, activation, tau, momentum, queue } => {
                Box::new(Moco::new(dim_x, dim_y, hidden, *embed, *activation, *tau, *momentum, *queue)?)
            }
            CriticSpec::Gaussian { hidden, activation, variance } => {
                Box::new(GaussianConditional::new(dim_x, dim_y, hidden, *activation, *variance)?)
            }
        })
    }
}
