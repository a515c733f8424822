//! The one place matrix products happen: `C ← α·op(A)·op(B) + β·C` on column-major nalgebra
//! matrices and views, with two backends that give the same results (tested):
//!
//! - [`Backend::Native`]: the pure-Rust `matrixmultiply` kernel behind nalgebra's dynamic
//!   products, always available. Transposed operands are the same memory with swapped strides —
//!   never `tr_mul`/`gemm_tr`, which are an order of magnitude slower here.
//! - [`Backend::Blas`]: OpenBLAS through CBLAS (cargo feature `blas`, system `libopenblas-dev`);
//!   transposition is a CBLAS flag.
//!
//! The backend is chosen per call (callers carry it in a [`crate::compute::Compute`]). The
//! default ([`Backend::default`]) is `Blas` when it is compiled in and `Native` otherwise: OpenBLAS is as fast or faster on every critic shape
//! measured (docs/performance.md) and keeps its packing buffers between calls, so a training
//! step on it makes no heap allocation at all (tests/train_no_alloc.rs for Rust's allocator,
//! benches/count_allocations.sh for C's); `matrixmultiply` allocates one packing buffer per
//! product. OpenBLAS runs one thread per product unless [`set_blas_threads`] says otherwise.

use crate::real::Real;
use nalgebra::{DMatrixView, DMatrixViewMut};
use std::any::TypeId;
use std::sync::atomic::{AtomicU64, Ordering};

/// Whether an operand is used as stored or transposed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// As stored.
    N,
    /// Transposed.
    T,
}

/// A matrix-product implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// nalgebra / matrixmultiply, pure Rust.
    Native,
    /// OpenBLAS via CBLAS (feature `blas`).
    Blas,
}

impl Backend {
    /// The backends compiled into this build.
    pub fn available() -> &'static [Backend] {
        if cfg!(feature = "blas") { &[Backend::Native, Backend::Blas] } else { &[Backend::Native] }
    }

    /// `"native"` or `"blas"`.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Native => "native",
            Backend::Blas => "blas",
        }
    }
}

impl std::str::FromStr for Backend {
    type Err = crate::Error;
    fn from_str(s: &str) -> crate::Result<Self> {
        let b = match s {
            "native" => Backend::Native,
            "blas" => Backend::Blas,
            _ => {
                return Err(crate::Error::Unknown {
                    kind: "gemm backend",
                    name: s.into(),
                    known: "native, blas".into(),
                });
            }
        };
        if Backend::available().contains(&b) {
            Ok(b)
        } else {
            Err(crate::Error::param("gemm backend", s, "not compiled in: build with `--features blas`"))
        }
    }
}

static CALLS: AtomicU64 = AtomicU64::new(0);

impl Default for Backend {
    /// `Blas` when compiled in (as fast or faster on every critic shape measured, and
    /// allocation-free), `Native` otherwise.
    fn default() -> Self {
        if cfg!(feature = "blas") { Backend::Blas } else { Backend::Native }
    }
}

/// Products computed so far in this process (non-empty ones), for diagnostics: the native
/// backend's `matrixmultiply` allocates one packing buffer per product, which the
/// allocation test accounts for with this count.
pub fn calls() -> u64 {
    CALLS.load(Ordering::Relaxed)
}

/// Sets the number of OpenBLAS threads inside each product (default 1; no effect on the
/// native backend, which is single-threaded). Threads for a whole step are
/// [`crate::compute::Compute::threads`]. (This one is OpenBLAS's own process-wide setting:
/// prefer [`with_blas_threads`], which restores it.)
pub fn set_blas_threads(threads: usize) {
    #[cfg(feature = "blas")]
    blas::set_threads(threads);
    #[cfg(not(feature = "blas"))]
    let _ = threads;
}

/// The OpenBLAS threads inside each product (1 until set).
#[cfg(feature = "blas")]
pub fn blas_threads() -> usize {
    blas::threads()
}

