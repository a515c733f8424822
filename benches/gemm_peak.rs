//! GFLOP/s of the gemm backends on the shapes of the Poole critics:
//! `cargo bench [--features blas] --bench gemm_peak [-- REPS]`.
use mibound::gemm::{Backend, Op, gemm, set_backend, set_blas_threads};
use nalgebra::DMatrix;

fn main() {
    set_blas_threads(1);
    let reps: usize = std::env::args().skip(1).find_map(|s| s.parse().ok()).unwrap_or(50);
    for &b in Backend::available() {
        set_backend(b).unwrap();
        for (m, k, n, oa, ob) in [
            (256, 256, 64, Op::N, Op::N),
            (256, 256, 512, Op::N, Op::N),
            (256, 256, 2048, Op::N, Op::N),
            (256, 2048, 256, Op::N, Op::T),
            (256, 256, 2048, Op::T, Op::N),
            (1024, 1024, 1024, Op::N, Op::N),
        ] {
            let a =
                if oa == Op::N { DMatrix::<f32>::from_element(m, k, 0.5) } else { DMatrix::from_element(k, m, 0.5) };
            let bm =
                if ob == Op::N { DMatrix::<f32>::from_element(k, n, 0.25) } else { DMatrix::from_element(n, k, 0.25) };
            let mut c = DMatrix::<f32>::zeros(m, n);
            for _ in 0..3 {
                gemm(1.0, a.as_view(), oa, bm.as_view(), ob, 0.0, c.as_view_mut());
            }
            let t = std::time::Instant::now();
            for _ in 0..reps {
                gemm(1.0, a.as_view(), oa, bm.as_view(), ob, 0.0, c.as_view_mut());
            }
            let s = t.elapsed().as_secs_f64() / reps as f64;
            println!("{:>6} {m}x{k}x{n} {oa:?}{ob:?}: {:.1} GFLOP/s", b.name(), 2.0 * (m * k * n) as f64 / s / 1e9);
        }
    }
}
