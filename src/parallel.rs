//! How many threads one training step may use. With more than one, independent halves of a
//! step run concurrently (the separable critic's two encoders; the concat critic's pair
//! blocks); the arithmetic is unchanged, so results are bit-identical for any setting.

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
