//! Matching received lines against script patterns, binding variables, and `${var}` substitution.
//!
//! Patterns are plain JSON with three rules that make them useful against a moving target:
//! objects match as a subset (claude-acp may add fields), the string `"$any"` matches any value
//! that is present, the string `"$absent"` requires a key to be missing, and strings containing
//! `${var}` are compared after substitution. `$$` writes a literal `$`.

use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::HashMap;

/// The built-in variable that is a fresh uuid each time it is used.
const NEW_UUID: &str = "new_uuid";

/// Values bound so far: built-ins (`session_id`, `cwd`, ...) and whatever `bind` captured.
#[derive(Debug, Clone, Default)]
pub(crate) struct Vars {
    values: HashMap<String, Value>,
}

/// Why a substitution or a bind could not be done.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum PatternError {
    #[error("unbound variable `{0}`")]
    Unbound(String),
    #[error("unterminated `${{` in {0:?}")]
    Unterminated(String),
    #[error("nothing at {pointer} to bind to `{var}`")]
    MissingPointer { var: String, pointer: String },
}

impl Vars {
    pub(crate) fn set(&mut self, name: impl Into<String>, value: Value) {
        self.values.insert(name.into(), value);
    }

    pub(crate) fn get(&self, name: &str) -> Option<&Value> {
        self.values.get(name)
    }

    /// Captures `pointer` (RFC 6901) of `received` into each named variable.
    pub(crate) fn bind(
        &mut self,
        binds: &[(String, String)],
        received: &Value,
    ) -> Result<(), PatternError> {
        for (var, pointer) in binds {
            let value = received
                .pointer(pointer)
                .ok_or_else(|| PatternError::MissingPointer {
                    var: var.clone(),
                    pointer: pointer.clone(),
                })?;
            self.set(var.clone(), value.clone());
        }
        Ok(())
    }

    /// Substitutes every `${var}` inside strings of `template`. A string that is exactly
    /// `"${var}"` becomes the bound value itself, keeping its JSON type (object, number...).
    pub(crate) fn substitute(&self, template: &Value) -> Result<Value, PatternError> {
        Ok(match template {
            Value::String(s) => match whole_variable(s) {
                Some(name) => self.lookup(name)?.into_owned(),
                None => Value::String(self.substitute_str(s)?),
            },
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|v| self.substitute(v))
                    .collect::<Result<_, _>>()?,
            ),
            Value::Object(map) => {
                let mut out = Map::with_capacity(map.len());
                for (k, v) in map {
                    out.insert(k.clone(), self.substitute(v)?);
                }
                Value::Object(out)
            }
            other => other.clone(),
        })
    }

    /// Substitutes `${var}` inside one string; non-string values are inlined as compact JSON.
    pub(crate) fn substitute_str(&self, s: &str) -> Result<String, PatternError> {
        let mut out = String::with_capacity(s.len());
        let mut rest = s;
        while let Some(pos) = rest.find('$') {
            out.push_str(&rest[..pos]);
            let after = &rest[pos + 1..];
            if let Some(tail) = after.strip_prefix('$') {
                out.push('$');
                rest = tail;
            } else if let Some(tail) = after.strip_prefix('{') {
                let end = tail
                    .find('}')
                    .ok_or_else(|| PatternError::Unterminated(s.to_owned()))?;
                match self.lookup(&tail[..end])?.as_ref() {
                    Value::String(text) => out.push_str(text),
                    other => out.push_str(&other.to_string()),
                }
                rest = &tail[end + 1..];
            } else {
                out.push('$');
                rest = after;
            }
        }
        out.push_str(rest);
        Ok(out)
    }

    /// A variable's value; `new_uuid` is a fresh v4 uuid at every use (so a looping script can
    /// give each turn its own message, tool and request ids via `set`).
    fn lookup(&self, name: &str) -> Result<Cow<'_, Value>, PatternError> {
        if name == NEW_UUID && !self.values.contains_key(NEW_UUID) {
            return Ok(Cow::Owned(Value::String(uuid::Uuid::new_v4().to_string())));
        }
        self.values
            .get(name)
            .map(Cow::Borrowed)
            .ok_or_else(|| PatternError::Unbound(name.to_owned()))
    }
}

/// `"${name}"` and nothing else around it.
fn whole_variable(s: &str) -> Option<&str> {
    let name = s.strip_prefix("${")?.strip_suffix('}')?;
    (!name.contains('}') && !name.contains('$')).then_some(name)
}