/// The OpenBLAS threads inside each product: always 1 without the `blas` feature.
#[cfg(not(feature = "blas"))]
pub fn blas_threads() -> usize {
    1
}

/// Runs `f` with `threads` OpenBLAS threads inside each product, then restores the previous
/// count (also when `f` panics). OpenBLAS has no per-call thread count, so this is the narrowest
/// scope the setting can have.
pub fn with_blas_threads<R>(threads: usize, f: impl FnOnce() -> R) -> R {
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            set_blas_threads(self.0);
        }
    }
    let _restore = Restore(blas_threads());
    set_blas_threads(threads);
    f()
}

/// The shapes `(m, k, n, op(A), op(B))` on which [`measure_gflops`] measures the gemm peak: the
/// Poole critics' layer products at growing N, and a large square product.
pub const PEAK_SHAPES: [(usize, usize, usize, Op, Op); 6] = [
    (256, 256, 64, Op::N, Op::N),
    (256, 256, 512, Op::N, Op::N),
    (256, 256, 2048, Op::N, Op::N),
    (256, 2048, 256, Op::N, Op::T),
    (256, 256, 2048, Op::T, Op::N),
    (1024, 1024, 1024, Op::N, Op::N),
];

/// GFLOP/s of the current backend on one f32 product shape, `reps` timed repetitions after
/// three untimed ones. The machine's single-thread peak is the best of [`PEAK_SHAPES`].
pub fn measure_gflops(backend: Backend, shape: (usize, usize, usize, Op, Op), reps: usize) -> f64 {
    use nalgebra::DMatrix;
    let (m, k, n, oa, ob) = shape;
    let a = if oa == Op::N { DMatrix::<f32>::from_element(m, k, 0.5) } else { DMatrix::from_element(k, m, 0.5) };
    let b = if ob == Op::N { DMatrix::<f32>::from_element(k, n, 0.25) } else { DMatrix::from_element(n, k, 0.25) };
    let mut c = DMatrix::<f32>::zeros(m, n);
    for _ in 0..3 {
        gemm(backend, 1.0, a.as_view(), oa, b.as_view(), ob, 0.0, c.as_view_mut());
    }
    let t = std::time::Instant::now();
    for _ in 0..reps.max(1) {
        gemm(backend, 1.0, a.as_view(), oa, b.as_view(), ob, 0.0, c.as_view_mut());
    }
    2.0 * (m * k * n) as f64 * reps.max(1) as f64 / t.elapsed().as_secs_f64() / 1e9
}

/// A read-only column-major matrix over a slice: `rows × cols`, element `(i, j)` at
/// `data[i + j·rows]`.
pub fn view<T: Real>(data: &[T], rows: usize, cols: usize) -> DMatrixView<'_, T> {
    DMatrixView::from_slice(&data[..rows * cols], rows, cols)
}

/// A mutable column-major matrix over a slice.
pub fn view_mut<T: Real>(data: &mut [T], rows: usize, cols: usize) -> DMatrixViewMut<'_, T> {
    DMatrixViewMut::from_slice(&mut data[..rows * cols], rows, cols)
}

fn shape(m: &DMatrixView<'_, impl Real>, op: Op) -> (usize, usize) {
    match op {
        Op::N => (m.nrows(), m.ncols()),
        Op::T => (m.ncols(), m.nrows()),
    }
}

