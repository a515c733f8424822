//! The `mibound` command line: estimate MI on a user's files, sample built-in tasks, train and
//! benchmark. Every error is one line on stderr and exit code 2.

mod benchmark;
mod bmi;
mod conditional;
mod demo;
mod estimate;
mod features;
mod kinds;
mod load;
mod matrix;
mod optimal;
mod output;
mod progress;
mod report;
mod sample;
mod tasks;
mod throughput;
mod trace_plot;
mod train;

use crate::estimators::{DEFAULT_SEED, Options};
use crate::tasks::Parametric;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// Mutual-information estimation with variational bounds and neural critics.
#[derive(Parser, Debug)]
#[command(name = "mibound", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Training options shared by `estimate` and `bmi`.
#[derive(Args, Debug, Clone)]
pub struct EstimateOpts {
    /// The estimators to run (the help text below lists `EstimatorSpec::NAMES`).
    #[arg(
        help = concat!(
            "Estimators to run, comma-separated, of: ",
            crate::estimators::estimator_names!(),
            ". auto (the default) chooses by the data: KSG summed over blocks where the columns fall into \
             independent blocks of at most 4 dimensions; else KSG on normal scores up to 4 joint dimensions \
             and InfoNCE with KSG as its cross-check above. The first lower bound is the headline estimate; \
             KSG (or the copula) is its cross-check. `--bounds` is an alias."
        ),
        long,
        alias = "bounds",
        alias = "estimator",
        default_value = crate::estimators::DEFAULT_ESTIMATORS,
        value_delimiter = ','
    )]
    pub estimators: Vec<String>,
    /// Critic for the lower bounds: auto (each fold trains the separable critic of --hidden,
    /// --embed and --weight-decay and two more with hidden layers 256,256, embedding 32 and
    /// weight decay 0.01, one with ReLU and one with softplus units, each of the three a second
    /// time on the coordinates with their squares, and keeps the one with the highest validation
    /// objective), or one critic alone: separable, cosine, bilinear, cpc, concat.
    #[arg(long, default_value_t = Options::default().critic)]
    pub critic: String,
    /// Hidden layer widths of the critics, comma-separated.
    #[arg(long, default_values_t = Options::default().hidden, value_delimiter = ',', allow_negative_numbers = true)]
    pub hidden: Vec<usize>,
    /// Embedding dimension of separable/cpc critics.
    #[arg(long, default_value_t = Options::default().embed, allow_negative_numbers = true)]
    pub embed: usize,
    /// Batch size N (InfoNCE cannot exceed log N).
    #[arg(long, default_value_t = Options::default().batch, allow_negative_numbers = true)]
    pub batch: usize,
    /// Maximum training steps per critic and fold.
    #[arg(long, default_value_t = Options::default().steps, allow_negative_numbers = true)]
    pub steps: u64,
    /// Adam learning rate.
    #[arg(long, default_value_t = Options::default().lr, allow_negative_numbers = true)]
    pub lr: f64,
    /// L2 weight decay (regularises critics on small data sets).
    #[arg(long, default_value_t = Options::default().weight_decay, allow_negative_numbers = true)]
    pub weight_decay: f64,
    /// Folds for the held-out estimate and its interval.
    #[arg(long, default_value_t = Options::default().folds, allow_negative_numbers = true)]
    pub folds: usize,
    /// Seed.
    #[arg(long, default_value_t = DEFAULT_SEED, allow_negative_numbers = true, value_parser = parse_seed)]
    pub seed: u64,
    /// Map each coordinate before training (MI is unchanged by invertible maps): copula (ranks →
    /// normal scores, fitted on each fold's training rows; tames heavy tails), standardize, none.
    #[arg(long, default_value_t = Options::default().transform)]
    pub transform: String,
    /// The memory a neural estimate may take, in MB (10⁶ bytes; default: the memory the system
    /// reports available). Before any work the estimate adds up its planned peak and refuses to
    /// start when it exceeds this, naming the setting to change.
    #[arg(long, value_name = "MB", allow_negative_numbers = true)]
    pub max_memory_mb: Option<u64>,
    /// The same as `--transform none` (kept for existing scripts).
    #[arg(long, hide = true)]
    pub no_standardize: bool,
}

