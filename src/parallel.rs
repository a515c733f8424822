//! How many threads one training step may use. With more than one, independent halves of a
//! step run concurrently (the separable and cosine critics' two encoders, each with its share
//! of the score gradient; the concat critic's two halves of pair blocks; the two halves of
//! Adam's element-wise update); the arithmetic is unchanged, so results are bit-identical for
//! any setting (tests/parallel_steps.rs).

use std::sync::atomic::{AtomicUsize, Ordering};

static THREADS: AtomicUsize = AtomicUsize::new(1);

/// Allows a step to use up to `n` threads (from rayon's global pool). Default 1.
pub fn set_threads(n: usize) {
    THREADS.store(n.max(1), Ordering::Relaxed);
}

/// The current setting.
pub fn threads() -> usize {
    THREADS.load(Ordering::Relaxed)
}

/// Runs `f` on a worker of rayon's global pool when more than one thread is allowed, so that
/// the [`join`]s inside it are cheap: a join called from outside the pool sends both halves to
/// the pool and puts the caller to sleep until they finish (two wake-ups per join, which cost
/// more than a small encoder's forward pass), while a join on a worker runs one half in place
/// and leaves the other to the second worker. The training runner wraps its whole loop in this.
pub fn on_pool<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    if threads() > 1 && rayon::current_thread_index().is_none() { rayon::scope(|_| f()) } else { f() }
}

/// Runs `a` and `b`, concurrently when more than one thread is allowed.
pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    if threads() > 1 { rayon::join(a, b) } else { (a(), b()) }
}
