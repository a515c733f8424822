//! The floating-point scalar type of the crate: `f32` (the training default) or `f64`.

use nalgebra::RealField;

mod sealed {
    /// Only this crate implements [`super::Real`]: the BLAS backend hands `f32`/`f64` buffers to
    /// `cblas_sgemm`/`cblas_dgemm` by type, which would be unsound for any other type.
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// A real scalar usable in score matrices, critics and bounds.
///
/// Implemented for `f32` and `f64` only (the trait is sealed). Bound values are accumulated in `f64` whatever `T` is;
/// element-wise work (exponentials, gradients) runs in `T`.
pub trait Real:
    sealed::Sealed
    + RealField
    + Copy
    + Default
    + std::fmt::Debug
    + std::fmt::Display
    + serde::Serialize
    + serde::de::DeserializeOwned
    + Send
    + Sync
    + 'static
{
    /// Converts from `f64` (rounding for `f32`).
    fn of(v: f64) -> Self;
    /// Converts to `f64` (exact).
    fn to_f64(self) -> f64;
    /// Machine epsilon of the type.
    fn epsilon() -> Self;
    /// The largest finite value of the type.
    fn max_finite() -> Self;
    /// `true` when neither NaN nor infinite.
    fn finite(self) -> bool;
    /// A short name, `"f32"` or `"f64"`.
    fn type_name() -> &'static str;
}

impl Real for f32 {
    #[inline]
    fn of(v: f64) -> Self {
        v as f32
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn epsilon() -> Self {
        f32::EPSILON
    }
    fn max_finite() -> Self {
        f32::MAX
    }
    #[inline]
    fn finite(self) -> bool {
        self.is_finite()
    }
    fn type_name() -> &'static str {
        "f32"
    }
}

impl Real for f64 {
    #[inline]
    fn of(v: f64) -> Self {
        v
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self
    }
    fn epsilon() -> Self {
        f64::EPSILON
    }
    fn max_finite() -> Self {
        f64::MAX
    }
    #[inline]
    fn finite(self) -> bool {
        self.is_finite()
    }
    fn type_name() -> &'static str {
        "f64"
    }
}