/// How `estimate` reads its files and what it does with constant columns.
#[derive(Args, Debug, Clone)]
pub struct InputOpts {
    /// Whether the first row of a CSV file is a header: yes, no, or auto (a header when any
    /// of its cells is not a number, or when it reads 0,1,…,n−1, the names pandas gives an
    /// array's columns: with 3 or more columns always, with 1 or 2 when the next row's numbers
    /// are written with a point or an exponent, as pandas writes floats; any other numeric
    /// first row is data).
    #[arg(long, default_value = "auto")]
    pub header: String,
    /// CSV cell delimiter: one character, or tab, comma, semicolon (default: detected among
    /// `,` `;` and tab). With a delimiter other than `,`, decimal commas (1,5) are read.
    #[arg(long)]
    pub delimiter: Option<String>,
    /// Drop constant columns of x and y (named on stderr) instead of refusing them.
    #[arg(long)]
    pub drop_constant: bool,
    /// Rows that repeat an earlier row (exactly, or within a hair) beyond what the values'
    /// grid explains are copies, which read as dependence: `drop` (default) keeps one row of
    /// each set of copies, `keep` keeps every row. Either way a note on stderr counts them.
    #[arg(long, default_value = "drop", value_parser = ["drop", "keep"])]
    pub repeats: String,
}

