//! The tasks at representation scale (issue #53): their ids, row counts, group and halves, their
//! true MI (closed forms, each checked by a Monte Carlo of the optimal critic on fresh samples),
//! the injective linear maps behind the embeddings, and docs/tasks.md's table of the halves.

use mibound::Error;
use mibound::data::Sampler;
use mibound::tasks::{self, Bijection, Group, SCALE_IDS, Split, pointwise_mi, random_linear};
use nalgebra::DMatrix;

/// The family of a scale id: the id without `scale-N-` and without the map prefix, up to its
/// first numeric field.
fn family(id: &str) -> &'static str {
    ["rotate-staircase-", "rotate-student-staircase-", "embed-"]
        .into_iter()
        .find(|f| id.split_once('-').unwrap().1.split_once('-').unwrap().1.starts_with(f))
        .unwrap_or_else(|| panic!("{id}: no family"))
}

#[test]
fn every_scale_task_has_its_rows_dims_group_and_closed_form_truth() {
    assert!(SCALE_IDS.len() >= 8);
    let mut million = 0;
    for id in SCALE_IDS {
        let t = tasks::get(id).unwrap_or_else(|e| panic!("{id}: {e}"));
        let info = t.info();
        let f: Vec<&str> = id.split('-').collect();
        let n: usize = f[1].parse().unwrap();
        assert_eq!(info.suggested_n, n, "{id}");
        assert!((10_000..=1_000_000).contains(&n), "{id}");
        million += usize::from(n == 1_000_000);
        assert_eq!(info.group, Group::Scale, "{id}");
        assert!(info.split.is_some(), "{id}");
        let num = |k: usize| f[f.len() - k].parse::<f64>().unwrap();
        let (dims, truth) = match family(id) {
            // −D/2 log(1 − ρ²) with ρ from the MI: the MI itself.
            "rotate-staircase-" => (num(2) as usize, num(1)),
            // Arellano-Valle et al. 2013: the normal part of the dispersion plus the t term.
            "rotate-student-staircase-" => {
                let d = num(3) as usize;
                (d, num(1) + tasks::student_correction(num(2), d, d))
            }
            // An injective map of the latent pair: the latent MI.
            _ => (num(2) as usize, num(1)),
        };
        assert_eq!((info.dim_x, info.dim_y), (dims, dims), "{id}");
        assert!((64..=1024).contains(&dims), "{id}");
        assert!((info.true_mi - truth).abs() < 1e-12, "{id}: {} vs {truth}", info.true_mi);
    }
    assert!(million <= 1);
}

#[test]
fn the_scale_halves_are_split_by_the_rule_and_apart_from_the_suite() {
    let (tuning, held) = (tasks::scale_split_ids(Split::Tuning), tasks::scale_split_ids(Split::HeldOut));
    assert_eq!(tuning.len() + held.len(), SCALE_IDS.len());
    assert!(tuning.len() >= 4 && held.len() >= 4, "{tuning:?} {held:?}");
    // Every family is in both halves, alternating in list order within its stratum.
    let mut strata: std::collections::HashMap<String, Vec<Split>> = Default::default();
    for id in SCALE_IDS {
        let info = tasks::get(id).unwrap().info().clone();
        assert!(info.stratum.starts_with("scale:"), "{id}: {}", info.stratum);
        strata.entry(info.stratum).or_default().push(info.split.unwrap());
    }
    assert_eq!(strata.len(), 3, "{strata:?}");
    for (s, halves) in &strata {
        assert!(halves.windows(2).all(|w| w[0] != w[1]), "{s}: {halves:?}");
    }
    // The suite's halves and listed ids are untouched.
    let suite: Vec<String> = tasks::suite_ids();
    assert!(SCALE_IDS.iter().all(|id| !suite.contains(&id.to_string()) && !tasks::all_ids().contains(&id.to_string())));
    assert!(tasks::split_ids(Split::Tuning).iter().all(|id| !id.starts_with("scale-")));
    // The same distribution without the prefix is in neither half and keeps its own group.
    let bare = tasks::get("rotate-staircase-64-4").unwrap();
    assert_eq!((bare.info().split, bare.info().group, bare.suggested_n()), (None, Group::HighDim, 10_000));
    // docs/tasks.md names both halves in full, in list order.
    let doc = include_str!("../docs/tasks.md");
    let table: Vec<(String, String)> = doc
        .lines()
        .skip_while(|l| !l.starts_with("## Representation scale"))
        .skip(1)
        .take_while(|l| !l.starts_with("## "))
        .filter(|l| l.starts_with("| `scale-"))
        .map(|l| {
            let c: Vec<&str> = l.split('|').map(str::trim).collect();
            (c[1].trim_matches('`').to_string(), c[c.len() - 2].to_string())
        })
        .collect();
    let want: Vec<(String, String)> = SCALE_IDS
        .iter()
        .map(|id| (id.to_string(), tasks::get(id).unwrap().info().split.unwrap().name().to_string()))
        .collect();
    assert_eq!(table, want, "docs/tasks.md's table of the scale tasks differs from the library's");
}

