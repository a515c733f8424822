//! The default estimate on the trust suite (`mibound::tasks::trust`), called as a user calls
//! it: the data rules (repeated rows), then `auto` with the default settings. Prints one line a
//! case and a count of verdicts per family.
//!
//!     cargo run --release --example trust_suite -- [tuning|held-out|all] [SEEDS, e.g. 0,1,2] [FILTER] [--record FILE]
//!
//! With `--record FILE` the counts per half and family are written to FILE as JSON lines for
//! `scripts/make-results` (docs/runs/trust-suite.jsonl, the table of docs/trust.md).

use mibound::data::rules::{Input, Rules, check};
use mibound::estimators::{EstimatorSpec, Settings, compare};
use mibound::tasks::Split;
use mibound::tasks::trust::{Verdict, judge, trust_cases};
use std::collections::BTreeMap;
use std::time::Instant;

/// One JSON line for `scripts/make-results`, the row's cells in the table's column order.
fn json_record(table: &str, run: &str, command: &str, date: &str, cells: &[(&str, String)]) -> String {
    let q = |v: &str| serde_json::to_string(v).expect("a string");
    let row: Vec<String> = cells.iter().map(|(k, v)| format!("{}: {}", q(k), q(v))).collect();
    format!(
        "{{\"table\": {}, \"run\": {}, \"command\": {}, \"date\": {}, \"source\": {}, \"row\": {{{}}}}}",
        q(table),
        q(run),
        q(command),
        q(date),
        q("examples/trust_suite.rs"),
        row.join(", ")
    )
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let record = args.iter().position(|a| a == "--record").map(|i| {
        let path = args.get(i + 1).cloned().expect("--record FILE");
        args.drain(i..i + 2);
        path
    });
    let half = args.first().map(String::as_str).unwrap_or("tuning");
    let seeds: Vec<u64> = args.get(1).map_or(vec![0], |s| s.split(',').map(|v| v.parse().unwrap()).collect());
    let filter = args.get(2).cloned().unwrap_or_default();
    let mut counts: BTreeMap<(&str, String), usize> = BTreeMap::new();
    let mut table: BTreeMap<(&str, &str), [usize; 5]> = BTreeMap::new();
    for case in trust_cases() {
        let wanted = match half {
            "tuning" => case.split == Split::Tuning,
            "held-out" => case.split == Split::HeldOut,
            _ => true,
        };
        if !wanted || !case.id.contains(&filter) {
            continue;
        }
        for &seed in &seeds {
            let (x, y) = case.draw(seed);
            let start = Instant::now();
            let (ix, iy) = (Input::new(x.as_view()), Input::new(y.as_view()));
            let checked = check(&ix, &iy, &Rules::default()).expect("trust data follow the rules");
            let (x, y) = checked.select(&ix, &iy);
            let c = compare(&EstimatorSpec::defaults(), &Settings::default(), x.as_view(), y.as_view(), seed, None)
                .expect("estimate");
            let h = c.headline().expect("a headline");
            let warnings: Vec<String> =
                h.diagnostics.warnings.iter().chain(&c.warnings).map(|w| format!("{:?}", w.code)).collect();
            let verdict = judge(h.value, case.truth, !warnings.is_empty(), c.significant);
            let notes: Vec<&str> = checked.notes.iter().map(|n| n.code()).collect();
            println!(
                "{:<40} seed {seed} truth {:>6.3} read {:>7.3} [{:.3}, {:.3}] {:<28} {:>6.1} s {:?} warnings {:?} notes {:?} dependent {}",
                case.id,
                case.truth,
                h.value,
                h.interval.low,
                h.interval.high,
                h.label,
                start.elapsed().as_secs_f64(),
                verdict,
                warnings,
                notes,
                c.significant
            );
            *counts.entry((case.family, format!("{verdict:?}"))).or_default() += 1;
            let slot = match verdict {
                Verdict::Right => 0,
                Verdict::Warned => 1,
                Verdict::FalseAlarm => 2,
                Verdict::Silent => 3,
                Verdict::FalseDependence => 4,
            };
            table.entry((case.split.name(), case.family)).or_default()[slot] += 1;
            if verdict != Verdict::Right {
                for w in h.diagnostics.warnings.iter().chain(&c.warnings) {
                    println!("    {}", w.message);
                }
            }
        }
    }
    if let Some(path) = record {
        let command =
            format!("cargo run --release --example trust_suite -- {half} {}", args.get(1).map_or("0", String::as_str));
        let date = std::env::var("MIBOUND_RUN_DATE").unwrap_or_default();
        let lines: Vec<String> = table
            .iter()
            .map(|((split, family), c)| {
                let cells = [
                    ("half", split.to_string()),
                    ("family", family.to_string()),
                    ("readings", c.iter().sum::<usize>().to_string()),
                    ("right", c[0].to_string()),
                    ("wrong, warned", c[1].to_string()),
                    ("false alarms", c[2].to_string()),
                    ("silent failures", c[3].to_string()),
                    ("false dependence", c[4].to_string()),
                ];
                json_record("trust-suite", "the default on the trust suite", &command, &date, &cells)
            })
            .collect();
        std::fs::write(&path, lines.join("\n") + "\n").expect("write the record");
    }
    println!("\nverdicts by family ({half}, seeds {seeds:?}):");
    for ((family, verdict), n) in counts {
        println!("  {family:<12} {verdict:<16} {n}");
    }
}
