//! `mibound tasks` and `mibound sample` over the task suite: every id is listed (also as JSON)
//! and every id samples; the parametric names keep working; bad ids and `--n 0` fail cleanly.

use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mibound")).args(args).output().unwrap()
}

fn dir(name: &str) -> crate::common::TempDir {
    crate::common::temp_dir("tasks-cli", name)
}

#[test]
fn tasks_lists_every_id_as_text_and_json() {
    let out = run(&["tasks"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let ids = mibound::tasks::all_ids();
    for id in &ids {
        assert!(text.lines().any(|l| l.split_whitespace().next() == Some(id.as_str())), "{id} not listed");
    }
    assert!(text.contains("gaussian") && text.contains("asinh-cubic"));

    let out = run(&["tasks", "--json", "--dim", "4", "--mi", "1.5"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let arr = v.as_array().unwrap();
    assert_eq!(arr.len(), 3 + ids.len());
    let gaussian = arr.iter().find(|t| t["id"] == "gaussian").unwrap();
    assert_eq!(gaussian["dim_x"], 4);
    assert!((gaussian["true_mi"].as_f64().unwrap() - 1.5).abs() < 1e-9);
    for id in mibound::tasks::BMI_IDS {
        let t = arr.iter().find(|t| t["id"] == id).unwrap_or_else(|| panic!("{id} not in JSON"));
        let want = mibound::tasks::get(id).unwrap().info().true_mi;
        assert_eq!(t["true_mi"].as_f64().unwrap(), want, "{id}");
        assert!(t["description"].as_str().unwrap().len() > 10 && t["source"].as_str().unwrap().contains("bmi"));
    }
    // The split and the group travel with every suite task (the text shows them too).
    for (id, split, group) in [("digits-0.3", "tuning", "images"), ("mixture-ring-2-1-5-0.2", "held-out", "low-dim")] {
        let t = arr.iter().find(|t| t["id"] == id).unwrap_or_else(|| panic!("{id} not in JSON"));
        assert_eq!((t["split"].as_str(), t["group"].as_str()), (Some(split), Some(group)), "{id}");
        assert!(text.lines().any(|l| l.starts_with(id) && l.contains(split) && l.contains(group)), "{id}");
    }
}

#[test]
fn sample_works_for_every_id() {
    let d = dir("all");
    for (k, id) in mibound::tasks::all_ids().iter().enumerate() {
        let out_dir = d.join(k.to_string());
        let out = run(&["sample", id, "--n", "20", "--seed", "3", "--out", out_dir.to_str().unwrap()]);
        assert!(out.status.success(), "{id}: {}", String::from_utf8_lossy(&out.stderr));
        let t = mibound::tasks::get(id).unwrap();
        let x = mibound::data::files::read_npy(&out_dir.join("x.npy")).unwrap();
        let y = mibound::data::files::read_npy(&out_dir.join("y.npy")).unwrap();
        assert_eq!((x.values.shape(), y.values.shape()), ((20, t.info().dim_x), (20, t.info().dim_y)), "{id}");
        // The files hold the library's samples for the same seed.
        let (lx, ly) = t.draw(20, 3).unwrap();
        assert!(x.values == lx && y.values == ly, "{id}");
        let info: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out_dir.join("info.json")).unwrap()).unwrap();
        assert_eq!(info["task"], id.as_str());
        assert_eq!(info["true_mi"].as_f64().unwrap(), t.info().true_mi, "{id}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn the_parametric_gaussian_keeps_its_flags() {
    let d = dir("gaussian");
    let out = run(&["sample", "gaussian", "--dim", "20", "--mi", "2", "--n", "50", "--out", d.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let x = mibound::data::files::read_npy(&d.join("x.npy")).unwrap();
    assert_eq!(x.values.shape(), (50, 20));
    let info: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(d.join("info.json")).unwrap()).unwrap();
    assert!((info["true_mi"].as_f64().unwrap() - 2.0).abs() < 1e-9);
}

#[test]
fn bad_ids_and_sizes_fail_with_one_line() {
    let d = dir("bad");
    for (args, needle) in [
        (vec!["sample", "multinormal-dense-2-2", "--n", "5"], "unknown task 'multinormal-dense-2-2'"),
        (vec!["sample", "spiral-1v1-normal-0.75", "--n", "5"], "spiral"),
        (vec!["sample", "1v1-normal-0.75", "--n", "0"], "invalid n = 0"),
    ] {
        let mut a = args.clone();
        a.extend(["--out", d.to_str().unwrap()]);
        let out = run(&a);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(needle) && !err.contains("panicked"), "{args:?}: {err}");
    }
}
