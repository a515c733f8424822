//! `mibound tasks`: the built-in tasks.

use crate::error::{Error, Result};
use crate::tasks::Parametric;

/// `mibound tasks`: the parametric tasks at `--dim`/`--mi`, then the task suite.
pub fn tasks(dim: usize, mi: f64, json: bool) -> Result<()> {
    let suite = crate::tasks::catalogue()?;
    if json {
        let mut all = Vec::new();
        for (name, desc) in Parametric::CATALOGUE {
            let s = Parametric::parse(name, dim)?.at_mi(mi)?;
            all.push(serde_json::json!({
                "id": name, "name": s.name(), "family": "parametric (--dim, --mi)", "description": desc,
                "dim_x": s.dim_x(), "dim_y": s.dim_y(), "true_mi": s.true_mi(), "source": "mibound",
                "has_optimal_critic": true,
            }));
        }
        for t in &suite {
            all.push(
                serde_json::to_value(t)
                    .map_err(|e| Error::Format { context: "task list".into(), msg: e.to_string() })?,
            );
        }
        println!("{}", serde_json::Value::Array(all));
        return Ok(());
    }
    println!("{:<12} {:>4} {:>8} {:>9}  description", "task", "dim", "rho", "true MI");
    for (name, desc) in Parametric::CATALOGUE {
        let s = Parametric::parse(name, dim)?.at_mi(mi)?;
        let rho = crate::data::mi_to_rho(mi, dim);
        println!("{name:<12} {:>4} {rho:>8.4} {:>9.4}  {desc}", s.dim_x(), s.true_mi());
    }
    println!("\nchoose with: mibound sample TASK --dim D --mi I --n N --out DIR");
    println!("\ntask suite: benchmark-mi 0.1.3's 40 tasks (bmi ids) and harder ones (docs/tasks.md)");
    let w = suite.iter().map(|t| t.id.len()).max().unwrap_or(2);
    println!(
        "{:<w$} {:>5} {:>5} {:>9} {:>7} {:<8} {:<8}  description",
        "id", "dim_x", "dim_y", "true MI", "n", "split", "group"
    );
    for t in &suite {
        println!(
            "{:<w$} {:>5} {:>5} {:>9.4} {:>7} {:<8} {:<8}  {}",
            t.id,
            t.dim_x,
            t.dim_y,
            t.true_mi,
            t.suggested_n,
            t.split.map_or("-", |s| s.name()),
            t.group.name(),
            t.description
        );
    }
    println!("\nsplit: tuning / held-out half of the suite (an indep- twin is in its task's half); docs/tasks.md");
    println!("\nchoose with: mibound sample ID --n N --seed S --out DIR");
    Ok(())
}
