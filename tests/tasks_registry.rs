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
