//! `cargo bench --bench throughput -- [--out DIR] [--quick] [--seed S]`: see `mibound::figures`.

fn main() {
    let run = mibound::figures::FigureOpts::from_args(std::env::args().skip(1))
        .and_then(|o| mibound::figures::run("throughput", &o));
    if let Err(e) = run {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}
