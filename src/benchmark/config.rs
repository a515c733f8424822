//! What a benchmark runs: tasks × estimators × sample sizes × seeds, read from TOML or JSON,
//! with a built-in default and a `--quick` preset, expanded into a [`Plan`] of runs.

use super::RunKey;
use crate::error::{Error, Result};
use crate::estimators::{CheckedSettings, EstimatorSpec, Options};
use crate::tasks;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// A benchmark configuration: every combination of `tasks`, `estimators`, `sizes` and `seeds`
/// is one run.
///
/// ```toml
/// tasks = ["bmi"]                      # ids, families (`student-identity`), or bmi / extra / all / tuning / held-out
/// estimators = ["ksg", "copula", "infonce", "smile:5"]
/// sizes = [5000]
/// seeds = [0, 1, 2]
/// [neural]                             # optional: the options of `mibound estimate` (Options)
/// steps = 1000
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Task ids (`1v1-normal-0.75`), families as `mibound tasks` prints them
    /// (`multinormal-sparse`, `student-identity`), or the groups `bmi` (benchmark-mi's 40 tasks),
    /// `extra` (mibound's harder tasks), `all`, and the halves of the suite's split `tuning` and
    /// `held-out` (docs/tasks.md).
    pub tasks: Vec<String>,
    /// Estimator names as everywhere in mibound (`infonce`, `smile:5`, `ksg:k=5`, `copula`).
    pub estimators: Vec<String>,
    /// Sample sizes n.
    pub sizes: Vec<usize>,
    /// Seeds; a run's samples depend on (task, n, seed) only, so every estimator sees the same.
    pub seeds: Vec<u64>,
    /// The neural estimators' options: the type `mibound estimate` and Python build
    /// ([`Options`], validated by [`Options::settings`]), with `patience`; a key left out keeps
    /// the library's default. Printed with only the keys that differ from it.
    #[serde(default, skip_serializing_if = "is_default", serialize_with = "changed_options")]
    pub neural: Options,
}

fn is_default(o: &Options) -> bool {
    *o == Options::default()
}

/// The options of `o` that differ from the defaults, as `(key, value)` in the order a
/// configuration file lists them (steps, batch, folds and patience first), as TOML values.
fn changed(o: &Options) -> Vec<(&'static str, toml::Value)> {
    let d = Options::default();
    // Destructured so that a new option cannot be forgotten here.
    let Options { critic, hidden, embed, batch, steps, lr, weight_decay, folds, transform, patience, max_memory_mb } =
        o;
    let int = |v: u64| toml::Value::Integer(v as i64);
    let all = [
        ("steps", *steps != d.steps, int(*steps)),
        ("batch", *batch != d.batch, int(*batch as u64)),
        ("folds", *folds != d.folds, int(*folds as u64)),
        ("patience", *patience != d.patience, int(*patience)),
        ("critic", *critic != d.critic, toml::Value::String(critic.clone())),
        ("hidden", *hidden != d.hidden, toml::Value::Array(hidden.iter().map(|&h| int(h as u64)).collect())),
        ("embed", *embed != d.embed, int(*embed as u64)),
        ("lr", *lr != d.lr, toml::Value::Float(*lr)),
        ("weight_decay", *weight_decay != d.weight_decay, toml::Value::Float(*weight_decay)),
        ("transform", *transform != d.transform, toml::Value::String(transform.clone())),
        ("max_memory_mb", *max_memory_mb != d.max_memory_mb, int(max_memory_mb.unwrap_or_default())),
    ];
    all.into_iter().filter(|(_, differs, _)| *differs).map(|(k, _, v)| (k, v)).collect()
}

fn changed_options<S: serde::Serializer>(o: &Options, s: S) -> std::result::Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let c = changed(o);
    let mut m = s.serialize_map(Some(c.len()))?;
    for (k, v) in &c {
        m.serialize_entry(k, v)?;
    }
    m.end()
}

/// The classical estimators of the default benchmark.
pub const DEFAULT_CLASSICAL: [&str; 4] = ["ksg:k=5", "gaussian", "copula", "binned"];
/// The neural estimators of the default benchmark: two lower bounds, two estimates, one
/// upper bound for an exact conditional model.
pub const DEFAULT_NEURAL: [&str; 5] = ["infonce", "nwj", "smile:5", "dv", "l1out"];

