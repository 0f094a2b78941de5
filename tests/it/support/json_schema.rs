//! A JSON Schema (draft-07) validator for the keywords the schemas vendored in this repository use.
//! A keyword it does not know fails the validation, so a newer schema that relies on one is noticed
//! rather than half-checked.

use regex_automata::meta::Regex;
use serde_json::Value;

/// Keywords that check nothing themselves: descriptions, and `definitions` (reached by `$ref`).
const NOT_CHECKS: &[&str] = &["$schema", "$id", "title", "description", "definitions"];

/// Every place where `instance` breaks `schema`, as `path: what`. Empty when it is valid.
pub fn violations(schema: &Value, instance: &Value) -> Vec<String> {
    let mut found = Vec::new();
    check(schema, schema, instance, "$", &mut found);
    found
}

fn check(root: &Value, schema: &Value, value: &Value, at: &str, found: &mut Vec<String>) {
    let Some(keywords) = schema.as_object() else {
        match schema {
            Value::Bool(true) => {}
            Value::Bool(false) => found.push(format!("{at}: not allowed")),
            other => found.push(format!("{at}: schema is not an object: {other}")),
        }
        return;
    };
    for (keyword, arg) in keywords {
        match keyword.as_str() {
            k if NOT_CHECKS.contains(&k) => {}
            "$ref" => {
                let target = resolve(root, arg.as_str().unwrap_or_default());
                check(root, target, value, at, found);
            }
            "type" => {
                let want = arg.as_str().expect("type is one name here");
                if !has_type(value, want) {
                    found.push(format!("{at}: expected {want}, found {value}"));
                }
            }
            "required" => {
                for name in arg.as_array().expect("required is an array") {
                    let name = name.as_str().expect("required names are strings");
                    if value.as_object().is_some_and(|o| !o.contains_key(name)) {
                        found.push(format!("{at}: missing {name}"));
                    }
                }
            }
            "properties" => {
                if let Some(object) = value.as_object() {
                    for (name, sub) in arg.as_object().expect("properties is an object") {
                        if let Some(v) = object.get(name) {
                            check(root, sub, v, &format!("{at}.{name}"), found);
                        }
                    }
                }
            }
            "additionalProperties" => {
                if let Some(object) = value.as_object() {
                    let declared = keywords.get("properties").and_then(Value::as_object);
                    for (name, v) in object {
                        if !declared.is_some_and(|d| d.contains_key(name)) {
                            check(root, arg, v, &format!("{at}.{name}"), found);
                        }
                    }
                }
            }
            "propertyNames" => {
                if let Some(object) = value.as_object() {
                    for name in object.keys() {
                        let key = Value::String(name.clone());
                        check(root, arg, &key, &format!("{at}[key {name}]"), found);
                    }
                }
            }
            "minProperties" => {
                let min = arg.as_u64().expect("a count") as usize;
                if value.as_object().is_some_and(|o| o.len() < min) {
                    found.push(format!("{at}: fewer than {min} properties"));
                }
            }
            "items" => {
                if let Some(items) = value.as_array() {
                    for (i, item) in items.iter().enumerate() {
                        check(root, arg, item, &format!("{at}[{i}]"), found);
                    }
                }
            }
            "enum" => {
                if !arg.as_array().expect("enum is an array").contains(value) {
                    found.push(format!("{at}: {value} is not one of {arg}"));
                }
            }
            "minLength" => {
                let min = arg.as_u64().expect("a count") as usize;
                if value.as_str().is_some_and(|s| s.chars().count() < min) {
                    found.push(format!("{at}: shorter than {min}"));
                }
            }
            "pattern" => {
                let pattern = arg.as_str().expect("a pattern");
                let regex = Regex::new(pattern).unwrap_or_else(|e| panic!("{pattern}: {e}"));
                if value.as_str().is_some_and(|s| !regex.is_match(s)) {
                    found.push(format!("{at}: {value} does not match {pattern}"));
                }
            }
            "format" => {
                let format = arg.as_str().expect("a format name");
                assert_eq!(format, "uri", "format {format} is not checked here");
                if value.as_str().is_some_and(|s| !is_uri(s)) {
                    found.push(format!("{at}: {value} is not an absolute URI"));
                }
            }
            other => panic!("schema keyword {other} at {at} is not supported by this validator"),
        }
    }
}

/// The schema a local `$ref` (`#/definitions/name`) points at.
fn resolve<'a>(root: &'a Value, reference: &str) -> &'a Value {
    let pointer = reference
        .strip_prefix('#')
        .unwrap_or_else(|| panic!("only local $ref are supported: {reference}"));
    root.pointer(pointer)
        .unwrap_or_else(|| panic!("$ref {reference} points nowhere"))
}

fn has_type(value: &Value, name: &str) -> bool {
    match name {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "null" => value.is_null(),
        other => panic!("unknown type {other}"),
    }
}

/// RFC 3986's absolute URI, as far as its shape: a scheme, a colon, and no spaces.
fn is_uri(text: &str) -> bool {
    let Some((scheme, rest)) = text.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        && !rest.is_empty()
        && !text.chars().any(char::is_whitespace)
}
