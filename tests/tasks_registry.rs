//! The task registry: every benchmark-mi id with bmi's true MI, the extra tasks, typed errors.
//!
//! `tests/reference/bmi_tasks.jsonl` is a copy of the project's `shared/bmi/tasks.jsonl`: the 40
//! task ids of benchmark-mi 0.1.3 (`bmi.benchmark.task_list.BENCHMARK_TASKS_LIST`) with their
//! names, dimensions and the true MI that bmi 0.1.3 itself reports (`task.mutual_information`).
//! The values are bmi's, not mibound's: mibound computes its own from the formulas in
//! `src/tasks/` and must agree to 1e-6 relative.

use mibound::Error;
use mibound::data::Sampler;
use mibound::tasks::{self, BMI_IDS, EXTRA_IDS};

struct Reference {
    id: String,
    name: String,
    dim_x: usize,
    dim_y: usize,
    mi: f64,
}

fn reference() -> Vec<Reference> {
    let text = include_str!("reference/bmi_tasks.jsonl");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            Reference {
                id: v["task_id"].as_str().unwrap().to_string(),
                name: v["task_name"].as_str().unwrap().to_string(),
                dim_x: v["dim_x"].as_u64().unwrap() as usize,
                dim_y: v["dim_y"].as_u64().unwrap() as usize,
                mi: v["mi_true"].as_f64().unwrap(),
            }
        })
        .collect()
}

#[test]
fn the_reference_lists_bmis_40_ids_in_the_registrys_order() {
    let r = reference();
    assert_eq!(r.len(), 40);
    let ids: Vec<&str> = r.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, BMI_IDS.to_vec());
}

#[test]
fn every_bmi_id_exists_with_bmis_dims_name_and_true_mi() {
    for r in reference() {
        let t = tasks::get(&r.id).unwrap_or_else(|e| panic!("{}: {e}", r.id));
        assert_eq!((t.dim_x(), t.dim_y()), (r.dim_x, r.dim_y), "{}", r.id);
        assert_eq!(t.info().name, r.name, "{}", r.id);
        assert_eq!(t.id(), r.id);
        let rel = (t.true_mi() - r.mi).abs() / r.mi.abs();
        assert!(rel < 1e-6, "{}: mibound {} vs bmi {} (relative {rel:.2e})", r.id, t.true_mi(), r.mi);
        assert_eq!(t.info().true_mi, t.true_mi());
        assert!(t.info().has_optimal_critic);
    }
}

#[test]
fn every_listed_id_builds_and_its_info_matches_its_sampler() {
    let ids = tasks::all_ids();
    assert_eq!(ids.len(), 40 + EXTRA_IDS.len() + 40 + EXTRA_IDS.iter().filter(|i| !i.starts_with("small_n-")).count());
    let mut seen = std::collections::HashSet::new();
    for id in &ids {
        assert!(seen.insert(id.clone()), "duplicate id {id}");
        let t = tasks::get(id).unwrap_or_else(|e| panic!("{id}: {e}"));
        let info = t.info();
        assert_eq!((info.dim_x, info.dim_y, info.true_mi), (t.dim_x(), t.dim_y(), t.true_mi()), "{id}");
        assert!(info.true_mi.is_finite() && info.true_mi >= 0.0, "{id}: {}", info.true_mi);
        assert!(!info.description.is_empty() && !info.family.is_empty() && !info.source.is_empty(), "{id}");
    }
    assert_eq!(tasks::catalogue().unwrap().len(), ids.len());
}

