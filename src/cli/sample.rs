//! `mibound sample`: writes samples of a built-in task.

use super::output::{io_err, write_atomic};
use crate::data::files::write_npy;
use crate::data::{Sampler, Task, rng};
use crate::error::{Error, Result};
use std::path::Path;

/// `mibound sample`: a parametric task (`gaussian`, `cubic`, `asinh-cubic` at `--dim`/`--mi`) or
/// any task-suite id.
pub fn sample(task: &str, n: usize, dim: usize, mi: f64, seed: u64, out: &Path) -> Result<()> {
    if n == 0 {
        return Err(Error::param("n", 0, "must be at least 1"));
    }
    if Task::CATALOGUE.iter().all(|c| c.0 != task) {
        return sample_suite(task, n, seed, out);
    }
    let t = Task::parse(task, dim)?;
    let s = t.at_mi(mi)?;
    let (x, y) = s.sample(n, &mut rng(seed));
    std::fs::create_dir_all(out).map_err(io_err(out))?;
    write_npy(&out.join("x.npy"), &x)?;
    write_npy(&out.join("y.npy"), &y)?;
    let info = serde_json::json!({"task": task, "dim": dim, "n": n, "seed": seed, "rho": crate::data::mi_to_rho(mi, dim), "true_mi": s.true_mi(), "sampler": s.name()});
    write_atomic(&out.join("info.json"), format!("{info:#}\n").as_bytes())?;
    println!(
        "wrote {}/x.npy, y.npy ({n} × {dim} each) and info.json; true MI = {:.4} nats",
        out.display(),
        s.true_mi()
    );
    Ok(())
}

/// `mibound sample ID` for a task-suite id.
fn sample_suite(id: &str, n: usize, seed: u64, out: &Path) -> Result<()> {
    let t = crate::tasks::get(id).map_err(|e| match e {
        Error::Unknown { kind, name, known } => {
            let legacy: Vec<&str> = Task::CATALOGUE.iter().map(|c| c.0).collect();
            Error::Unknown { kind, name, known: format!("{} (with --dim, --mi), or {known}", legacy.join(", ")) }
        }
        other => other,
    })?;
    let (x, y) = t.draw(n, seed)?;
    std::fs::create_dir_all(out).map_err(io_err(out))?;
    write_npy(&out.join("x.npy"), &x)?;
    write_npy(&out.join("y.npy"), &y)?;
    let i = t.info();
    let info = serde_json::json!({
        "task": id, "name": i.name, "family": i.family, "description": i.description, "source": i.source,
        "n": n, "seed": seed, "dim_x": i.dim_x, "dim_y": i.dim_y, "true_mi": i.true_mi,
        "suggested_n": i.suggested_n, "sampler": t.name(),
    });
    write_atomic(&out.join("info.json"), format!("{info:#}\n").as_bytes())?;
    println!(
        "wrote {}/x.npy ({n} × {}), y.npy ({n} × {}) and info.json; true MI = {:.4} nats",
        out.display(),
        i.dim_x,
        i.dim_y,
        i.true_mi
    );
    Ok(())
}
