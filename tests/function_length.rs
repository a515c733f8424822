//! No function in `src/` is longer than [`MAX_LINES`] lines unless a comment just above it (above
//! its attributes) says why, starting "Long because" or "Long for" (issue #26). Read from the
//! sources: a function runs from its `fn` line to the line where its braces balance (braces in
//! string and character literals and in comments are not counted).

mod common;

use std::path::Path;

const MAX_LINES: usize = 80;

/// The change of brace depth on one line, outside comments and string or character literals.
fn brace_delta(line: &str) -> i64 {
    let (mut depth, mut in_str) = (0i64, false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if in_str {
            if c == '\\' {
                chars.next();
            } else if c == '"' {
                in_str = false;
            }
        } else if c == '/' && chars.peek() == Some(&'/') {
            break;
        } else if c == '"' {
            in_str = true;
        } else if c == '\'' {
            // A character literal ('{', '\'', '\n'); a lifetime ('a) has no closing quote.
            let rest: String = chars.clone().take(3).collect();
            if let Some(escaped) = rest.strip_prefix('\\') {
                if let Some(end) = escaped.find('\'') {
                    for _ in 0..end + 2 {
                        chars.next();
                    }
                }
            } else if rest.chars().nth(1) == Some('\'') {
                chars.next();
                chars.next();
            }
        } else if c == '{' {
            depth += 1;
        } else if c == '}' {
            depth -= 1;
        }
    }
    depth
}

/// Whether the line starts a function definition (not a declaration ending in `;`).
fn starts_fn(line: &str) -> bool {
    let t = line.trim_start();
    let t = t.strip_prefix("pub(crate) ").or_else(|| t.strip_prefix("pub(super) ")).unwrap_or(t);
    let t = t.strip_prefix("pub ").unwrap_or(t);
    let t = t.strip_prefix("const ").unwrap_or(t);
    let t = t.strip_prefix("unsafe ").unwrap_or(t);
    t.starts_with("fn ") && !t.trim_end().ends_with(';')
}

/// Functions of `text` longer than `MAX_LINES` without the comment: `(line, name, length)`.
fn unexplained_long_functions(text: &str) -> Vec<(usize, String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if !starts_fn(line) {
            continue;
        }
        let (mut depth, mut opened, mut end) = (0i64, false, i);
        for (j, l) in lines.iter().enumerate().skip(i) {
            let d = brace_delta(l);
            opened |= l.contains('{');
            depth += d;
            if opened && depth <= 0 {
                end = j;
                break;
            }
        }
        let length = end - i + 1;
        if length <= MAX_LINES {
            continue;
        }
        let above = lines[..i].iter().rev().map(|l| l.trim()).skip_while(|l| l.starts_with("#["));
        let explained = above
            .take_while(|l| l.starts_with("//"))
            .any(|l| l.starts_with("// Long because") || l.starts_with("// Long for"));
        if !explained {
            let name = line.trim().split("fn ").nth(1).unwrap_or("").split(['(', '<']).next().unwrap_or("");
            out.push((i + 1, name.to_string(), length));
        }
    }
    out
}

#[test]
fn long_functions_say_why() {
    let mut found = Vec::new();
    for f in &common::rust_files(Path::new("src")) {
        for (line, name, length) in unexplained_long_functions(&std::fs::read_to_string(f).unwrap()) {
            found.push(format!("{}:{line}: fn {name} has {length} lines", f.display()));
        }
    }
    assert!(
        found.is_empty(),
        "functions over {MAX_LINES} lines without a '// Long because …' comment above them:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_finds_a_long_function_and_accepts_the_comment() {
    let body: String = (0..MAX_LINES).map(|k| format!("    let a{k} = '{{'; // }}\n")).collect();
    let long = format!("fn long() {{\n{body}}}\nfn short() {{ }}\n");
    assert_eq!(unexplained_long_functions(&long), vec![(1, "long".to_string(), MAX_LINES + 2)]);
    let explained = format!("// Long because it is a test.\n#[inline]\n{long}");
    assert!(unexplained_long_functions(&explained).is_empty());
    let short: String = (0..MAX_LINES - 2).map(|k| format!("    let s{k} = \"}}\";\n")).collect();
    assert!(unexplained_long_functions(&format!("pub fn ok() {{\n{short}}}\n")).is_empty());
}