#[test]
fn the_extra_tasks_have_their_nominal_mi() {
    // Poole et al.'s staircase: the level is the MI by construction (ρ = √(1 − e^{−2I/d})).
    for level in [2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 16.0] {
        let t = tasks::get(&format!("staircase-20-{level}")).unwrap();
        assert!((t.true_mi() - level).abs() < 1e-9 * level, "{level}: {}", t.true_mi());
        let c = tasks::get(&format!("cubic-staircase-20-{level}")).unwrap();
        assert_eq!(c.true_mi(), t.true_mi());
    }
    // Five pairs of correlation r = λ²/(1 + λ²) = 100/101: I = −5/2 · log(1 − r²).
    let r: f64 = 100.0 / 101.0;
    let want = -2.5 * (1.0 - r * r).ln();
    let t = tasks::get("multinormal-sparse-5-5-5-10.0").unwrap();
    assert!((t.true_mi() - want).abs() < 1e-9 * want, "{} vs {want}", t.true_mi());
    assert!(t.true_mi() > 9.0);
    // Student-t with a sparse dispersion: the normal part of its dispersion plus the correction
    // of student-identity with the same dims and ν.
    for df in [1, 2, 3] {
        let s = tasks::get(&format!("student-sparse-5-5-{df}-2-2.0")).unwrap();
        let n = tasks::get("multinormal-sparse-5-5-2-2.0").unwrap();
        let i = tasks::get(&format!("student-identity-5-5-{df}")).unwrap();
        assert!((s.true_mi() - (n.true_mi() + i.true_mi())).abs() < 1e-12);
    }
    // Heavier tails, more MI from the shared scale: ν = 1 > 2 > 3 at 10 × 10.
    let m: Vec<f64> =
        (1..=3).map(|df| tasks::get(&format!("student-identity-10-10-{df}")).unwrap().true_mi()).collect();
    assert!(m[0] > m[1] && m[1] > m[2], "{m:?}");
    // Independent twins have I = 0; small_n keeps the distribution and sets the sample size.
    for id in tasks::all_ids().iter().filter(|i| i.starts_with("indep-")) {
        assert_eq!(tasks::get(id).unwrap().true_mi(), 0.0);
    }
    let s = tasks::get("small_n-100-multinormal-sparse-5-5-2-2.0").unwrap();
    assert_eq!(s.suggested_n(), 100);
    assert_eq!(s.true_mi(), tasks::get("multinormal-sparse-5-5-2-2.0").unwrap().true_mi());
    assert_eq!(tasks::get("1v1-normal-0.75").unwrap().suggested_n(), tasks::DEFAULT_N);
}

#[test]
fn the_student_correction_matches_closed_forms() {
    // ν = 2, 1 × 1, by hand. h(k) = log Γ(1) − log Γ(1 + k/2) + (k/2) log 2π
    // + (1 + k/2)(ψ(1 + k/2) − ψ(1)); with Γ(3/2) = √π/2, ψ(3/2) − ψ(1) = 2 − 2 log 2 and
    // ψ(2) − ψ(1) = 1, the log 2π terms cancel in 2h(1) − h(2) and leave
    // 2(−log(√π/2) + 3/2 (2 − 2 log 2)) − 2.
    let by_hand = 2.0 * (-(std::f64::consts::PI.sqrt() / 2.0).ln() + 1.5 * (2.0 - 2.0 * 2f64.ln())) - 2.0;
    let got = tasks::student_correction(2.0, 1, 1);
    assert!((got - by_hand).abs() < 1e-12, "{got} vs {by_hand}");
    // The correction vanishes as ν → ∞ (the Student-t tends to the normal) and is positive.
    assert!(tasks::student_correction(1e7, 3, 3) < 1e-6);
    for df in [0.5, 1.0, 3.0, 30.0] {
        assert!(tasks::student_correction(df, 2, 3) > 0.0);
    }
}

#[test]
fn unknown_ids_and_bad_parameters_are_typed_errors() {
    for id in ["", "gaussian", "1v1-normal-", "1v1-normal-x", "multinormal-dense-2-2", "foo-1v1-normal-0.75"] {
        assert!(matches!(tasks::get(id), Err(Error::Unknown { .. })), "{id}");
    }
    for id in [
        "1v1-normal-1.0",
        "1v1-additive-0",
        "1v1-additive--1",
        "multinormal-dense-0-2-0.5",
        "multinormal-dense-2-2-1.5",
        "multinormal-sparse-2-2-3-2.0",
        "student-identity-2-2-0",
        "student-identity-2-2--1",
        "spiral-1v1-normal-0.75",
        "spiral-multinormal-sparse-2-2-2-2.0",
        "swissroll_x-1v1-normal-0.75",
        "swissroll_x-normal_cdf-multinormal-sparse-2-2-2-2.0",
        "small_n-0-1v1-normal-0.75",
        "staircase-0-2",
        "staircase-20--1",
    ] {
        match tasks::get(id) {
            Err(Error::Parameter { .. }) | Err(Error::Shape { .. }) => {}
            other => panic!("{id}: {other:?}"),
        }
    }
    let t = tasks::get("1v1-normal-0.75").unwrap();
    assert!(matches!(t.draw(0, 1), Err(Error::Parameter { .. })));
}