/// `C ← α·op(A)·op(B) + β·C` on `backend`. All three must be contiguous column-major (as made by [`view`],
/// [`view_mut`] or from a `DMatrix`). With `β = 0`, `C`'s previous content is ignored (NaNs
/// included).
///
/// # Panics
/// When the shapes do not conform or an operand is not contiguous: both are programming errors
/// inside the crate, never the result of user input.
#[allow(clippy::too_many_arguments)]
pub fn gemm<T: Real>(
    backend: Backend,
    alpha: T,
    a: DMatrixView<'_, T>,
    op_a: Op,
    b: DMatrixView<'_, T>,
    op_b: Op,
    beta: T,
    mut c: DMatrixViewMut<'_, T>,
) {
    let (m, k) = shape(&a, op_a);
    let (k2, n) = shape(&b, op_b);
    assert!(k == k2 && c.nrows() == m && c.ncols() == n, "gemm: {m}×{k} · {k2}×{n} into {:?}", c.shape());
    for (what, strides, rows) in
        [("A", a.strides(), a.nrows()), ("B", b.strides(), b.nrows()), ("C", c.strides(), c.nrows())]
    {
        assert!(strides.0 == 1 && (strides.1 == rows || rows == 0), "gemm: {what} must be contiguous column-major");
    }
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        c.scale_mut(beta);
        return;
    }
    CALLS.fetch_add(1, Ordering::Relaxed);
    match backend {
        Backend::Native => native(alpha, a, op_a, b, op_b, beta, c),
        Backend::Blas => {
            #[cfg(feature = "blas")]
            if m == 1 {
                // A row-vector result: OpenBLAS's small-matrix kernel for this shape mallocs a
                // buffer on every call (benches/count_allocations.sh found it in the concat
                // critic's output layer). The same product transposed, cᵀ = op(B)ᵀ·op(A)ᵀ, reads
                // and writes the same memory (a 1 × k or 1 × n column-major matrix is also its
                // own k × 1 or n × 1 transpose) and does not allocate.
                let flip = if op_b == Op::N { Op::T } else { Op::N };
                // SAFETY: checked above: `a` and `c` are contiguous with k and n elements.
                let (at, ct) = unsafe {
                    (
                        DMatrixView::from_slice(std::slice::from_raw_parts(a.as_ptr(), k), k, 1),
                        DMatrixViewMut::from_slice(std::slice::from_raw_parts_mut(c.as_mut_ptr(), n), n, 1),
                    )
                };
                blas::gemm(alpha, b, flip, at, Op::N, beta, ct);
            } else {
                blas::gemm(alpha, a, op_a, b, op_b, beta, c);
            }
            #[cfg(not(feature = "blas"))]
            unreachable!("the blas backend cannot be selected without the feature");
        }
    }
}

/// `(rows, cols, row stride, column stride)` of `op(m)` for a contiguous column-major `m`.
fn layout<T: Real>(m: &DMatrixView<'_, T>, op: Op) -> (usize, usize, isize, isize) {
    let (r, c) = m.shape();
    match op {
        Op::N => (r, c, 1, r as isize),
        // The same memory read with swapped strides: (c × r), row stride r, column stride 1.
        Op::T => (c, r, r as isize, 1),
    }
}

/// The pure-Rust backend: `matrixmultiply`, the kernel nalgebra's own dynamic `gemm` uses,
/// called directly with strides. (nalgebra's `gemm` itself falls back to a loop for dimensions
/// ≤ 5 that reads out of bounds on transposed strided views in nalgebra 0.35.)
fn native<T: Real>(
    alpha: T,
    a: DMatrixView<'_, T>,
    op_a: Op,
    b: DMatrixView<'_, T>,
    op_b: Op,
    beta: T,
    mut c: DMatrixViewMut<'_, T>,
) {
    let (m, k, rsa, csa) = layout(&a, op_a);
    let (_, n, rsb, csb) = layout(&b, op_b);
    let (rsc, csc) = (1isize, c.nrows() as isize);
    // SAFETY: `gemm` checked that the shapes conform and all three operands are contiguous
    // column-major, so every index matrixmultiply forms from these strides is in bounds; with
    // β = 0 it does not read C.
    unsafe {
        if TypeId::of::<T>() == TypeId::of::<f32>() {
            matrixmultiply::sgemm(
                m,
                k,
                n,
                alpha.to_f64() as f32,
                a.as_ptr() as *const f32,
                rsa,
                csa,
                b.as_ptr() as *const f32,
                rsb,
                csb,
                beta.to_f64() as f32,
                c.as_mut_ptr() as *mut f32,
                rsc,
                csc,
            );
        } else if TypeId::of::<T>() == TypeId::of::<f64>() {
            matrixmultiply::dgemm(
                m,
                k,
                n,
                alpha.to_f64(),
                a.as_ptr() as *const f64,
                rsa,
                csa,
                b.as_ptr() as *const f64,
                rsb,
                csb,
                beta.to_f64(),
                c.as_mut_ptr() as *mut f64,
                rsc,
                csc,
            );
        } else {
            unreachable!("Real is implemented for f32 and f64 only");
        }
    }
}

