//! A JSON Schema validator for the keywords the schemas this repository checks against use: the
//! vendored draft-07 ones, and the ACP v2 schema the pinned schema crate derives (2020-12's
//! `$defs`, `anyOf`, `oneOf`, `const`, type lists; `x-` annotations check nothing). A keyword it
//! does not know fails the validation, so a newer schema that relies on one is noticed rather
//! than half-checked.

use regex_automata::meta::Regex;
use serde_json::Value;

/// Keywords that check nothing themselves: descriptions, `definitions` (reached by `$ref`), and
/// OpenAPI's `discriminator` (a hint for the `oneOf` beside it, which does the checking).
const NOT_CHECKS: &[&str] = &[
    "discriminator",
    "$comment",
    "$schema",
    "$comment",
    "$id",
    "title",
    "description",
    "definitions",
    "$defs",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
];

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
            k if NOT_CHECKS.contains(&k) || k.starts_with("x-") => {}
            "anyOf" | "oneOf" => {
                let branches = arg.as_array().expect("a list of schemas");
                let each: Vec<Vec<String>> = branches
                    .iter()
                    .map(|b| violations_of(root, b, value, at))
                    .collect();
                let matching = each.iter().filter(|v| v.is_empty()).count();
                // The nearest branch says why (the one a tag picked breaks the fewest rules).
                let tag_fits = |v: &&Vec<String>| {
                    !v.iter().any(|m| {
                        m.contains(" is not the constant ") || m.ends_with("what is excluded")
                    })
                };
                let nearest = (each.iter().filter(tag_fits).min_by_key(|v| v.len()))
                    .or_else(|| each.iter().min_by_key(|v| v.len()))
                    .cloned()
                    .unwrap_or_default();
                let ok = if keyword == "anyOf" {
                    matching > 0
                } else {
                    matching == 1
                };
                if !ok {
                    let short: String = value.to_string().chars().take(120).collect();
                    found.push(format!(
                        "{at}: {matching} of the {keyword} branches match {short}; nearest: {}",
                        nearest.join("; ")
                    ));
                }
            }
            "not" => {
                if violations_of(root, arg, value, at).is_empty() {
                    found.push(format!("{at}: matches what is excluded"));
                }
            }
            "allOf" => {
                for branch in arg.as_array().expect("a list of schemas") {
                    check(root, branch, value, at, found);
                }
            }
            "const" => {
                if value != arg {
                    found.push(format!("{at}: {value} is not the constant {arg}"));
                }
            }
            "minimum" => {
                let min = arg.as_f64().expect("a number");
                if value.as_f64().is_some_and(|v| v < min) {
                    found.push(format!("{at}: {value} is below {min}"));
                }
            }
            "maximum" => {
                let max = arg.as_f64().expect("a number");
                if value.as_f64().is_some_and(|v| v > max) {
                    found.push(format!("{at}: {value} is above {max}"));
                }
            }
            "minItems" => {
                let min = arg.as_u64().expect("a count") as usize;
                if value.as_array().is_some_and(|a| a.len() < min) {
                    found.push(format!("{at}: fewer than {min} items"));
                }
            }
            "$ref" => {
                let target = resolve(root, arg.as_str().unwrap_or_default());
                check(root, target, value, at, found);
            }
            "type" => {
                let names: Vec<&str> = match arg {
                    Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
                    other => vec![other.as_str().expect("a type name")],
                };
                if !names.iter().any(|want| has_type(value, want)) {
                    found.push(format!("{at}: expected {arg}, found {value}"));
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
            "maxLength" => {
                let max = arg.as_u64().expect("a count") as usize;
                if value.as_str().is_some_and(|s| s.chars().count() > max) {
                    found.push(format!("{at}: longer than {max}"));
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
                match arg.as_str().expect("a format name") {
                    "uri" => {
                        if value.as_str().is_some_and(|s| !is_uri(s)) {
                            found.push(format!("{at}: {value} is not an absolute URI"));
                        }
                    }
                    // schemars' integer widths: the sign is what JSON can get wrong.
                    "uint" | "uint8" | "uint16" | "uint32" | "uint64" => {
                        if value.is_number() && !value.is_u64() {
                            found.push(format!("{at}: {value} is not an unsigned integer"));
                        }
                    }
                    "int" | "int8" | "int16" | "int32" | "int64" | "double" | "float" => {}
                    // RFC 3339's shape: a date, `T`, a time.
                    "date-time" => {
                        let ok = |s: &str| {
                            s.len() >= 20 && s.as_bytes()[4] == b'-' && s.as_bytes()[10] == b'T'
                        };
                        if value.as_str().is_some_and(|s| !ok(s)) {
                            found.push(format!("{at}: {value} is not an RFC 3339 time"));
                        }
                    }
                    other => panic!("format {other} is not checked here"),
                }
            }
            other => panic!("schema keyword {other} at {at} is not supported by this validator"),
        }
    }
}

fn violations_of(root: &Value, schema: &Value, value: &Value, at: &str) -> Vec<String> {
    let mut found = Vec::new();
    check(root, schema, value, at, &mut found);
    found
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