#[test]
fn parametric_ids_beyond_the_list_work() {
    // The grammar is general: other dimensions and parameters than the listed ones.
    let t = tasks::get("multinormal-dense-4-6-0.3").unwrap();
    assert_eq!((t.dim_x(), t.dim_y()), (4, 6));
    let t = tasks::get("1v1-normal--0.75").unwrap();
    assert_eq!(t.true_mi(), tasks::get("1v1-normal-0.75").unwrap().true_mi());
    let t = tasks::get("indep-spiral-normal_cdf-multinormal-sparse-4-3-1-1.0").unwrap();
    assert_eq!((t.dim_x(), t.dim_y(), t.true_mi()), (4, 3, 0.0));
    let t = tasks::get("swissroll_x-normal_cdf-1v1-normal-0.5").unwrap();
    assert_eq!((t.dim_x(), t.dim_y()), (2, 1));
}

#[test]
fn the_new_families_have_their_exact_mi() {
    let mi = |id: &str| tasks::get(id).unwrap_or_else(|e| panic!("{id}: {e}")).true_mi();
    let close = |a: f64, b: f64, what: &str| assert!((a - b).abs() < 1e-12 * (1.0 + b.abs()), "{what}: {a} vs {b}");
    // Gao et al. 2017: I = log m − (m−1)/m · log 2; m = 2 by hand: on [0, 1) and (2, 3] (probability
    // ¼ each) one class explains y (ratio 2), on [1, 2] both (ratio 1): I = ½ log 2.
    close(mi("gao-uniform-2"), 0.5 * 2f64.ln(), "gao m = 2");
    close(mi("gao-uniform-5"), 5f64.ln() - 0.8 * 2f64.ln(), "gao m = 5");
    close(mi("gao-uniform-1"), 0.0, "gao m = 1");
    // The label channel: log 10 without noise, 0 when C' is uniform (ε = 9/10), twice for two pairs.
    close(mi("digits-0"), 10f64.ln(), "digits ε = 0");
    assert!(mi("digits-0.9").abs() < 1e-15);
    let e: f64 = 0.3;
    close(mi("digits-0.3"), 10f64.ln() + (1.0 - e) * (1.0 - e).ln() + e * (e / 9.0).ln(), "digits ε = 0.3");
    for eps in ["0.5", "0.6"] {
        close(mi(&format!("digits_x2-{eps}")), 2.0 * mi(&format!("digits-{eps}")), "two pairs");
    }
    // D independent copies of bmi's additive noise: D times its MI.
    close(mi("additive-uniform-3-0.75"), 3.0 * mi("1v1-additive-0.75"), "additive-uniform");
    close(mi("additive-uniform-2-0.1"), 2.0 * mi("1v1-additive-0.1"), "additive-uniform");
    close(mi("additive-normal-5-2.0"), 5.0 * mi("additive-normal-1-2.0"), "additive-normal");
    // The normal + uniform entropy exceeds both the normal's ½ log 2πe and the uniform's log 2ε,
    // and for small ε it tends to the normal's (I ≈ ½ log 2πe − log 2ε).
    for eps in [0.1, 0.5, 2.0] {
        let h = tasks::normal_plus_uniform_entropy(eps);
        assert!(h > 0.5 * (2.0 * std::f64::consts::PI * std::f64::consts::E).ln() && h > (2.0 * eps).ln(), "{eps}");
    }
    let small = tasks::normal_plus_uniform_entropy(1e-3);
    assert!((small - 0.5 * (2.0 * std::f64::consts::PI * std::f64::consts::E).ln()).abs() < 1e-5, "{small}");
    // The MI falls with the noise width, towards 0 (≈ c/ε for wide noise: the information is in
    // the two edges of the noise box, each O(1) wide out of 2ε).
    let falls: Vec<f64> =
        ["0.1", "0.5", "1.0", "2.0", "20.0", "200.0"].iter().map(|e| mi(&format!("additive-normal-1-{e}"))).collect();
    assert!(falls.windows(2).all(|w| w[0] > w[1]) && falls[5] < 0.01, "{falls:?}");
    assert!((falls[4] / falls[5] - 10.0).abs() < 0.5, "not ≈ c/ε: {falls:?}");
    // Zero inflation multiplies the MI by 1 − p; maps keep it.
    close(mi("zero_inflated-0.3-1v1-normal-0.9"), 0.7 * mi("1v1-normal-0.9"), "zero-inflated");
    close(mi("zero_inflated-0.5-multinormal-sparse-3-3-2-2.0"), 0.5 * mi("multinormal-sparse-3-3-2-2.0"), "zi");
    for (a, b) in [
        ("rotate-multinormal-sparse-5-5-2-2.0", "multinormal-sparse-5-5-2-2.0"),
        ("rotate-mixture-ring-2-2-8-0.3", "mixture-ring-2-2-8-0.3"),
        ("exp-1v1-normal-0.75", "1v1-normal-0.75"),
        ("exp-mixture-diag-1-1-3-0.3", "mixture-diag-1-1-3-0.3"),
    ] {
        assert_eq!(mi(a), mi(b), "{a}");
    }
    // High MI in low dimension: −½ log(1 − ρ²).
    close(mi("1v1-normal-0.999"), -0.5 * (1.0 - 0.999f64 * 0.999).ln(), "ρ = 0.999");
}

