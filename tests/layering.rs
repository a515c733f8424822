//! The layering of the crate (src/lib.rs, "Layout"): a module uses only modules of lower
//! layers, and in the same layer a bound never knows critics and a critic never knows bounds.
//! Read from the sources: every `crate::name` path in a module's files.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;

/// Layers, lowest first.
const LAYERS: &[&[&str]] = &[
    &["error", "real", "rng", "numerics", "ranks", "cca", "names"],
    &["gemm", "compute", "plot", "blocks"],
    &["bounds", "contrastive", "critics", "optim", "data"],
    &["tasks"],
    &["train"],
    &["flows"],
    &["estimators"],
    &["benchmark"],
    &["figures"],
    &["cli"],
];

/// Pairs within a layer that must not know each other.
const APART: &[(&str, &str)] = &[("bounds", "critics"), ("critics", "bounds"), ("bounds", "data"), ("critics", "data")];

fn layer(m: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&m))
}

/// The top-level module a file of `src/` belongs to.
fn module_of(path: &Path) -> Option<String> {
    let rel = path.strip_prefix("src").ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?;
    Some(first.trim_end_matches(".rs").to_string())
}

#[test]
fn no_module_uses_a_higher_layer() {
    let all = common::rust_files(Path::new("src"));
    let mut violations = BTreeSet::new();
    let mut checked = 0;
    for f in &all {
        let Some(m) = module_of(f) else { continue };
        let Some(lm) = layer(&m) else {
            assert!(["lib", "main"].contains(&m.as_str()), "{}: module '{m}' is in no layer", f.display());
            continue;
        };
        let text = std::fs::read_to_string(f).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for (at, _) in code.match_indices("crate::") {
                let name: String = code[at + 7..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                let Some(ln) = layer(&name) else { continue };
                checked += 1;
                if ln > lm || APART.contains(&(m.as_str(), name.as_str())) {
                    violations.insert(format!("{}:{}: {m} uses crate::{name}", f.display(), i + 1));
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} crate paths seen: is the scan reading the sources?");
    assert!(
        violations.is_empty(),
        "upward or forbidden imports:\n{}",
        violations.into_iter().collect::<Vec<_>>().join("\n")
    );
}

/// Folders whose files (sibling modules) must not import each other in a cycle: a file's
/// modules depend on each other in one direction, lower ones never reaching back up.
const ACYCLIC: &[&str] = &["src/estimators/neural"];

/// The sibling modules a file of `dir` names through `super::` (`super::x::…` or
/// `use super::{x::…, …}`): of `siblings`, the files of its folder but `mod.rs`.
fn sibling_uses(text: &str, siblings: &BTreeSet<String>) -> BTreeSet<String> {
    let mut uses = BTreeSet::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        for (at, _) in code.match_indices("super::") {
            let rest = &code[at + 7..];
            let names: Vec<&str> = match rest.strip_prefix('{') {
                Some(group) => group.split('}').next().unwrap_or("").split(',').collect(),
                None => vec![rest],
            };
            for n in names {
                let name: String = n.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if siblings.contains(&name) {
                    uses.insert(name);
                }
            }
        }
    }
    uses
}

/// The modules of `edges` (each module with the modules it uses) that lie on cycles (or between
/// them): what is left after peeling off, again and again, the modules that use none left and
/// those that none left uses.
fn on_cycles(edges: &[(String, BTreeSet<String>)]) -> BTreeSet<String> {
    let mut left: BTreeSet<String> = edges.iter().map(|(n, _)| n.clone()).collect();
    let peelable = |left: &BTreeSet<String>, (n, u): &(String, BTreeSet<String>)| {
        left.contains(n) && (u.is_disjoint(left) || !edges.iter().any(|(m, v)| left.contains(m) && v.contains(n)))
    };
    while let Some((n, _)) = edges.iter().find(|e| peelable(&left, e)) {
        left.remove(n);
    }
    left
}

#[test]
fn no_modules_of_a_folder_import_each_other_in_a_cycle() {
    for dir in ACYCLIC {
        let files: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "rs") && p.file_stem().is_some_and(|s| s != "mod"))
            .collect();
        let name = |p: &Path| p.file_stem().unwrap().to_str().unwrap().to_string();
        let siblings: BTreeSet<String> = files.iter().map(|p| name(p)).collect();
        assert!(siblings.len() > 3, "{dir}: only {siblings:?}");
        let edges: Vec<(String, BTreeSet<String>)> =
            files.iter().map(|p| (name(p), sibling_uses(&std::fs::read_to_string(p).unwrap(), &siblings))).collect();
        assert!(edges.iter().any(|(_, u)| !u.is_empty()), "{dir}: no sibling imports seen: is the scan reading them?");
        let left = on_cycles(&edges);
        let cycle: Vec<String> = edges
            .iter()
            .filter(|(n, _)| left.contains(n))
            .map(|(n, u)| format!("{n} uses {:?}", u.intersection(&left).collect::<Vec<_>>()))
            .collect();
        assert!(left.is_empty(), "{dir}: modules that import each other in a cycle:\n{}", cycle.join("\n"));
    }
}

#[test]
fn a_cycle_of_sibling_imports_is_seen() {
    let siblings: BTreeSet<String> = ["config", "plan"].map(String::from).into();
    let config = "use super::plan::trainer_bound;\nuse crate::bounds::BoundSpec;";
    let plan = "use super::{config::NeuralConfig, Plan};\n// use super::fold;";
    assert_eq!(sibling_uses(config, &siblings), ["plan".to_string()].into());
    assert_eq!(sibling_uses(plan, &siblings), ["config".to_string()].into());
    let edges = |plan_uses: &[&str]| {
        let uses = |u: &[&str]| u.iter().map(|s| s.to_string()).collect::<BTreeSet<String>>();
        [
            ("config".to_string(), uses(&["plan"])),
            ("plan".to_string(), uses(plan_uses)),
            ("fold".to_string(), uses(&["plan"])),
        ]
    };
    assert_eq!(on_cycles(&edges(&["config"])), ["config", "plan"].map(String::from).into());
    assert!(on_cycles(&edges(&[])).is_empty());
}
