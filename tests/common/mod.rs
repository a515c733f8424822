//! Helpers shared by the integration tests.
#![allow(dead_code)]

use nalgebra::DMatrix;
use rand::RngExt;
use rand_distr::StandardNormal;

/// A random `r × c` matrix with entries `scale · N(0, 1)` from a fixed seed.
pub fn random_matrix(r: usize, c: usize, scale: f64, seed: u64) -> DMatrix<f64> {
    let mut g = mibound::data::rng(seed);
    DMatrix::from_fn(r, c, |_, _| scale * g.sample::<f64, _>(StandardNormal))
}

/// Central finite differences of `f` at `m`, one entry at a time.
pub fn numeric_grad(m: &DMatrix<f64>, h: f64, mut f: impl FnMut(&DMatrix<f64>) -> f64) -> DMatrix<f64> {
    let mut probe = m.clone();
    DMatrix::from_fn(m.nrows(), m.ncols(), |i, j| {
        let v = m[(i, j)];
        probe[(i, j)] = v + h;
        let up = f(&probe);
        probe[(i, j)] = v - h;
        let down = f(&probe);
        probe[(i, j)] = v;
        (up - down) / (2.0 * h)
    })
}

/// Asserts `analytic ≈ numeric` entry-wise with a relative-plus-absolute tolerance.
///
/// Central differences with step `h` have truncation error `O(h²·f''')` and rounding error
/// `O(ε·|f|/h)`; with `h = 1e-5` in f64 both are below `1e-8` for the smooth, O(1)-scaled
/// functions tested here, so `1e-6` leaves two orders of magnitude of margin without hiding a
/// wrong factor (which shows as an O(1) relative error).
pub fn assert_grad_close(what: &str, analytic: &DMatrix<f64>, numeric: &DMatrix<f64>) {
    assert_eq!(analytic.shape(), numeric.shape(), "{what}: shapes");
    for i in 0..analytic.nrows() {
        for j in 0..analytic.ncols() {
            let (a, n) = (analytic[(i, j)], numeric[(i, j)]);
            let tol = 1e-6 * (1.0 + n.abs());
            assert!((a - n).abs() <= tol, "{what}: entry ({i}, {j}) analytic {a:e} vs numeric {n:e}");
        }
    }
}

/// Mean and standard error of a sample.
pub fn mean_se(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0);
    (m, (var / n).sqrt())
}

/// Checks `grads` (∂L/∂params from a backward pass) against central differences of `loss`,
/// one parameter at a time; tolerance as in [`assert_grad_close`].
pub fn assert_param_grads(what: &str, params: &[f64], grads: &[f64], mut loss: impl FnMut(&[f64]) -> f64) {
    let h = 1e-5;
    let mut p = params.to_vec();
    for k in 0..params.len() {
        p[k] = params[k] + h;
        let up = loss(&p);
        p[k] = params[k] - h;
        let down = loss(&p);
        p[k] = params[k];
        let num = (up - down) / (2.0 * h);
        assert!(
            (grads[k] - num).abs() <= 1e-6 * (1.0 + num.abs()),
            "{what}: parameter {k}: analytic {} vs numeric {num}",
            grads[k]
        );
    }
}

/// The `mibound` command line built with the tests.
pub fn mibound() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_mibound"))
}

/// A fresh temporary directory for test `name` of suite `suite`, removed with its files when
/// the value is dropped (at the end of the test, or when it fails): runs of the suite left a
/// directory per test in the system's temporary directory.
pub fn temp_dir(suite: &str, name: &str) -> TempDir {
    let d = std::env::temp_dir().join(format!("mibound-{suite}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    TempDir(d)
}

/// The directory of [`temp_dir`]: reads as its path.
pub struct TempDir(std::path::PathBuf);

impl std::ops::Deref for TempDir {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::path::Path> for TempDir {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for TempDir {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `n × m` approximate normals exactly as `tests/reference/classical_reference.py`'s `normals` draws
/// them (row-major): splitmix64 → 53-bit uniforms → sum of 12 minus 6.
pub fn splitmix_normals(seed: u64, n: usize, m: usize) -> DMatrix<f64> {
    let mut state = seed;
    let mut out = DMatrix::zeros(n, m);
    for i in 0..n {
        for j in 0..m {
            let mut s = 0.0;
            for _ in 0..12 {
                state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = state;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                z ^= z >> 31;
                s += (z >> 11) as f64 * (1.0 / 9007199254740992.0);
            }
            out[(i, j)] = s - 6.0;
        }
    }
    out
}

/// Every `.rs` file under `dir`, recursively (for the tests that read the sources).
pub fn rust_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(rust_files(&p));
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    out
}
