//! The grammar of every estimator and bound name: `family[:param]…`, each parameter
//! `key=value` or, for the leading parameters a family allows, the bare value (`smile:5` =
//! `smile:tau=5`, `ksg:3` = `ksg:k=3`, `interpolated:0.5:1` = `interpolated:alpha=0.5:log_baseline=1`).
//!
//! One parser for all of them ([`Name::parse`] and [`Name::params`]), so every family refuses
//! an unknown key (naming it and the keys the family takes), a repeated key and a bare value out
//! of place with the same message. What a value means is the family's business
//! ([`crate::bounds::BoundSpec::parse`], the classical estimators, the flows).

use crate::error::{Error, Result};

/// A name split at `:`: the family (trimmed, lower case) and its raw parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name<'a> {
    /// The family (`ksg`, `smile`, …).
    pub family: String,
    /// The parameters as written, in order.
    pub args: Vec<&'a str>,
}

impl<'a> Name<'a> {
    /// Splits `s` (surrounding blanks ignored) into its family and parameters.
    pub fn parse(s: &'a str) -> Self {
        let mut parts = s.trim().split(':');
        let family = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
        Name { family, args: parts.collect() }
    }

    /// The parameters as `(key, value)` pairs, checked against the family's `keys`: each is
    /// `key=value` (key case-insensitive, blanks trimmed), or a bare value standing for the key
    /// at its position when it is among the first `positional` parameters and every parameter
    /// before it is bare too. An unknown key, a key given twice and a bare value elsewhere are
    /// errors naming it and the keys the family takes.
    pub fn params(&self, keys: &[&str], positional: usize) -> Result<Params> {
        let family = &self.family;
        let takes = if keys.is_empty() { "none".to_string() } else { keys.join(", ") };
        let what = format!("{family} parameter");
        let mut out: Vec<(String, String)> = Vec::new();
        let mut bare = true;
        for (i, a) in self.args.iter().enumerate() {
            let (key, value) = match a.split_once('=') {
                Some((k, v)) => {
                    bare = false;
                    (k.trim().to_ascii_lowercase(), v.trim().to_string())
                }
                None if bare && i < positional.min(keys.len()) => (keys[i].to_string(), a.trim().to_string()),
                None if keys.is_empty() => {
                    return Err(Error::param(&what, a, &format!("{family} takes no parameters")));
                }
                None => {
                    let first = match positional {
                        0 => "no parameter".to_string(),
                        1 => "only the first parameter".to_string(),
                        p => format!("only the first {p} parameters"),
                    };
                    let why =
                        format!("{first} may be given without its key (write key=value); {family} takes: {takes}");
                    return Err(Error::param(&what, a, &why));
                }
            };
            if !keys.contains(&key.as_str()) {
                return Err(Error::param(&what, &key, &format!("unknown key; {family} takes: {takes}")));
            }
            if out.iter().any(|(k, _)| *k == key) {
                return Err(Error::param(&what, &key, "given twice"));
            }
            out.push((key, value));
        }
        Ok(Params(out))
    }
}

/// Checked parameters of a name ([`Name::params`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Params(Vec<(String, String)>);

impl Params {
    /// The value given for `key`, if any.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(s: &str, keys: &[&str], positional: usize) -> Result<Params> {
        Name::parse(s).params(keys, positional)
    }

    #[test]
    fn keys_and_bare_values() {
        let p = params(" Smile:TAU=5 ", &["tau"], 1).unwrap();
        assert_eq!(p.get("tau"), Some("5"));
        let p = params("interpolated:0.5:1", &["alpha", "log_baseline"], 2).unwrap();
        assert_eq!((p.get("alpha"), p.get("log_baseline")), (Some("0.5"), Some("1")));
        let p = params("ksg:3:margins=normal", &["k", "variant", "margins"], 1).unwrap();
        assert_eq!((p.get("k"), p.get("variant"), p.get("margins")), (Some("3"), None, Some("normal")));
    }

    #[test]
    fn unknown_repeated_and_stray_parameters_are_one_message() {
        let e = |s: &str, keys: &[&str], positional| params(s, keys, positional).unwrap_err().to_string();
        assert_eq!(e("infonce:foo=1", &[], 0), "invalid infonce parameter = foo: unknown key; infonce takes: none");
        assert_eq!(e("smile:tau=5:bar=2", &["tau"], 1), "invalid smile parameter = bar: unknown key; smile takes: tau");
        assert_eq!(e("infonce:5", &[], 0), "invalid infonce parameter = 5: infonce takes no parameters");
        assert_eq!(e("smile:tau=5:tau=6", &["tau"], 1), "invalid smile parameter = tau: given twice");
        assert_eq!(
            e("ksg:k=3:2", &["k", "variant", "margins"], 1),
            "invalid ksg parameter = 2: only the first parameter may be given without its key (write key=value); \
             ksg takes: k, variant, margins"
        );
    }
}
