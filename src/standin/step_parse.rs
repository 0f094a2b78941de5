//! A script's steps: what each does ([`Step`]), and one script line (a JSON object) into one,
//! with the checks that make a typo an error.

use serde_json::{Map, Value};

/// One thing the stand-in does. See the module doc of `standin` for the JSON of each.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Step {
    Expect(Expectation),
    ExpectAnyOrder(Vec<Expectation>),
    Emit(Value),
    EmitRaw(String),
    EmitBigLine {
        bytes: usize,
        fill: char,
        template: Value,
    },
    SleepMs(u64),
    Stderr(String),
    Exit(i32),
    WaitEof,
    Hang,
    /// Closes stdout and goes on (a claude whose output ends while it lives; `hang` after it).
    CloseStdout,
    /// From here on, stdin closing does not end the run: it waits to be killed, like a claude
    /// busy in a long tool call that does not notice.
    IgnoreEof,
    WriteFile {
        path: String,
        content: String,
    },
    /// Starts `/bin/sh -c <command>` in a session and process group of its own and leaves it
    /// running, as claude starts its Bash tool's shells (`detached: true`).
    SpawnDetached(String),
    Set(Vec<(String, Value)>),
    /// Registers a handler for lines that arrive while the script waits for something else.
    On(Handler),
    /// A place `goto` and `branch` can jump to; does nothing itself.
    Label(String),
    Goto(String),
    /// Reads one line; the first alternative whose pattern matches binds and jumps to its label.
    Branch(Vec<(Expectation, String)>),
}

/// A line the script expects on stdin, and what to capture from it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Expectation {
    pub(crate) pattern: Value,
    /// (variable, JSON pointer) pairs, in script order.
    pub(crate) bind: Vec<(String, String)>,
    /// When true, a line that does not match is left for the next step instead of failing.
    pub(crate) optional: bool,
}

/// `{"on": P, "bind": {...}, "reply": [J, ...]}`: from this step on, a received line that the
/// current step does not want but that matches `P` is answered with the replies and skipped.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Handler {
    pub(crate) expectation: Expectation,
    pub(crate) replies: Vec<Value>,
    /// Where the handler was written, for error messages.
    pub(crate) origin: String,
}

const STEP_KEYS: &[&str] = &[
    "expect",
    "expect_any_order",
    "emit",
    "emit_raw",
    "emit_big_line",
    "sleep_ms",
    "stderr",
    "exit",
    "wait_eof",
    "hang",
    "close_stdout",
    "ignore_eof",
    "write_file",
    "spawn_detached",
    "set",
    "label",
    "goto",
    "branch",
    "on",
];

