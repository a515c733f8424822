fn main() {
    // The `blas` feature links the system OpenBLAS (Debian: libopenblas-dev) directly; the
    // openblas-src crate is avoided because it pulls in a TLS stack to download sources.
    if std::env::var_os("CARGO_FEATURE_BLAS").is_some() {
        println!("cargo:rustc-link-lib=dylib=openblas");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
