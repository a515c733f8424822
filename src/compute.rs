//! How the numbers are computed: the matrix-product backend and how many threads one training
//! step may use. A [`Compute`] is a plain value carried by the configuration of whatever runs
//! (critics, Adam, the training runner, estimators), never a process-wide setting, so two
//! estimates with different settings can run side by side in one process.
//!
//! With more than one thread, independent halves of a step run concurrently (the separable and
//! cosine critics' two encoders, each with its share of the score gradient; the concat critic's
//! two halves of pair blocks; the two halves of Adam's element-wise update); the arithmetic is
//! unchanged, so results are bit-identical for any thread count (tests/parallel_steps.rs).

use crate::error::{Error, Result};
use crate::gemm::{Backend, Op};
use crate::real::Real;
use nalgebra::{DMatrixView, DMatrixViewMut};
use serde::{Deserialize, Serialize};

/// The matrix-product backend and the threads one step may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Compute {
    /// The gemm backend.
    pub backend: Backend,
    /// Threads one step may use (from rayon's pool); 1 runs everything on the caller's thread.
    pub threads: usize,
}

impl Default for Compute {
    /// The build's default backend ([`Backend::default`]) on one thread.
    fn default() -> Self {
        Compute { backend: Backend::default(), threads: 1 }
    }
}

impl Compute {
    /// A context with `backend` and `threads`; an error when the backend is not compiled in or
    /// `threads` is 0.
    pub fn new(backend: Backend, threads: usize) -> Result<Self> {
        if !Backend::available().contains(&backend) {
            return Err(Error::param("gemm backend", backend.name(), "not compiled in: build with `--features blas`"));
        }
        if threads == 0 {
            return Err(Error::param("threads", 0, "must be at least 1"));
        }
        Ok(Compute { backend, threads })
    }

    /// The default backend with `threads` threads per step.
    pub fn with_threads(threads: usize) -> Result<Self> {
        Self::new(Backend::default(), threads)
    }

    /// `C ← α·op(A)·op(B) + β·C` on this context's backend; see [`crate::gemm::gemm`].
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn gemm<T: Real>(
        &self,
        alpha: T,
        a: DMatrixView<'_, T>,
        op_a: Op,
        b: DMatrixView<'_, T>,
        op_b: Op,
        beta: T,
        c: DMatrixViewMut<'_, T>,
    ) {
        crate::gemm::gemm(self.backend, alpha, a, op_a, b, op_b, beta, c)
    }

    /// Runs `f` on a worker of rayon's global pool when more than one thread is allowed, so that
    /// the [`Compute::join`]s inside it are cheap: a join called from outside the pool sends both
    /// halves to the pool and puts the caller to sleep until they finish (two wake-ups per join,
    /// which cost more than a small encoder's forward pass), while a join on a worker runs one
    /// half in place and leaves the other to the second worker. The training runner wraps its
    /// whole loop in this.
    pub fn on_pool<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        if self.threads > 1 && rayon::current_thread_index().is_none() { rayon::scope(|_| f()) } else { f() }
    }

    /// Runs `f` on a rayon pool of its own with [`Compute::threads`] workers, not on rayon's
    /// global pool, so a command's thread count is never a process-wide setting; the
    /// [`Compute::on_pool`]s and joins inside `f` use this pool.
    pub fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> Result<R> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.threads)
            .build()
            .map_err(|e| Error::param("threads", self.threads, &e.to_string()))?;
        Ok(pool.install(f))
    }

    /// Runs `a` and `b`, concurrently when more than one thread is allowed.
    pub fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        if self.threads > 1 { rayon::join(a, b) } else { (a(), b()) }
    }
}
