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

/// The sibling modules a file names: `super::NAME` (also inside `super::{…}`) and
/// `crate::FOLDER::NAME` paths, among `siblings`.
fn sibling_uses(code: &str, folder_path: &str, siblings: &BTreeSet<String>) -> BTreeSet<String> {
    let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    let mut out = BTreeSet::new();
    for (at, _) in code.match_indices("super::") {
        let rest = &code[at + 7..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            out.extend(group.split(',').map(|item| ident(item.trim())));
        } else {
            out.insert(ident(rest));
        }
    }
    if !folder_path.is_empty() {
        let prefix = format!("crate::{folder_path}::");
        out.extend(code.match_indices(&prefix).map(|(at, _)| ident(&code[at + prefix.len()..])));
    }
    out.retain(|n| siblings.contains(n));
    out
}

/// No two files of one folder use each other, directly or around a longer loop (the command
/// line's `estimate` and `features` did: issue #50).
#[test]
fn no_import_cycle_between_the_files_of_a_folder() {
    let mut folders: std::collections::BTreeMap<std::path::PathBuf, Vec<std::path::PathBuf>> = Default::default();
    for f in common::rust_files(Path::new("src")) {
        folders.entry(f.parent().unwrap().to_path_buf()).or_default().push(f);
    }
    let mut found = Vec::new();
    for (dir, files) in &folders {
        let module = |f: &Path| f.file_stem().unwrap().to_str().unwrap().to_string();
        let siblings: BTreeSet<String> = files.iter().map(|f| module(f)).filter(|m| m != "mod").collect();
        let folder_path = dir.strip_prefix("src").unwrap().to_str().unwrap().replace('/', "::");
        let mut uses: std::collections::BTreeMap<String, BTreeSet<String>> = Default::default();
        for f in files.iter().filter(|f| module(f) != "mod") {
            let text = std::fs::read_to_string(f).unwrap();
            let code: String = text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
            let mut used = sibling_uses(&code, &folder_path, &siblings);
            used.remove(&module(f));
            uses.insert(module(f), used);
        }
        found.extend(cycles(&uses).into_iter().map(|c| format!("{}: {c}", dir.to_str().unwrap())));
    }
    assert!(found.is_empty(), "import cycles between files:\n{}", found.join("\n"));
}

/// The cycles of `uses` (each module with the sibling modules it uses), each once, written
/// `a -> b -> a` from its least module.
fn cycles(uses: &std::collections::BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut found = Vec::new();
    for start in uses.keys() {
        let (mut stack, mut seen) = (vec![(start.clone(), vec![start.clone()])], BTreeSet::new());
        while let Some((m, path)) = stack.pop() {
            for next in uses.get(&m).into_iter().flatten() {
                if next == start {
                    if path.iter().min() == Some(start) {
                        found.push(format!("{} -> {start}", path.join(" -> ")));
                    }
                } else if seen.insert(next.clone()) {
                    stack.push((next.clone(), [path.clone(), vec![next.clone()]].concat()));
                }
            }
        }
    }
    found
}

/// The scan sees `super::` uses (also grouped) and `crate::` paths, and the cycle finder sees
/// a cycle of three (the neural default's `config` -> `plan` -> `memory` -> `config` was one).
#[test]
fn a_cycle_of_sibling_imports_is_seen() {
    let siblings: BTreeSet<String> = ["config", "plan", "memory"].map(String::from).into();
    let config = "use super::plan::trainer_bound;\nuse crate::bounds::BoundSpec;";
    let plan = "use super::{memory::peak, Plan};";
    let memory = "use crate::estimators::neural::config::NeuralConfig;";
    let folder = "estimators::neural";
    let uses: std::collections::BTreeMap<String, BTreeSet<String>> =
        [("config", config), ("plan", plan), ("memory", memory)]
            .map(|(m, code)| (m.to_string(), sibling_uses(code, folder, &siblings)))
            .into();
    assert_eq!(uses["config"], ["plan".to_string()].into());
    assert_eq!(uses["plan"], ["memory".to_string()].into());
    assert_eq!(cycles(&uses), vec!["config -> plan -> memory -> config".to_string()]);
    let mut broken = uses.clone();
    broken.get_mut("memory").unwrap().clear();
    assert!(cycles(&broken).is_empty());
}
