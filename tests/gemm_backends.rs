//! The gemm module against a naive triple loop, for every transpose combination, small and
//! large sizes, f32 and f64, and (with `--features blas`) both backends against each other.

use crate::common;

use common::random_matrix;
use mibound::compute::Compute;
use mibound::gemm::{Backend, Op, gemm};
use nalgebra::DMatrix;

fn naive(a: &DMatrix<f64>, op_a: Op, b: &DMatrix<f64>, op_b: Op) -> DMatrix<f64> {
    let a = if op_a == Op::T { a.transpose() } else { a.clone() };
    let b = if op_b == Op::T { b.transpose() } else { b.clone() };
    DMatrix::from_fn(a.nrows(), b.ncols(), |i, j| (0..a.ncols()).map(|k| a[(i, k)] * b[(k, j)]).sum())
}

fn check_all(backend: Backend) {
    for &(m, k, n) in
        &[(1, 1, 1), (3, 2, 4), (5, 5, 5), (7, 3, 1), (1, 256, 300), (1, 7, 1), (64, 20, 256), (33, 65, 17)]
    {
        for op_a in [Op::N, Op::T] {
            for op_b in [Op::N, Op::T] {
                let a = if op_a == Op::N { random_matrix(m, k, 1.0, 1) } else { random_matrix(k, m, 1.0, 1) };
                let b = if op_b == Op::N { random_matrix(k, n, 1.0, 2) } else { random_matrix(n, k, 1.0, 2) };
                let want = naive(&a, op_a, &b, op_b);
                // β = 0 must ignore NaN garbage in C; β = 1 accumulates.
                let mut c = DMatrix::from_element(m, n, f64::NAN);
                gemm(backend, 1.0, a.as_view(), op_a, b.as_view(), op_b, 0.0, c.as_view_mut());
                assert!((&c - &want).amax() < 1e-12 * (k as f64), "{backend:?} f64 {m}×{k}×{n} {op_a:?}{op_b:?}");
                let mut c2 = want.clone();
                gemm(backend, 2.0, a.as_view(), op_a, b.as_view(), op_b, 1.0, c2.as_view_mut());
                assert!((&c2 - &want * 3.0).amax() < 1e-11 * (k as f64));
                let (a32, b32) = (a.map(|v| v as f32), b.map(|v| v as f32));
                let mut c32 = DMatrix::<f32>::zeros(m, n);
                gemm(backend, 1.0, a32.as_view(), op_a, b32.as_view(), op_b, 0.0, c32.as_view_mut());
                // f32: each product and sum rounds at 6e-8 relative; k terms of size ≤ ~3.
                assert!((c32.map(|v| v as f64) - &want).amax() < 1e-5 * (k as f64), "{backend:?} f32 {m}×{k}×{n}");
            }
        }
    }
}

#[test]
fn native_backend_matches_naive_products() {
    check_all(Backend::Native);
}

#[test]
fn every_available_backend_matches_naive_products() {
    for &b in Backend::available() {
        check_all(b);
    }
    if !cfg!(feature = "blas") {
        assert!(Compute::new(Backend::Blas, 1).is_err(), "blas must be refused when not compiled in");
        assert!("blas".parse::<Backend>().is_err());
    }
}

#[test]
fn the_default_backend_is_openblas_when_compiled_in() {
    let expected = if cfg!(feature = "blas") { Backend::Blas } else { Backend::Native };
    assert_eq!(Backend::default(), expected);
    assert_eq!(Compute::default().backend, expected);
}
