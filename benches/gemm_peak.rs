//! GFLOP/s of the gemm backends on the shapes of the Poole critics:
//! `cargo bench [--features blas] --bench gemm_peak [-- REPS]`.
use mibound::gemm::{Backend, PEAK_SHAPES, measure_gflops, set_blas_threads};

fn main() {
    set_blas_threads(1);
    let reps: usize = std::env::args().skip(1).find_map(|s| s.parse().ok()).unwrap_or(50);
    for &b in Backend::available() {
        for shape @ (m, k, n, oa, ob) in PEAK_SHAPES {
            println!("{:>6} {m}x{k}x{n} {oa:?}{ob:?}: {:.1} GFLOP/s", b.name(), measure_gflops(b, shape, reps));
        }
    }
}