/// Whether `received` matches `pattern` under `vars`. Errors only on a broken pattern
/// (an unbound variable), never on a mismatch.
pub(crate) fn matches(
    pattern: &Value,
    received: &Value,
    vars: &Vars,
) -> Result<bool, PatternError> {
    match pattern {
        Value::String(s) if s == "$any" => Ok(true),
        Value::String(s) if s == "$absent" => Ok(false),
        Value::String(s) => {
            if let Some(name) = whole_variable(s) {
                return Ok(vars.lookup(name)?.as_ref() == received);
            }
            if s.contains('$') {
                return Ok(received.as_str() == Some(vars.substitute_str(s)?.as_str()));
            }
            Ok(received.as_str() == Some(s.as_str()))
        }
        Value::Object(expected) => {
            let Some(got) = received.as_object() else {
                return Ok(false);
            };
            for (key, want) in expected {
                match (want, got.get(key)) {
                    (Value::String(s), None) if s == "$absent" => {}
                    (Value::String(s), Some(_)) if s == "$absent" => return Ok(false),
                    (_, None) => return Ok(false),
                    (want, Some(have)) => {
                        if !matches(want, have, vars)? {
                            return Ok(false);
                        }
                    }
                }
            }
            Ok(true)
        }
        Value::Array(expected) => {
            let Some(got) = received.as_array() else {
                return Ok(false);
            };
            if got.len() != expected.len() {
                return Ok(false);
            }
            for (want, have) in expected.iter().zip(got) {
                if !matches(want, have, vars)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        // Numbers, booleans and null compare as JSON values.
        other => Ok(other == received),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vars() -> Vars {
        let mut v = Vars::default();
        v.set("session_id", json!("s-1"));
        v.set("input", json!({"file_path": "/w/a.txt", "content": "hi"}));
        v.set("n", json!(3));
        v
    }

    #[test]
    fn objects_match_as_a_subset_and_arrays_by_length() {
        let v = vars();
        let got = json!({"type":"user","message":{"role":"user","content":[{"type":"text","text":"hi"}]},"extra":1});
        assert!(matches(&json!({"type":"user"}), &got, &v).unwrap());
        assert!(matches(&json!({"message":{"content":[{"type":"text"}]}}), &got, &v).unwrap());
        assert!(!matches(&json!({"message":{"content":[]}}), &got, &v).unwrap());
        assert!(
            !matches(
                &json!({"message":{"content":[{"type":"text"},{"type":"text"}]}}),
                &got,
                &v
            )
            .unwrap()
        );
        assert!(!matches(&json!({"type":"control_request"}), &got, &v).unwrap());
        assert!(!matches(&json!({"missing":"$any"}), &got, &v).unwrap());
    }

    #[test]
    fn any_absent_and_literal_dollar() {
        let v = vars();
        let got = json!({"behavior":"deny","message":"no","tag":"$any"});
        assert!(matches(&json!({"message":"$any"}), &got, &v).unwrap());
        assert!(matches(&json!({"updatedInput":"$absent"}), &got, &v).unwrap());
        assert!(!matches(&json!({"message":"$absent"}), &got, &v).unwrap());
        assert!(matches(&json!({"tag":"$$any"}), &got, &v).unwrap());
        assert!(!matches(&json!({"behavior":"$$any"}), &got, &v).unwrap());
    }

    #[test]
    fn variables_compare_after_substitution_keeping_types() {
        let v = vars();
        let got = json!({"session_id":"s-1","updatedInput":{"content":"hi","file_path":"/w/a.txt"},"label":"id s-1 #3"});
        assert!(matches(&json!({"session_id":"${session_id}"}), &got, &v).unwrap());
        assert!(matches(&json!({"updatedInput":"${input}"}), &got, &v).unwrap());
        assert!(matches(&json!({"label":"id ${session_id} #${n}"}), &got, &v).unwrap());
        assert!(!matches(&json!({"label":"id ${session_id}"}), &got, &v).unwrap());
        assert_eq!(
            matches(&json!({"label":"${nope}"}), &got, &v),
            Err(PatternError::Unbound("nope".into()))
        );
    }

    #[test]
    fn substitution_inlines_strings_and_keeps_whole_values_typed() {
        let v = vars();
        let out = v
            .substitute(
                &json!({"a":"${input}","b":"path ${session_id}/x","c":["${n}", 7],"d":"cost $$5"}),
            )
            .unwrap();
        assert_eq!(
            out,
            json!({"a":{"file_path":"/w/a.txt","content":"hi"},"b":"path s-1/x","c":[3,7],"d":"cost $5"})
        );
        assert_eq!(v.substitute_str("n=${n}").unwrap(), "n=3");
        assert_eq!(
            v.substitute_str("${oops"),
            Err(PatternError::Unterminated("${oops".into()))
        );
        assert_eq!(v.substitute_str("a lone $ sign").unwrap(), "a lone $ sign");
    }

    #[test]
    fn new_uuid_is_fresh_at_every_use() {
        let v = Vars::default();
        let out = v
            .substitute(&json!(["${new_uuid}", "msg_${new_uuid}"]))
            .unwrap();
        let (a, b) = (out[0].as_str().unwrap(), out[1].as_str().unwrap());
        assert_eq!(a.len(), 36);
        assert!(b.starts_with("msg_") && b.len() == 40);
        assert_ne!(a, &b[4..]);
    }

    #[test]
    fn bind_captures_json_pointers() {
        let mut v = Vars::default();
        let got = json!({"request_id":"r-9","request":{"subtype":"interrupt"}});
        v.bind(
            &[
                ("rid".into(), "/request_id".into()),
                ("req".into(), "/request".into()),
            ],
            &got,
        )
        .unwrap();
        assert_eq!(v.get("rid"), Some(&json!("r-9")));
        assert_eq!(v.get("req"), Some(&json!({"subtype":"interrupt"})));
        let err = v.bind(&[("x".into(), "/nope".into())], &got).unwrap_err();
        assert_eq!(
            err,
            PatternError::MissingPointer {
                var: "x".into(),
                pointer: "/nope".into()
            }
        );
    }
}
