//! Tried for the low-dimensional headline and not adopted (docs/results.md, section 17): KSG
//! (k = 3, KSG-1) on normal scores, extrapolated to infinitely many rows from its values on
//! the whole sample (N), on its two halves (N/2, averaged), three thirds and four quarters —
//! the finite-size extrapolation of Holmes & Nemenman, *Estimation of mutual information for
//! real-valued data with error bars and controlled bias*, Phys. Rev. E 100, 022404 (2019). The
//! fits: least squares of the four values against 1/N (`lin`) and against 1/√N (`sqrt`), and
//! the two-point `2·I(N) − I(N/2)` (`two`). Every dependent low-dimensional task of one half,
//! n = 5000, seeds 0–2; mean absolute error against the truth.
//!
//!     cargo run --release --example ksg_extrapolation -- tuning
//!     cargo run --release --example ksg_extrapolation -- held-out
use mibound::estimators::classical::gaussian::copula_transform;
use mibound::estimators::classical::ksg::{KsgVariant, ksg_mi};
use mibound::tasks::{Group, Split};

/// Least-squares intercept of `v` against `t`.
fn intercept(t: &[f64], v: &[f64]) -> f64 {
    let n = t.len() as f64;
    let (mt, mv) = (t.iter().sum::<f64>() / n, v.iter().sum::<f64>() / n);
    let slope = t.iter().zip(v).map(|(a, b)| (a - mt) * (b - mv)).sum::<f64>()
        / t.iter().map(|a| (a - mt).powi(2)).sum::<f64>();
    mv - slope * mt
}

fn main() {
    let half = match std::env::args().nth(1).as_deref() {
        Some("held-out") => Split::HeldOut,
        _ => Split::Tuning,
    };
    let names = ["ksg", "lin", "two", "sqrt"];
    let (mut err, mut count) = ([0.0f64; 4], 0usize);
    for id in mibound::tasks::split_ids(half).iter().filter(|id| !id.starts_with("indep-")) {
        let task = mibound::tasks::get(id).unwrap();
        if task.info().group != Group::LowDim {
            continue;
        }
        for seed in 0..3 {
            let (x, y) = task.draw(5000, seed).unwrap();
            // The normal scores the headline's KSG uses (`ksg:k=3:margins=normal`).
            let (x, y) = (copula_transform(x.as_view()), copula_transform(y.as_view()));
            let n = x.nrows();
            // I at N/m for m = 1..4: the mean over the m disjoint blocks of rows (i mod m).
            let (mut inv_n, mut values) = (Vec::new(), Vec::new());
            for m in 1..=4usize {
                let mut sum = 0.0;
                for b in 0..m {
                    let rows: Vec<usize> = (0..n).filter(|i| i % m == b).collect();
                    let (xb, yb) = (x.select_rows(&rows), y.select_rows(&rows));
                    sum += ksg_mi(xb.as_view(), yb.as_view(), 3, KsgVariant::Ksg1).unwrap();
                }
                inv_n.push(m as f64 / n as f64);
                values.push(sum / m as f64);
            }
            let sqrt_n: Vec<f64> = inv_n.iter().map(|t| t.sqrt()).collect();
            let v = [values[0], intercept(&inv_n, &values), 2.0 * values[0] - values[1], intercept(&sqrt_n, &values)];
            let truth = task.info().true_mi;
            for (e, vi) in err.iter_mut().zip(&v) {
                *e += (vi - truth).abs();
            }
            count += 1;
            let cells: Vec<String> = names.iter().zip(&v).map(|(n, v)| format!("{n} {v:.3}")).collect();
            println!("{id:42} seed {seed} truth {truth:.3} | {}", cells.join(" | "));
        }
    }
    println!("\nmean absolute error over {count} (task, seed) pairs of the {} half:", half.name());
    for (n, e) in names.iter().zip(&err) {
        println!("  {n:6} {:.4}", e / count as f64);
    }
}