#[derive(Subcommand, Debug)]
// Parsed once per run: a boxed variant would buy nothing but indirection in the flattened args.
#[allow(clippy::large_enum_variant)]
enum Command {
    /// The main job: sample a 20-d Gaussian with 2 nats, estimate its MI, print the table and
    /// draw the trace.
    Demo {
        /// Output directory.
        #[arg(long, default_value = "target/mibound-demo")]
        out: PathBuf,
        /// Samples.
        #[arg(long, default_value_t = 5000)]
        n: usize,
        /// Seed.
        #[arg(long, default_value_t = 0, allow_negative_numbers = true, value_parser = parse_seed)]
        seed: u64,
    },
    /// Every bound on the optimal critic of correlated Gaussians, against the true MI.
    Optimal {
        /// Dimension of x and y.
        #[arg(long, default_value_t = 20)]
        dim: usize,
        /// Batch size N.
        #[arg(long, default_value_t = 128)]
        batch: usize,
        /// Batches averaged per row.
        #[arg(long, default_value_t = 200)]
        batches: usize,
        /// Seed.
        #[arg(long, default_value_t = 0, allow_negative_numbers = true, value_parser = parse_seed)]
        seed: u64,
    },
    /// Estimate the MI between two arrays (.npy, or CSV with an optional header).
    Estimate {
        /// x: a .npy file or a CSV file.
        #[arg(long)]
        x: PathBuf,
        /// y: a .npy or CSV file (default: the x file, with --y-cols).
        #[arg(long)]
        y: Option<PathBuf>,
        /// Columns of the x file to use (names or 0-based indices, ranges a-b; a number that is a
        /// column's name is that column).
        #[arg(long, allow_hyphen_values = true)]
        x_cols: Option<String>,
        /// Columns of the y file to use.
        #[arg(long, allow_hyphen_values = true)]
        y_cols: Option<String>,
        /// Columns (of x or y, names or indices) that are discrete labels: the neural bounds embed
        /// them (one-hot), discrete, ross and mixed-ksg read them as categories, auto picks one of
        /// those (with InfoNCE above 4 joint dimensions), and estimators that would read them as
        /// numbers are refused, with the one to use instead.
        #[arg(long, allow_hyphen_values = true)]
        discrete: Option<String>,
        /// Columns of the x file to condition on: estimate I(X; Y | Z) with the conditional form
        /// of each estimator (ksg:k=K → Frenzel–Pompe, gaussian, a neural lower bound → the
        /// chain rule I(X; Y,Z) − I(X; Z)) and Runge's local permutation test of conditional
        /// independence.
        #[arg(long, allow_hyphen_values = true)]
        given: Option<String>,
        #[command(flatten)]
        input: InputOpts,
        #[command(flatten)]
        opts: EstimateOpts,
        /// Unit of the printed estimates: nats (default) or bits. The JSON output keeps `value` and
        /// `interval` in nats and adds `unit` and each estimate's `in_unit`.
        #[arg(long)]
        unit: Option<String>,
        /// Same as --unit bits.
        #[arg(long)]
        bits: bool,
        /// Print one JSON object instead of the table.
        #[arg(long)]
        json: bool,
        /// Write the per-step training trace (CSV).
        #[arg(long)]
        trace: Option<PathBuf>,
        /// Draw the training trace (PNG or SVG).
        #[arg(long)]
        plot: Option<PathBuf>,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
        /// Also check the headline estimator on this data (Song & Ermon 2020): two disjoint
        /// halves side by side must read twice one half, a monotone map of every coordinate
        /// must not move it, and shuffled rows of y must read 0. Four more estimates; a failed
        /// check is a warning.
        #[arg(long)]
        selfcheck: bool,
    },
    /// The MI of every column of a table against a target column, as scikit-learn's
    /// mutual_info_regression / mutual_info_classif (discrete columns declared or detected).
    Features(features::FeaturesArgs),
    /// The symmetric matrix of MI between all columns of a table, with a heat map (--plot).
    Matrix(matrix::MatrixArgs),
    /// List the built-in tasks with their parameters and true MI: the parametric tasks
    /// (gaussian, cubic, asinh-cubic at --dim/--mi) and the task suite (benchmark-mi's 40 ids
    /// and the harder tasks, see docs/tasks.md).
    Tasks {
        /// Dimension.
        #[arg(long, default_value_t = Parametric::DEFAULT_DIM)]
        dim: usize,
        /// MI in nats.
        #[arg(long, default_value_t = Parametric::DEFAULT_MI)]
        mi: f64,
        /// Print one JSON array of every task (id, name, family, description, dims, true MI,
        /// suggested n, source).
        #[arg(long)]
        json: bool,
    },
    /// Write samples of a built-in task: x.npy, y.npy and info.json (with the true MI).
    Sample {
        /// Task name or id (see `mibound tasks`): gaussian, cubic, asinh-cubic (with --dim and
        /// --mi) or a task-suite id such as multinormal-sparse-5-5-2-2.0 (--dim/--mi unused).
        task: String,
        /// Samples.
        #[arg(long)]
        n: usize,
        /// Dimension.
        #[arg(long, default_value_t = Parametric::DEFAULT_DIM)]
        dim: usize,
        /// MI in nats.
        #[arg(long, default_value_t = Parametric::DEFAULT_MI)]
        mi: f64,
        /// Seed.
        #[arg(long, default_value_t = DEFAULT_SEED, allow_negative_numbers = true, value_parser = parse_seed)]
        seed: u64,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
    },
    /// Train one critic through a staircase of MI levels on a built-in task (Poole et al.'s
    /// benchmark, the same run as `torch_staircase.py`) and print each level's estimate: the
    /// mean ± std of the bound over the last `--tail` of the level's steps.
    Train(TrainOpts),
    /// Training steps per second of the Poole et al. configuration (d = 20, MLPs 256 × 2,
    /// embedding 32, InfoNCE, Adam), with the achieved GFLOP/s.
    Throughput(ThroughputOpts),
    /// Draw a figure (trains what it needs): staircase, bias-variance, saturation, sandwich,
    /// throughput, all. Same code as `cargo bench --bench NAME`.
    Figure {
        /// Which figure.
        name: String,
        /// Output directory.
        #[arg(long, default_value = "target/figures")]
        out: PathBuf,
        /// Smoke-test sizes.
        #[arg(long)]
        quick: bool,
        /// Seed.
        #[arg(long, default_value_t = 0, allow_negative_numbers = true, value_parser = parse_seed)]
        seed: u64,
    },
    /// benchmark-mi's ExternalEstimator protocol: read SAMPLE.csv (X0.., Y0..) and print only
    /// the estimate.
    Bmi {
        /// The sample CSV written by bmi.
        sample: PathBuf,
        /// Dimension of x.
        dim_x: usize,
        /// Dimension of y.
        dim_y: usize,
        #[command(flatten)]
        opts: EstimateOpts,
    },
    /// Every estimator on every task: runs a benchmark configuration (resumable, shardable),
    /// appending one JSON line per run to --out; `benchmark report` merges results files into a
    /// table and figures. See docs/benchmark.md.
    Benchmark(BenchmarkArgs),
}

