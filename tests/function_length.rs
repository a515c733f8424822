//! No function in `src/` is longer than [`MAX_LINES`] lines unless a comment just above it (above
//! its attributes) says why, starting "Long because" or "Long for" (issue #26). Read from the
//! sources: a function runs from its `fn` line to the line where its braces balance, counting
//! only braces in code ([`code_braces`]: not in comments, strings, raw strings or characters).

use crate::common;

use std::path::Path;

const MAX_LINES: usize = 80;

/// For each line of `text`, the braces that open and close on it in code: outside line and
/// block comments, string literals (which may span lines), raw strings (`r"…"`, `r#"…"#`) and
/// character literals (`'{'`, `'\''`); a lifetime (`'a`) is not a literal.
fn code_braces(text: &str) -> Vec<(i64, i64)> {
    #[derive(PartialEq)]
    enum State {
        Code,
        Str,
        Raw(usize),
        Block(usize),
    }
    let chars: Vec<char> = text.chars().collect();
    let mut lines = vec![(0i64, 0i64)];
    let (mut state, mut i) = (State::Code, 0);
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '\n' {
            lines.push((0, 0));
            i += 1;
            continue;
        }
        match state {
            // An escape skips the next character, except a line break (counted below).
            State::Str if c == '\\' && next != Some('\n') => i += 1,
            State::Str if c == '"' => state = State::Code,
            State::Raw(hashes)
                if c == '"' && chars[i + 1..].iter().take(hashes).filter(|&&h| h == '#').count() == hashes =>
            {
                i += hashes;
                state = State::Code;
            }
            State::Block(depth) if c == '*' && next == Some('/') => {
                i += 1;
                state = if depth == 1 { State::Code } else { State::Block(depth - 1) };
            }
            State::Block(depth) if c == '/' && next == Some('*') => {
                i += 1;
                state = State::Block(depth + 1);
            }
            State::Code if c == '/' && next == Some('/') => {
                while i + 1 < chars.len() && chars[i + 1] != '\n' {
                    i += 1;
                }
            }
            State::Code if c == '/' && next == Some('*') => {
                i += 1;
                state = State::Block(1);
            }
            State::Code if c == '"' => state = State::Str,
            State::Code
                if c == 'r'
                    && (next == Some('"') || next == Some('#'))
                    && !ident(i.checked_sub(1).map(|p| chars[p])) =>
            {
                let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
                if chars.get(i + 1 + hashes) == Some(&'"') {
                    i += 1 + hashes;
                    state = State::Raw(hashes);
                }
            }
            State::Code if c == '\'' => {
                // '\'', '\n', '\u{7f}' or 'x': skip to the closing quote; 'a (a lifetime) has none.
                if next == Some('\\') {
                    let close = chars[i + 3..].iter().position(|&q| q == '\'').map_or(0, |p| p + 3);
                    i += close;
                } else if chars.get(i + 2) == Some(&'\'') {
                    i += 2;
                }
            }
            State::Code if c == '{' => lines.last_mut().unwrap().0 += 1,
            State::Code if c == '}' => lines.last_mut().unwrap().1 += 1,
            _ => {}
        }
        i += 1;
    }
    lines
}