impl Config {
    /// The default benchmark: benchmark-mi's 40 tasks × the classical and neural estimators of
    /// [`DEFAULT_CLASSICAL`] and [`DEFAULT_NEURAL`] × n = 5000 × seeds 0, 1, 2, with neural
    /// training shortened (at most 600 steps, 3 folds) so the whole runs in under an hour on
    /// two cores (docs/benchmark.md has the measured per-run costs).
    pub fn default_full() -> Self {
        Config {
            tasks: vec!["bmi".into()],
            estimators: DEFAULT_CLASSICAL.iter().chain(&DEFAULT_NEURAL).map(|s| s.to_string()).collect(),
            sizes: vec![5000],
            seeds: vec![0, 1, 2],
            neural: Options { steps: 600, batch: 256, folds: 3, patience: 200, ..Options::default() },
        }
    }

    /// The `--quick` preset (seconds): five small tasks × `ksg`, `copula`, `infonce` (100 steps,
    /// 2 folds) × n = 1000 × seed 0.
    pub fn quick() -> Self {
        Config {
            tasks: [
                "1v1-normal-0.75",
                "1v1-additive-0.1",
                "student-identity-1-1-1",
                "multinormal-sparse-3-3-2-2.0",
                "multinormal-dense-5-5-0.5",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            estimators: vec!["ksg".into(), "copula".into(), "infonce".into()],
            sizes: vec![1000],
            seeds: vec![0],
            neural: Options { steps: 100, batch: 128, folds: 2, ..Options::default() },
        }
    }

    /// Reads a configuration from a `.toml` or `.json` file (by extension; other extensions are
    /// tried as TOML). Syntax errors, unknown keys and wrong types are one line naming the file
    /// and the line.
    pub fn from_file(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
        let json = path.extension().and_then(|e| e.to_str()).is_some_and(|e| e.eq_ignore_ascii_case("json"));
        if json { Self::from_json(&text, path) } else { Self::from_toml(&text, path) }
    }

    /// Parses TOML text (`path` only names it in errors).
    pub fn from_toml(text: &str, path: &Path) -> Result<Self> {
        toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| text.as_bytes()[..s.start.min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1);
            let msg = one_line(e.message());
            Error::Data {
                path: path.to_path_buf(),
                msg: match line {
                    Some(l) => format!("line {l}: {msg}"),
                    None => msg,
                },
            }
        })
    }

    /// Parses JSON text (`path` only names it in errors).
    pub fn from_json(text: &str, path: &Path) -> Result<Self> {
        serde_json::from_str(text).map_err(|e| Error::Data { path: path.to_path_buf(), msg: one_line(&e.to_string()) })
    }

    /// The configuration as TOML (what `--print-config` writes; a starting point for a file).
    pub fn to_toml(&self) -> Result<String> {
        toml::to_string(self)
            .map_err(|e| Error::Format { context: "benchmark configuration".into(), msg: e.to_string() })
    }

    /// The estimator settings of every run: [`Config::neural`] checked and turned into settings
    /// by [`Options::settings`] (a bad value named `neural.KEY`), one thread per training step
    /// (the runner parallelises across runs).
    pub fn settings(&self) -> Result<CheckedSettings> {
        let mut s = self.neural.settings(|field| format!("neural.{field}"))?;
        s.neural.compute.threads = 1;
        s.check()
    }

    /// Checks every name and number and lists the runs, sorted by key.
    pub fn plan(&self) -> Result<Plan> {
        let empty = |what: &str| Error::param(what, "[]", "the configuration must list at least one");
        if self.tasks.is_empty() {
            return Err(empty("tasks"));
        }
        if self.estimators.is_empty() {
            return Err(empty("estimators"));
        }
        if self.sizes.is_empty() {
            return Err(empty("sizes"));
        }
        if self.seeds.is_empty() {
            return Err(empty("seeds"));
        }
        if let Some(&n) = self.sizes.iter().find(|&&n| n < 2) {
            return Err(Error::param("sizes", n, "every sample size must be at least 2"));
        }
        let settings = self.settings()?;
        let task_ids = expand_tasks(&self.tasks)?;
        let mut tasks_info = Vec::new();
        for id in &task_ids {
            tasks_info.push(tasks::get(id)?.info().clone());
        }
        let mut specs: Vec<EstimatorSpec> = Vec::new();
        for name in &self.estimators {
            let spec = EstimatorSpec::parse(name)?;
            spec.build(&settings)?;
            if !specs.contains(&spec) {
                specs.push(spec);
            }
        }
        let neural_label = self.neural_label(&settings);
        let mut runs = Vec::new();
        for info in &tasks_info {
            for spec in &specs {
                for &n in dedup(&self.sizes).iter() {
                    for &seed in dedup(&self.seeds).iter() {
                        runs.push(PlannedRun {
                            key: RunKey { task: info.id.clone(), estimator: spec.to_string(), n, seed },
                            spec: *spec,
                            true_mi: info.true_mi,
                            dims: (info.dim_x, info.dim_y),
                            settings: if spec.bound().is_some() { neural_label.clone() } else { String::new() },
                        });
                    }
                }
            }
        }
        runs.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(Plan { runs, settings, tasks: task_ids, estimators: specs.iter().map(|s| s.to_string()).collect() })
    }
}