#[test]
fn the_digits_have_no_image_in_two_classes() {
    let d = tasks::digit_images();
    assert_eq!((d.images.len(), d.labels.len()), (1797, 1797));
    let mut class_of = std::collections::HashMap::new();
    for (img, &c) in d.images.iter().zip(&d.labels) {
        assert!(img.iter().all(|&v| v <= 16));
        let prev = class_of.insert(*img, c);
        assert!(prev.is_none() || prev == Some(c), "an image in classes {prev:?} and {c}");
    }
    // Every class is present with ~180 images; the lookup returns each image's class.
    for c in 0..10 {
        assert!((170..=190).contains(&d.class(c).len()), "class {c}: {}", d.class(c).len());
    }
    for (img, &c) in d.images.iter().zip(&d.labels).step_by(37) {
        let v: Vec<f64> = img.iter().map(|&p| p as f64).collect();
        assert_eq!(d.class_of(&v), Some(c as usize));
    }
    assert_eq!(d.class_of(&[0.5; 64]), None);
    // The decoded file is scikit-learn's data: values printed by scikit-learn 1.9.1 from
    // `load_digits()` (`d.data.sum()`, per-class sums, `d.data[0]`, `np.bincount(d.target)`).
    let sum =
        |imgs: &mut dyn Iterator<Item = &[u8; 64]>| imgs.map(|i| i.iter().map(|&v| v as u64).sum::<u64>()).sum::<u64>();
    assert_eq!(sum(&mut d.images.iter()), 561_718);
    let by_class = [56415, 57007, 55566, 56151, 56239, 55915, 56336, 54289, 57408, 56392];
    let counts = [178, 182, 177, 183, 181, 182, 181, 179, 174, 180];
    for c in 0..10 {
        assert_eq!(sum(&mut d.class(c).iter().map(|&i| &d.images[i])), by_class[c], "class {c}");
        assert_eq!(d.class(c).len(), counts[c], "class {c}");
    }
    let first: [u8; 64] = [
        0, 0, 5, 13, 9, 1, 0, 0, 0, 0, 13, 15, 10, 15, 5, 0, 0, 3, 15, 2, 0, 11, 8, 0, 0, 4, 12, 0, 0, 8, 8, 0, 0, 5,
        8, 0, 0, 9, 8, 0, 0, 4, 11, 0, 1, 12, 7, 0, 0, 2, 14, 5, 10, 12, 0, 0, 0, 0, 6, 13, 10, 0, 0, 0,
    ];
    assert_eq!((d.images[0], d.labels[0], d.labels[1796]), (first, 0, 8));
}

