//! The field's figures: each function trains what it needs (independent runs in parallel with
//! rayon), writes its raw results as JSON lines, and draws PNG and SVG figures. The benchmark
//! binaries (`cargo bench --bench NAME`) and `mibound figure NAME` both call these.

mod contrastive;
mod saturation;
mod staircase;
mod throughput;

pub use contrastive::{Labelled, Objective, contrastive_experiments, linear_probe, temperature, train_encoder};
pub use saturation::saturation;
pub use staircase::{bias_variance_table, sandwich, staircase};
pub use throughput::{Budget, measure as measure_throughput, throughput};

use crate::error::{Error, Result};
use crate::plot::Figure;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Options shared by every figure.
#[derive(Clone, Debug)]
pub struct FigureOpts {
    /// Output directory.
    pub out: PathBuf,
    /// Smoke-test sizes (seconds instead of minutes).
    pub quick: bool,
    /// Seed.
    pub seed: u64,
    /// Only these staircase configurations (`gaussian-separable`, `cubic-separable`,
    /// `gaussian-concat`), comma-separated; all when `None`.
    pub only: Option<String>,
}

impl FigureOpts {
    /// Parses `--out DIR`, `--quick`, `--seed S` and `--only CONFIGS` (the staircase's
    /// configurations, e.g. `gaussian-separable`) from command-line arguments (other
    /// arguments, such as cargo's `--bench`, are ignored). Default output: `target/figures`.
    pub fn from_args(args: impl IntoIterator<Item = String>) -> Result<Self> {
        let mut o = FigureOpts { out: PathBuf::from("target/figures"), quick: false, seed: 0, only: None };
        let mut it = args.into_iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--out" => {
                    o.out = it.next().ok_or_else(|| Error::param("--out", "(missing)", "needs a directory"))?.into()
                }
                "--quick" => o.quick = true,
                "--only" => o.only = it.next(),
                "--seed" => {
                    let v = it.next().unwrap_or_default();
                    o.seed = v.parse().map_err(|_| Error::param("--seed", &v, "must be an integer"))?;
                }
                _ => {}
            }
        }
        std::fs::create_dir_all(&o.out).map_err(|source| Error::Io { path: o.out.clone(), source })?;
        Ok(o)
    }

    /// `out/name`.
    pub fn path(&self, name: &str) -> PathBuf {
        self.out.join(name)
    }
}

/// Saves a figure as `stem.png` and `stem.svg` in `dir`.
pub fn save_both(fig: &Figure, dir: &Path, stem: &str) -> Result<()> {
    fig.save(&dir.join(format!("{stem}.png")))?;
    fig.save(&dir.join(format!("{stem}.svg")))
}

/// Writes serialisable rows as JSON lines.
pub fn write_jsonl<S: serde::Serialize>(path: &Path, rows: &[S]) -> Result<()> {
    let io = |source| Error::Io { path: path.to_path_buf(), source };
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).map_err(io)?);
    for r in rows {
        serde_json::to_writer(&mut f, r)
            .map_err(|e| Error::Format { context: path.display().to_string(), msg: e.to_string() })?;
        writeln!(f).map_err(io)?;
    }
    f.flush().map_err(io)
}

/// Runs a figure by name: `staircase` (with bias-variance), `saturation`, `sandwich`,
/// `throughput`, `temperature`, or `all`.
pub fn run(name: &str, opts: &FigureOpts) -> Result<()> {
    match name {
        "staircase" => staircase(opts).map(|_| ()),
        "bias-variance" => staircase(opts).map(|_| ()),
        "saturation" => saturation(opts),
        "sandwich" => sandwich(opts),
        "throughput" => throughput(opts),
        "temperature" => temperature(opts),
        "contrastive" => contrastive_experiments(opts),
        "all" => {
            temperature(opts)?;
            contrastive_experiments(opts)?;
            staircase(opts)?;
            saturation(opts)?;
            sandwich(opts)?;
            throughput(opts)
        }
        other => Err(Error::Unknown {
            kind: "figure",
            name: other.into(),
            known: "staircase, bias-variance, saturation, sandwich, throughput, temperature, contrastive, all".into(),
        }),
    }
}