impl Config {
    /// What a neural run records as its settings: steps, batch, folds and patience, then every
    /// other option that differs from its default (none in the files of older versions, whose
    /// labels this reproduces).
    fn neural_label(&self, settings: &CheckedSettings) -> String {
        let n = &settings.neural;
        let mut label = format!("steps={},batch={},folds={},patience={}", n.max_steps, n.batch, n.folds, n.patience);
        for (k, v) in changed(&self.neural) {
            match v {
                _ if ["steps", "batch", "folds", "patience"].contains(&k) => {}
                toml::Value::String(v) => label.push_str(&format!(",{k}={v}")),
                v => label.push_str(&format!(",{k}={v}")),
            }
        }
        label
    }
}

fn dedup<T: Copy + PartialEq>(v: &[T]) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for &x in v {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Task ids from ids, families and the groups `bmi`, `extra`, `all`, `tuning`, `held-out`, in the order given, each
/// id once. An unknown name is an error listing what is known.
pub fn expand_tasks(names: &[String]) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    let mut catalogue: Option<Vec<tasks::TaskInfo>> = None;
    for name in names {
        let name = name.trim();
        let ids: Vec<String> = match name {
            "bmi" => tasks::BMI_IDS.iter().map(|s| s.to_string()).collect(),
            "extra" => tasks::EXTRA_IDS.iter().map(|s| s.to_string()).collect(),
            "all" => tasks::all_ids(),
            "tuning" => tasks::split_ids(tasks::Split::Tuning),
            "held-out" => tasks::split_ids(tasks::Split::HeldOut),
            _ => match tasks::get(name) {
                Ok(t) => vec![t.id().to_string()],
                Err(Error::Unknown { .. }) => {
                    let cat = match &catalogue {
                        Some(c) => c,
                        None => catalogue.insert(tasks::catalogue()?),
                    };
                    let ids: Vec<String> = cat.iter().filter(|t| t.family == name).map(|t| t.id.clone()).collect();
                    if ids.is_empty() {
                        return Err(Error::Unknown {
                            kind: "task",
                            name: name.into(),
                            known:
                                "a task id of `mibound tasks` (e.g. 1v1-normal-0.75, multinormal-sparse-5-5-2-2.0), \
                                    a family as `mibound tasks --json` prints it (e.g. student-identity, \
                                    multinormal-dense), or bmi, extra, all, tuning, held-out"
                                    .into(),
                        });
                    }
                    ids
                }
                Err(e) => return Err(e),
            },
        };
        for id in ids {
            if !out.contains(&id) {
                out.push(id);
            }
        }
    }
    Ok(out)
}

/// One run of a plan.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedRun {
    /// (task, estimator, n, seed).
    pub key: RunKey,
    /// The estimator.
    pub spec: EstimatorSpec,
    /// The task's true MI in nats.
    pub true_mi: f64,
    /// (dim x, dim y).
    pub dims: (usize, usize),
    /// The settings that are not in the estimator's name (neural: steps, batch, folds,
    /// patience; empty for classical estimators). A results file made with other settings is
    /// refused.
    pub settings: String,
}

/// Every run of a configuration, sorted by key, with the settings they use.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The runs, sorted by key.
    pub runs: Vec<PlannedRun>,
    /// The estimator settings.
    pub settings: CheckedSettings,
    /// The task ids, in configuration order.
    pub tasks: Vec<String>,
    /// The canonical estimator names, in configuration order.
    pub estimators: Vec<String>,
}
