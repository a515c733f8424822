//! The `mibound` command-line tool; see `mibound --help`.

fn main() -> std::process::ExitCode {
    mibound::cli::main()
}