pub(super) fn parse_step(map: &Map<String, Value>) -> Result<Step, String> {
    let present: Vec<&str> = STEP_KEYS
        .iter()
        .copied()
        .filter(|k| map.contains_key(*k))
        .collect();
    let [key] = present.as_slice() else {
        return Err(format!(
            "a step needs exactly one of {STEP_KEYS:?}, found {present:?}"
        ));
    };
    let allowed_extra: &[&str] = match *key {
        "expect" => &["bind", "optional"],
        "on" => &["bind", "reply"],
        _ => &[],
    };
    if let Some(extra) = map
        .keys()
        .find(|k| k.as_str() != *key && !allowed_extra.contains(&k.as_str()))
    {
        return Err(format!("unknown field `{extra}` in a `{key}` step"));
    }
    let arg = &map[*key];
    Ok(match *key {
        "expect" => Step::Expect(parse_expectation(map)?),
        "on" => {
            let replies = match map.get("reply") {
                None => vec![],
                Some(Value::Array(lines)) => lines.clone(),
                Some(_) => return Err("`reply` takes an array of lines to emit".into()),
            };
            let mut as_expect = Map::new();
            as_expect.insert("expect".into(), arg.clone());
            if let Some(bind) = map.get("bind") {
                as_expect.insert("bind".into(), bind.clone());
            }
            let expectation = parse_expectation(&as_expect)?;
            Step::On(Handler {
                expectation,
                replies,
                origin: String::new(),
            })
        }
        "expect_any_order" => {
            let items = arg.as_array().ok_or("`expect_any_order` takes an array")?;
            let parsed = items
                .iter()
                .map(|item| match item.as_object() {
                    Some(m) if m.contains_key("expect") => parse_expectation(m),
                    _ => Ok(Expectation {
                        pattern: item.clone(),
                        bind: vec![],
                        optional: false,
                    }),
                })
                .collect::<Result<Vec<_>, _>>()?;
            if parsed.iter().any(|e| e.optional) {
                return Err("`optional` is not allowed inside `expect_any_order`".into());
            }
            Step::ExpectAnyOrder(parsed)
        }
        "emit" => Step::Emit(arg.clone()),
        "emit_raw" => Step::EmitRaw(arg.as_str().ok_or("`emit_raw` takes a string")?.to_owned()),
        "emit_big_line" => {
            let bytes = arg
                .get("bytes")
                .and_then(Value::as_u64)
                .ok_or("`emit_big_line` needs `bytes`")?;
            let template = arg
                .get("template")
                .cloned()
                .ok_or("`emit_big_line` needs `template`")?;
            let fill = match arg.get("fill").and_then(Value::as_str) {
                None => 'x',
                Some(s) if s.len() == 1 && s.is_ascii() && !matches!(s, "\"" | "\\") => {
                    s.chars().next().unwrap_or('x')
                }
                Some(other) => {
                    return Err(format!(
                        "`fill` must be one plain ASCII character, not {other:?}"
                    ));
                }
            };
            if !template.to_string().contains("${filler}") {
                return Err("`emit_big_line` template must contain ${filler} in a string".into());
            }
            Step::EmitBigLine {
                bytes: bytes as usize,
                fill,
                template,
            }
        }
        "sleep_ms" => Step::SleepMs(arg.as_u64().ok_or("`sleep_ms` takes milliseconds")?),
        "stderr" => Step::Stderr(arg.as_str().ok_or("`stderr` takes a string")?.to_owned()),
        "exit" => Step::Exit(
            arg.as_i64()
                .and_then(|c| i32::try_from(c).ok())
                .ok_or("`exit` takes an exit code")?,
        ),
        "wait_eof" => Step::WaitEof,
        "hang" => Step::Hang,
        "close_stdout" => Step::CloseStdout,
        "ignore_eof" => Step::IgnoreEof,
        "write_file" => {
            let field = |f: &str| {
                arg.get(f)
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .ok_or(format!("`write_file` needs `{f}`"))
            };
            Step::WriteFile {
                path: field("path")?,
                content: field("content")?,
            }
        }
        "spawn_detached" => Step::SpawnDetached(
            arg.as_str()
                .ok_or("`spawn_detached` takes a shell command")?
                .to_owned(),
        ),
        "set" => {
            let vars = arg
                .as_object()
                .ok_or("`set` takes an object of variables")?;
            Step::Set(vars.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        }
        "label" => Step::Label(arg.as_str().ok_or("`label` takes a name")?.to_owned()),
        "goto" => Step::Goto(arg.as_str().ok_or("`goto` takes a label name")?.to_owned()),
        "branch" => {
            let items = arg
                .as_array()
                .ok_or("`branch` takes an array of {expect, bind?, goto}")?;
            let parsed = items
                .iter()
                .map(|item| {
                    let m = item
                        .as_object()
                        .ok_or("a `branch` alternative is an object")?;
                    let target = m
                        .get("goto")
                        .and_then(Value::as_str)
                        .ok_or("a `branch` alternative needs `goto`")?;
                    let mut rest = m.clone();
                    rest.remove("goto");
                    if !rest.contains_key("expect") {
                        return Err("a `branch` alternative needs `expect`".to_owned());
                    }
                    Ok((parse_expectation(&rest)?, target.to_owned()))
                })
                .collect::<Result<Vec<_>, String>>()?;
            Step::Branch(parsed)
        }
        _ => unreachable!("every STEP_KEYS entry is handled"),
    })
}

pub(super) fn parse_expectation(map: &Map<String, Value>) -> Result<Expectation, String> {
    if let Some(extra) = map
        .keys()
        .find(|k| !["expect", "bind", "optional"].contains(&k.as_str()))
    {
        return Err(format!("unknown field `{extra}` in an expectation"));
    }
    let bind = match map.get("bind") {
        None => vec![],
        Some(Value::Object(b)) => b
            .iter()
            .map(|(var, ptr)| match ptr.as_str() {
                Some(p) if p.is_empty() || p.starts_with('/') => Ok((var.clone(), p.to_owned())),
                _ => Err(format!(
                    "bind `{var}` needs a JSON pointer like \"/request_id\""
                )),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("`bind` takes an object of variable -> JSON pointer".into()),
    };
    let optional = map
        .get("optional")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    Ok(Expectation {
        pattern: map["expect"].clone(),
        bind,
        optional,
    })
}