#[test]
fn the_split_is_stratified_balanced_and_documented() {
    use mibound::tasks::{Group, Split};
    let suite = tasks::suite_ids();
    let (tuning, held) = (tasks::split_ids(Split::Tuning), tasks::split_ids(Split::HeldOut));
    // A partition of the suite, deterministic, nearly balanced.
    assert_eq!(tuning.len() + held.len(), suite.len());
    assert!(tuning.iter().all(|i| !held.contains(i)));
    assert_eq!(tuning, tasks::split_ids(Split::Tuning));
    assert!(tuning.len().abs_diff(held.len()) <= suite.len() / 10, "{} vs {}", tuning.len(), held.len());
    // Every stratum with two or more tasks is in both halves, alternating in suite order.
    let mut strata: std::collections::HashMap<String, Vec<Split>> = std::collections::HashMap::new();
    for id in &suite {
        let info = tasks::get(id).unwrap().info().clone();
        strata.entry(info.stratum.clone()).or_default().push(info.split.unwrap());
    }
    for (s, halves) in &strata {
        assert!(halves.windows(2).all(|w| w[0] != w[1]), "{s}: {halves:?}");
    }
    assert!(strata.values().filter(|h| h.len() >= 2).count() >= 20);
    // Each group is in both halves.
    for g in [Group::LowDim, Group::Images, Group::HighDim] {
        for half in [&tuning, &held] {
            assert!(half.iter().any(|id| tasks::get(id).unwrap().info().group == g), "{g:?}");
        }
    }
    // Twins follow their task; ids outside the suite are in neither half.
    assert_eq!(tasks::get("indep-digits-0.3").unwrap().info().split, tasks::get("digits-0.3").unwrap().info().split);
    assert_eq!(tasks::get("multinormal-dense-4-6-0.3").unwrap().info().split, None);
    assert_eq!(tasks::get("digits_x2-0.5").unwrap().info().group, Group::Images);
    assert_eq!(tasks::get("classes-5-5-1.0").unwrap().info().group, Group::HighDim);
    assert_eq!(tasks::get("mixture-ring-2-2-5-0.5").unwrap().info().group, Group::LowDim);
    // docs/tasks.md names both halves in full, in suite order: its table is the split.
    let doc = include_str!("../docs/tasks.md");
    let table: Vec<(String, String)> = doc
        .lines()
        .skip_while(|l| !l.starts_with("## The split"))
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let c: Vec<&str> = l.split('|').map(str::trim).collect();
            (c[1].trim_matches('`').to_string(), c[2].to_string())
        })
        .collect();
    let want: Vec<(String, String)> =
        suite.iter().map(|id| (id.clone(), tasks::get(id).unwrap().info().split.unwrap().name().to_string())).collect();
    assert_eq!(table, want, "docs/tasks.md's split table differs from the library's split");
}

#[test]
fn the_benchmark_configs_of_the_halves_list_each_half() {
    use mibound::tasks::Split;
    for (file, split) in [("suite-tuning.toml", Split::Tuning), ("suite-heldout.toml", Split::HeldOut)] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/benchmark-configs").join(file);
        let c = mibound::benchmark::Config::from_file(&path).unwrap();
        let want: Vec<String> = tasks::split_ids(split).into_iter().filter(|i| !i.starts_with("small_n-")).collect();
        assert_eq!(c.tasks, want, "{file}");
        assert_eq!((c.sizes.as_slice(), c.seeds.as_slice()), ([5000].as_slice(), [0, 1, 2].as_slice()), "{file}");
        assert_eq!(c.plan().unwrap().runs.len(), want.len() * c.estimators.len() * 3, "{file}");
    }
}
