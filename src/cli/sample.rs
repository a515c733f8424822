//! `mibound sample`: writes samples of a built-in task.

use super::output::{io_err, write_atomic};
use crate::data::Sampler;
use crate::data::files::write_npy;
use crate::error::{Error, Result};
use crate::tasks::Named;
use std::path::Path;

/// `mibound sample`: a parametric task (`gaussian`, `cubic`, `asinh-cubic` at `--dim`/`--mi`) or
/// any task-suite id ([`crate::tasks::named`]).
pub fn sample(task: &str, n: usize, dim: usize, mi: f64, seed: u64, out: &Path) -> Result<()> {
    if n == 0 {
        return Err(Error::param("n", 0, "must be at least 1"));
    }
    let named = crate::tasks::named(task, dim, mi)?;
    let (x, y) = named.draw(n, seed)?;
    std::fs::create_dir_all(out).map_err(io_err(out))?;
    write_npy(&out.join("x.npy"), &x)?;
    write_npy(&out.join("y.npy"), &y)?;
    // The info file, the shapes and the true MI, as each kind of task describes itself.
    let (info, shapes, true_mi) = match &named {
        Named::Parametric { sampler: s, .. } => (
            serde_json::json!({"task": task, "dim": dim, "n": n, "seed": seed, "rho": crate::data::mi_to_rho(mi, dim), "true_mi": s.true_mi(), "sampler": s.name()}),
            format!("x.npy, y.npy ({n} × {dim} each)"),
            s.true_mi(),
        ),
        Named::Suite(t) => {
            let i = t.info();
            let info = serde_json::json!({
                "task": task, "name": i.name, "family": i.family, "description": i.description, "source": i.source,
                "n": n, "seed": seed, "dim_x": i.dim_x, "dim_y": i.dim_y, "true_mi": i.true_mi,
                "suggested_n": i.suggested_n, "sampler": t.name(),
            });
            (info, format!("x.npy ({n} × {}), y.npy ({n} × {})", i.dim_x, i.dim_y), i.true_mi)
        }
    };
    write_atomic(&out.join("info.json"), format!("{info:#}\n").as_bytes())?;
    println!("wrote {}/{shapes} and info.json; true MI = {true_mi:.4} nats", out.display());
    Ok(())
}