#[test]
fn the_optimal_critic_averages_to_the_true_mi_on_every_scale_task() {
    // The distribution does not depend on the row count: 2000 rows check the truth (and that
    // the maps invert on their image: the critic is the base critic at the inverse-mapped rows).
    let mut failures = Vec::new();
    for (k, id) in SCALE_IDS.iter().enumerate() {
        let t = tasks::get(id).unwrap();
        let (x, y) = t.draw(2000, 500 + k as u64).unwrap();
        assert!(x.iter().chain(y.iter()).all(|v| v.is_finite()), "{id}");
        let pmi = pointwise_mi(&t, &x, &y).unwrap_or_else(|| panic!("{id}: no optimal critic"));
        let n = pmi.len() as f64;
        let m = pmi.iter().sum::<f64>() / n;
        let se = (pmi.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (n - 1.0) / n).sqrt();
        if (m - t.true_mi()).abs() > 4.0 * se {
            failures.push(format!("{id}: mean {m:.4} ± {se:.4}, true {:.4}", t.true_mi()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The check can fail: the embedded task's critic against a wrong truth.
    let t = tasks::get("embed-4-64-2").unwrap();
    let (x, y) = t.draw(2000, 1).unwrap();
    let pmi = pointwise_mi(&t, &x, &y).unwrap();
    let m = pmi.iter().sum::<f64>() / 2000.0;
    assert!((m - 2.0).abs() < 0.1 && (m - 2.5).abs() > 0.3, "{m}");
}

#[test]
fn scale_samples_are_reproducible_by_seed() {
    let t = tasks::get("scale-10000-embed-8-256-3").unwrap();
    let (a, b) = (t.draw(50, 3).unwrap(), t.draw(50, 3).unwrap());
    assert_eq!(a, b);
    assert_ne!(a.0, t.draw(50, 4).unwrap().0);
    // The maps are fixed by their seeds: a second build gives the same sample.
    assert_eq!(tasks::get("scale-10000-embed-8-256-3").unwrap().draw(50, 3).unwrap(), a);
}

#[test]
fn the_linear_maps_invert_on_their_image_and_refuse_rank_deficiency() {
    let b = random_linear(64, 4, 2.0, 9).unwrap();
    let u = DMatrix::from_fn(3, 4, |i, j| (i as f64 - 1.0) * 0.7 + j as f64);
    let mut w = vec![0.0; 64];
    let mut back = vec![0.0; 4];
    for r in 0..3 {
        let row: Vec<f64> = u.row(r).iter().copied().collect();
        b.forward(&row, &mut w);
        b.inverse(&w, &mut back);
        assert!(row.iter().zip(&back).all(|(a, c)| (a - c).abs() < 1e-10), "{row:?} {back:?}");
    }
    assert_eq!(b.dim_out(4).unwrap(), 64);
    assert!(matches!(b.dim_out(5), Err(Error::Parameter { .. })));
    // Wider than tall, or of lower rank: typed errors.
    assert!(matches!(Bijection::linear(DMatrix::zeros(2, 3)), Err(Error::Parameter { .. })));
    let rank_one = DMatrix::from_fn(5, 2, |i, _| i as f64 + 1.0);
    assert!(matches!(Bijection::linear(rank_one), Err(Error::Parameter { .. })));
    // Bad ids are typed errors.
    for id in ["embed-8-4-1", "embed-0-4-1", "scale-0-embed-2-8-1", "scale-x-embed-2-8-1", "student-staircase-8-0-1"] {
        assert!(tasks::get(id).is_err(), "{id}");
    }
}
