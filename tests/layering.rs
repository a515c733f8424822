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
