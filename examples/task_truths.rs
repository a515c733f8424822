//! Provenance of the Monte-Carlo true MI of the task suite (`mibound::tasks::MC_TRUTHS`): for
//! every listed task without a closed form (Gaussian mixtures, class-conditional Gaussians), the
//! mean and standard error of the exact pointwise MI `log p(x, y) − log p(x) − log p(y)` over
//! `MC_N` = 2·10⁶ joint samples drawn with seed `MC_SEED`, printed as the Rust table.
//!
//! ```sh
//! cargo run --release --example task_truths            # the listed tasks
//! cargo run --release --example task_truths -- ID ...  # other base ids (e.g. to choose parameters)
//! ```

use mibound::tasks::{self, MC_N, MC_SEED};

fn main() -> Result<(), mibound::Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let ids: Vec<String> = if args.is_empty() {
        // The base ids under every listed task's prefixes, once each.
        let mut v: Vec<String> = Vec::new();
        for id in tasks::suite_ids() {
            let base = id
                .rsplit_once("mixture-")
                .map(|(_, r)| format!("mixture-{r}"))
                .or_else(|| id.find("classes-").map(|k| id[k..].to_string()));
            if let Some(b) = base.filter(|b| !v.contains(b)) {
                v.push(b);
            }
        }
        v
    } else {
        args
    };
    println!("pub const MC_TRUTHS: &[(&str, f64, f64)] = &[");
    for id in ids {
        let t = std::time::Instant::now();
        let (mi, se) = tasks::monte_carlo_truth(&id, MC_N, MC_SEED)?;
        println!("    (\"{id}\", {mi:?}, {se:?}), // {:.1} s", t.elapsed().as_secs_f64());
    }
    println!("];");
    Ok(())
}