fn ident(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// Whether the line starts a function (`pub(crate) const unsafe async extern "C" fn name`).
fn starts_fn(line: &str) -> bool {
    let mut t = line.trim_start();
    if t.starts_with("pub(") {
        t = t.split_once(") ").map_or("", |(_, rest)| rest);
    }
    for prefix in ["pub ", "const ", "async ", "unsafe ", "extern \"C\" ", "extern "] {
        t = t.strip_prefix(prefix).unwrap_or(t);
    }
    t.starts_with("fn ")
}

/// Functions of `text` longer than `MAX_LINES` without the comment: `(line, name, length)`;
/// and how many functions were measured. A function whose braces never balance is an error.
fn unexplained_long_functions(text: &str) -> (Vec<(usize, String, usize)>, usize) {
    let lines: Vec<&str> = text.lines().collect();
    let braces = code_braces(text);
    let (mut out, mut measured) = (Vec::new(), 0);
    for (i, line) in lines.iter().enumerate() {
        if !starts_fn(line) {
            continue;
        }
        let (mut depth, mut end) = (0i64, None);
        for (j, &(open, close)) in braces.iter().enumerate().skip(i) {
            depth += open - close;
            if (open > 0 || close > 0) && depth <= 0 {
                end = Some(j);
                break;
            }
            // A declaration without a body (`fn f(&self);` over several lines, in a trait).
            if depth == 0 && lines.get(j).is_some_and(|l| l.trim_end().ends_with(';')) {
                break;
            }
        }
        let Some(end) = end else {
            if depth == 0 {
                continue;
            }
            panic!("line {}: the braces of this function never balance: {line}", i + 1);
        };
        measured += 1;
        let length = end - i + 1;
        if length <= MAX_LINES {
            continue;
        }
        let above = lines[..i].iter().rev().map(|l| l.trim());
        // Skip the attributes (one line each, or `#[…(` … `)]` over several lines).
        let mut in_attr = false;
        let above = above.skip_while(|l| {
            let skip = in_attr || l.starts_with("#[") || l.ends_with(")]");
            in_attr = (in_attr || l.ends_with(")]")) && !l.starts_with("#[");
            skip
        });
        let explained = above
            .take_while(|l| l.starts_with("//"))
            .any(|l| l.starts_with("// Long because") || l.starts_with("// Long for"));
        if !explained {
            let name = line.trim().split("fn ").nth(1).unwrap_or("").split(['(', '<']).next().unwrap_or("");
            out.push((i + 1, name.to_string(), length));
        }
    }
    (out, measured)
}

#[test]
fn long_functions_say_why() {
    let (mut found, mut measured) = (Vec::new(), 0);
    for f in &common::rust_files(Path::new("src")) {
        let (long, n) = unexplained_long_functions(&std::fs::read_to_string(f).unwrap());
        measured += n;
        for (line, name, length) in long {
            found.push(format!("{}:{line}: fn {name} has {length} lines", f.display()));
        }
    }
    assert!(measured > 500, "only {measured} functions measured: is the scan reading the sources?");
    assert!(
        found.is_empty(),
        "functions over {MAX_LINES} lines without a '// Long because …' comment above them:\n{}",
        found.join("\n")
    );
}

/// A function of `body` lines between its `fn` line and its closing brace.
fn function(body: &[&str]) -> String {
    format!("fn f() {{\n{}\n}}\n", body.join("\n"))
}

#[test]
fn the_scan_measures_past_braces_that_are_not_code() {
    // Each construct alone on its lines, inside a function of exactly MAX_LINES + 1 lines.
    for construct in [
        &["    let c = '{';"][..],
        &["    let c = '\\'';", "    let d = '{';"],
        &["    let s = \"{\";"],
        &["    let s = \"a \\", "        b { c\";"],
        &["    let s = r\"C:\\\";", "    let t = r#\"}\"#;"],
        &["    /* { */"],
        &["    // {"],
        &["    fn g<'a>(x: &'a str) -> &'a str { x }"],
    ] {
        let mut body: Vec<&str> = construct.to_vec();
        body.resize(MAX_LINES - 1, "    let x = 1;");
        let text = function(&body);
        assert_eq!(unexplained_long_functions(&text).0, vec![(1, "f".to_string(), MAX_LINES + 1)], "{construct:?}");
        // One line shorter is within the limit; the nested `fn g` is measured too.
        body.pop();
        let functions = if construct[0].contains("fn g") { 2 } else { 1 };
        assert_eq!(unexplained_long_functions(&function(&body)), (Vec::new(), functions), "{construct:?}");
    }
}

#[test]
fn the_comment_above_the_attributes_explains() {
    let body = vec!["    let x = 1;"; MAX_LINES];
    let long = function(&body);
    let explained =
        format!("// Long because it is a test.\n#[allow(\n    clippy::too_many_lines,\n)]\n#[inline]\n{long}");
    assert!(unexplained_long_functions(&explained).0.is_empty());
    let unrelated = format!("// A comment that says nothing of length.\n{long}");
    assert_eq!(unexplained_long_functions(&unrelated).0.len(), 1);
}

#[test]
#[should_panic(expected = "never balance")]
fn braces_that_never_balance_are_an_error() {
    unexplained_long_functions("fn f() {\n    let x = 1;\n");
}