/// Options of `mibound benchmark`.
#[derive(Args, Debug, Clone)]
#[command(args_conflicts_with_subcommands = true)]
pub struct BenchmarkArgs {
    #[command(subcommand)]
    report: Option<BenchmarkCommand>,
    /// Configuration file (.toml or .json): tasks, estimators, sizes, seeds, `[neural]` overrides.
    /// Default: the built-in default benchmark (bmi's 40 tasks × 9 estimators × n = 5000 × 3 seeds).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// The quick preset (seconds): 5 small tasks × ksg, copula, infonce × n = 1000 × 1 seed.
    #[arg(long)]
    pub quick: bool,
    /// Results file (JSON lines), appended to; runs already in it are skipped.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Run only shard i of n (1 ≤ i ≤ n): the i-th of every n runs in key order.
    #[arg(long)]
    pub shard: Option<String>,
    /// Threads (default: every core); runs go in parallel, each neural training step on one thread.
    #[arg(long, allow_negative_numbers = true)]
    pub threads: Option<usize>,
    /// Only print the plan's size (runs in total, in this shard, already done) and exit.
    #[arg(long)]
    pub dry_run: bool,
    /// Print the configuration as TOML and exit (a starting point for --config).
    #[arg(long)]
    pub print_config: bool,
    /// No line per finished run.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Subcommand, Debug, Clone)]
enum BenchmarkCommand {
    /// Merge results files (duplicates removed, conflicts reported) into DIR: table.md,
    /// timing.md, merged.jsonl, heatmap.{png,svg}, scatter.{png,svg}.
    Report {
        /// Results files (JSON lines) of `mibound benchmark`, e.g. one per shard.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
    },
}

/// Options of `mibound throughput`.
#[derive(clap::Args, Clone, Debug)]
pub struct ThroughputOpts {
    /// separable, concat or bilinear (CPC: f(x)ᵀ W g(y) with the same MLPs).
    #[arg(long, default_value = "separable")]
    pub critic: String,
    /// Batch size N.
    #[arg(long, default_value_t = 64)]
    pub batch: usize,
    /// Threads for one step: the separable critic's two encoders, the concat critic's two
    /// halves of pair blocks and Adam's halves run concurrently (either backend).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Also measure the backend's single-thread gemm peak (best of `gemm::PEAK_SHAPES`) after
    /// the run and report the step's share of it.
    #[arg(long)]
    pub peak: bool,
    /// OpenBLAS threads inside each product (--backend blas only).
    #[arg(long, default_value_t = 1)]
    pub gemm_threads: usize,
    /// Timed steps.
    #[arg(long, default_value_t = 1000)]
    pub steps: u64,
    /// Untimed warm-up steps.
    #[arg(long, default_value_t = 50)]
    pub warmup: u64,
    /// gemm backend: native or blas (needs --features blas); default: blas when compiled in.
    #[arg(long)]
    pub backend: Option<String>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Options of `mibound train`; the defaults are Poole et al.'s configuration.
#[derive(clap::Args, Clone, Debug)]
pub struct TrainOpts {
    /// The bound trained and reported (infonce, nwj, tuba, dv, mine, js, js-shifted, smile:TAU, ...).
    #[arg(long, default_value = "infonce")]
    pub bound: String,
    /// Critic: separable, cosine, bilinear, cpc, concat (gaussian for club/loo/ba).
    #[arg(long, default_value = "separable")]
    pub critic: String,
    /// Task (see `mibound tasks`).
    #[arg(long, default_value = "gaussian")]
    pub task: String,
    /// Dimension of x and of y.
    #[arg(long, default_value_t = 20)]
    pub dim: usize,
    /// MI levels in nats, comma-separated; one critic is trained through all of them.
    #[arg(long, default_value = "2,4,6,8,10", value_delimiter = ',')]
    pub mi: Vec<f64>,
    /// Training steps per level.
    #[arg(long, default_value_t = 4000)]
    pub steps: u64,
    /// Batch size N.
    #[arg(long, default_value_t = 64)]
    pub batch: usize,
    /// Adam learning rate.
    #[arg(long, default_value_t = 5e-4)]
    pub lr: f64,
    /// Threads for one step (the separable critic's encoders, the concat critic's two halves
    /// of pair blocks and Adam's halves run concurrently; results are bit-identical to one
    /// thread).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Fraction of each level's steps averaged for its estimate.
    #[arg(long, default_value_t = 0.2)]
    pub tail: f64,
    /// Seed.
    #[arg(long, default_value_t = 0, allow_negative_numbers = true, value_parser = parse_seed)]
    pub seed: u64,
    /// Print one JSON object per level instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Write the per-step trace (CSV).
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// Only the estimation options, to read their defaults.
#[derive(Parser, Debug)]
struct OptsOnly {
    #[command(flatten)]
    opts: EstimateOpts,
}

/// Only the input options, to read their defaults.
#[derive(Parser, Debug)]
struct InputOnly {
    #[command(flatten)]
    input: InputOpts,
}

impl InputOpts {
    /// The data rules these options ask for (no label hint: the caller adds its own).
    pub fn rules(&self) -> crate::data::rules::Rules {
        crate::data::rules::Rules {
            drop_constant: self.drop_constant,
            keep_constant: false,
            drop_option: Some("--drop-constant".into()),
            repeats: crate::data::rules::RepeatPolicy::parse(&self.repeats).unwrap_or_default(),
            repeats_option: Some("--repeats keep".into()),
            label_hint: None,
        }
    }
}

impl Default for InputOpts {
    /// The command line's defaults (`--header auto`, delimiter detected, constant columns
    /// refused): what `demo` reads its own files with.
    fn default() -> Self {
        InputOnly::parse_from(["mibound"]).input
    }
}

impl Default for EstimateOpts {
    /// The command line's defaults.
    fn default() -> Self {
        OptsOnly::parse_from(["mibound"]).opts
    }
}

/// A seed as the command line reads it: a whole number from 0 to 2^64 − 1, with a sentence for
/// anything else (a negative one is named as such, not taken for an option).
pub(crate) fn parse_seed(s: &str) -> std::result::Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(v) => Ok(v),
        Err(_) if s.trim().parse::<i128>().is_ok_and(|v| v < 0) => Err("must not be negative".into()),
        Err(_) => Err(format!("must be a whole number from 0 to {}", u64::MAX)),
    }
}

/// Parses the arguments, runs the command and maps errors to exit code 2.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // --help and --version print as clap prints them.
        Err(e) if !e.use_stderr() => e.exit(),
        // A bad command line is one line too: clap's first line, without the usage block.
        Err(e) => {
            let text = e.render().to_string();
            let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("error: bad command line");
            eprintln!("{} (see --help)", first.trim_end());
            return ExitCode::from(2);
        }
    };
    let res = match cli.command {
        Command::Demo { out, n, seed } => demo::demo(&out, n, seed),
        Command::Optimal { dim, batch, batches, seed } => optimal::optimal(dim, batch, batches, seed),
        Command::Estimate {
            x,
            y,
            x_cols,
            y_cols,
            discrete,
            given,
            input,
            opts,
            unit,
            bits,
            json,
            trace,
            plot,
            quiet,
            selfcheck,
        } => {
            let files = load::Files {
                x: &x,
                y: y.as_deref(),
                x_cols: x_cols.as_deref(),
                y_cols: y_cols.as_deref(),
                discrete: discrete.as_deref(),
            };
            let output = estimate::Output { json, trace: trace.as_deref(), plot: plot.as_deref(), quiet, selfcheck };
            estimate::Unit::from_options(unit.as_deref(), bits).and_then(|unit| match given {
                Some(z) => conditional::estimate_given(&files, &z, &input, &opts, unit, output),
                None => estimate::estimate(&files, &input, &opts, unit, output),
            })
        }
        Command::Features(args) => features::features(&args),
        Command::Matrix(args) => matrix::matrix(&args),
        Command::Tasks { dim, mi, json } => tasks::tasks(dim, mi, json),
        Command::Sample { task, n, dim, mi, seed, out } => sample::sample(&task, n, dim, mi, seed, &out),
        Command::Bmi { sample, dim_x, dim_y, opts } => bmi::bmi(&sample, dim_x, dim_y, &opts),
        Command::Figure { name, out, quick, seed } => {
            let mut args = vec!["--out".to_string(), out.display().to_string(), "--seed".into(), seed.to_string()];
            if quick {
                args.push("--quick".into());
            }
            crate::figures::FigureOpts::from_args(args).and_then(|o| crate::figures::run(&name, &o))
        }
        Command::Train(opts) => train::train(&opts),
        Command::Throughput(opts) => throughput::throughput(&opts),
        Command::Benchmark(args) => match args.report {
            Some(BenchmarkCommand::Report { files, out }) => benchmark::benchmark_report(&files, &out),
            None => benchmark::benchmark(&args),
        },
    };
    match res {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_line_defaults_are_the_library_defaults() {
        let (specs, settings) = estimate::config(&EstimateOpts::default()).unwrap();
        assert_eq!(settings, crate::estimators::Settings::default());
        assert_eq!(specs, crate::estimators::EstimatorSpec::defaults());
        assert_eq!(EstimateOpts::default().seed, crate::estimators::DEFAULT_SEED);
        // `demo` reads its files with the input defaults: they must be the command line's.
        let input = InputOpts::default();
        assert_eq!((input.header.as_str(), input.delimiter), ("auto", None));
        assert_eq!(input.drop_constant, crate::data::rules::Rules::default().drop_constant);
        assert_eq!(input.repeats, crate::data::rules::Rules::default().repeats.name());
        assert_eq!(estimate::Unit::from_options(None, false).unwrap(), crate::estimators::Unit::default());
    }

    /// The other commands with a Python counterpart: `sample` and `tasks` (Python's `sample`),
    /// `features` and `matrix` (`mutual_info_regression`, `mi_matrix`) default to the library's
    /// constants, which Python reads too (python/tests/test_defaults.py).
    #[test]
    fn other_command_defaults_are_the_library_defaults() {
        let parse = |args: &[&str]| Cli::parse_from(["mibound"].iter().chain(args)).command;
        let Command::Sample { dim, mi, seed, .. } = parse(&["sample", "gaussian", "--n", "1", "--out", "d"]) else {
            unreachable!()
        };
        assert_eq!((dim, mi, seed), (Parametric::DEFAULT_DIM, Parametric::DEFAULT_MI, DEFAULT_SEED));
        let Command::Tasks { dim, mi, .. } = parse(&["tasks"]) else { unreachable!() };
        assert_eq!((dim, mi), (Parametric::DEFAULT_DIM, Parametric::DEFAULT_MI));
        let k = crate::estimators::classical::ROSS_DEFAULT_K;
        let Command::Features(f) = parse(&["features", "--x", "t.csv", "--target", "0"]) else { unreachable!() };
        assert_eq!((f.k, f.seed), (k, DEFAULT_SEED));
        let Command::Matrix(m) = parse(&["matrix", "--x", "t.csv"]) else { unreachable!() };
        assert_eq!((m.k, m.seed), (k, DEFAULT_SEED));
    }
}
