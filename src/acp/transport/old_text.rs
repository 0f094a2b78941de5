//! A new file's diff says so with `"oldText": null`. The SDK leaves the key out when there is no
//! old text (ACP allows either), but some editors (Toad) show their diff review only when the key
//! is there: every line with a diff gets it added before it is written.

use std::sync::LazyLock;

use serde_json::Value;

/// What a diff looks like in the compact JSON the SDK writes; escaped inside a string it is not.
const DIFF_TAG: &[u8] = br#""type":"diff""#;

/// `line` with `"oldText": null` in each diff that has no `oldText`; other lines as they are.
pub(crate) fn explicit_old_text(line: Vec<u8>) -> Vec<u8> {
    // Built once: every line to the editor is searched (a finder costs more to build than a
    // short line's search).
    static DIFF_FINDER: LazyLock<memchr::memmem::Finder<'static>> =
        LazyLock::new(|| memchr::memmem::Finder::new(DIFF_TAG));
    if DIFF_FINDER.find(&line).is_none() {
        return line;
    }
    let Ok(mut value) = serde_json::from_slice::<Value>(&line) else {
        return line;
    };
    if !add_null_old_text(&mut value) {
        return line;
    }
    serde_json::to_vec(&value).unwrap_or(line)
}

/// Adds the key wherever a diff lacks it; whether anything changed.
fn add_null_old_text(value: &mut Value) -> bool {
    match value {
        Value::Object(map) => {
            let mut changed = false;
            if map.get("type").and_then(Value::as_str) == Some("diff")
                && map.contains_key("newText")
                && !map.contains_key("oldText")
            {
                map.insert("oldText".into(), Value::Null);
                changed = true;
            }
            for child in map.values_mut() {
                changed |= add_null_old_text(child);
            }
            changed
        }
        Value::Array(items) => items
            .iter_mut()
            .fold(false, |changed, item| add_null_old_text(item) | changed),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_files_diff_carries_old_text_null_on_the_wire() {
        let line = br#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"tool_call","content":[{"type":"diff","path":"/w/new.txt","newText":"hi"},{"type":"diff","path":"/w/old.txt","oldText":"a","newText":"b"}]}}}"#;
        let out = String::from_utf8(explicit_old_text(line.to_vec())).unwrap();
        assert!(
            out.contains(r#""oldText":null"#),
            "the key is there, null: {out}"
        );
        assert!(out.contains(r#""oldText":"a""#), "{out}");
        let value: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            value["params"]["update"]["content"][0]["path"],
            "/w/new.txt"
        );
    }

    #[test]
    fn other_lines_pass_untouched() {
        let text = br#"{"a":"the output said \"type\":\"diff\" here","b":1}"#.to_vec();
        assert_eq!(explicit_old_text(text.clone()), text);
        let diff_with_old = br#"{"c":[{"type":"diff","path":"p","oldText":"x","newText":"y"}]}"#;
        assert_eq!(
            explicit_old_text(diff_with_old.to_vec()),
            diff_with_old.to_vec()
        );
    }
}