#[cfg(feature = "blas")]
mod blas {
    use super::Op;
    use crate::real::Real;
    use cblas_sys::{CBLAS_LAYOUT, CBLAS_TRANSPOSE, cblas_dgemm, cblas_sgemm};
    use nalgebra::{DMatrixView, DMatrixViewMut};
    use std::any::TypeId;
    use std::sync::atomic::{AtomicUsize, Ordering};

    unsafe extern "C" {
        fn openblas_set_num_threads(n: std::os::raw::c_int);
    }

    /// The thread count set, 0 until set; OpenBLAS's own default is every core, which
    /// oversubscribes the machine when steps or runs are already parallel.
    static THREADS: AtomicUsize = AtomicUsize::new(0);

    pub fn threads() -> usize {
        THREADS.load(Ordering::Relaxed).max(1)
    }

    pub fn set_threads(n: usize) {
        THREADS.store(n.max(1), Ordering::Relaxed);
        // SAFETY: a plain setter in OpenBLAS, callable at any time.
        unsafe { openblas_set_num_threads(n.max(1) as std::os::raw::c_int) }
    }

    fn flag(op: Op) -> CBLAS_TRANSPOSE {
        match op {
            Op::N => CBLAS_TRANSPOSE::CblasNoTrans,
            Op::T => CBLAS_TRANSPOSE::CblasTrans,
        }
    }

    pub fn gemm<T: Real>(
        alpha: T,
        a: DMatrixView<'_, T>,
        op_a: Op,
        b: DMatrixView<'_, T>,
        op_b: Op,
        beta: T,
        mut c: DMatrixViewMut<'_, T>,
    ) {
        if THREADS.load(Ordering::Relaxed) == 0 {
            set_threads(1);
        }
        let (m, n) = c.shape();
        let k = if op_a == Op::N { a.ncols() } else { a.nrows() };
        let (lda, ldb, ldc) = (a.nrows().max(1) as i32, b.nrows().max(1) as i32, m.max(1) as i32);
        let (ta, tb) = (flag(op_a), flag(op_b));
        let layout = CBLAS_LAYOUT::CblasColMajor;
        // SAFETY: shapes and contiguity were checked by the caller; the pointers are valid for
        // the extents CBLAS reads and writes (ld = rows of each contiguous column-major operand).
        unsafe {
            if TypeId::of::<T>() == TypeId::of::<f32>() {
                cblas_sgemm(
                    layout,
                    ta,
                    tb,
                    m as i32,
                    n as i32,
                    k as i32,
                    alpha.to_f64() as f32,
                    a.as_ptr() as *const f32,
                    lda,
                    b.as_ptr() as *const f32,
                    ldb,
                    beta.to_f64() as f32,
                    c.as_mut_ptr() as *mut f32,
                    ldc,
                );
            } else if TypeId::of::<T>() == TypeId::of::<f64>() {
                cblas_dgemm(
                    layout,
                    ta,
                    tb,
                    m as i32,
                    n as i32,
                    k as i32,
                    alpha.to_f64(),
                    a.as_ptr() as *const f64,
                    lda,
                    b.as_ptr() as *const f64,
                    ldb,
                    beta.to_f64(),
                    c.as_mut_ptr() as *mut f64,
                    ldc,
                );
            } else {
                unreachable!("Real is sealed: only f32 and f64 reach the BLAS backend");
            }
        }
    }
}
