//! The stand-in's script format: one JSON step per line, parsed and with includes expanded.

use super::step_parse::parse_step;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Snippets every script can include by name, compiled in so that `Script::parse` works
/// without a directory (the demo embeds its script with `include_str!`).
const BUILTIN_SNIPPETS: &[(&str, &str)] = &[
    (
        "initialize.jsonl",
        include_str!("../../fixtures/standin/snippets/initialize.jsonl"),
    ),
    (
        "control_defaults.jsonl",
        include_str!("../../fixtures/standin/snippets/control_defaults.jsonl"),
    ),
    (
        "system_init.jsonl",
        include_str!("../../fixtures/standin/snippets/system_init.jsonl"),
    ),
];

/// Includes nest at most this deep, so that a cycle is an error rather than a stack overflow.
const MAX_INCLUDE_DEPTH: usize = 8;

/// A parsed script: the steps in order, includes already expanded.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Script {
    pub(crate) steps: Vec<LocatedStep>,
}

/// A step and where it was written (`file:line`), for error messages.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LocatedStep {
    pub(crate) step: Step,
    pub(crate) origin: String,
    /// `"when": "--flag"` / `"unless": "--flag"`: run the step only if claude got (did not get)
    /// that flag, e.g. stream events only with `--include-partial-messages`.
    pub(crate) condition: Option<FlagCondition>,
}

/// A step that depends on one of claude's flags.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FlagCondition {
    pub(crate) flag: String,
    pub(crate) present: bool,
}

impl FlagCondition {
    pub(crate) fn holds(&self, claude_args: &[String]) -> bool {
        let given = claude_args
            .iter()
            .any(|a| a == &self.flag || a.starts_with(&format!("{}=", self.flag)));
        given == self.present
    }
}

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

/// Why a script could not be loaded.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ScriptError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{origin}: not JSON: {source}")]
    Json {
        origin: String,
        source: serde_json::Error,
    },
    #[error("{origin}: {message}")]
    Shape { origin: String, message: String },
}

impl Script {
    /// Loads a script file; includes resolve to built-in snippets first, then to files next to it.
    pub(crate) fn load(path: impl AsRef<Path>) -> Result<Script, ScriptError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| ScriptError::Io {
            path: path.to_owned(),
            source,
        })?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut steps = Vec::new();
        parse_into(&text, &name, path.parent(), 0, &mut steps)?;
        Script::checked(steps)
    }

    /// Parses script text; includes resolve to built-in snippets only.
    pub(crate) fn parse(text: &str) -> Result<Script, ScriptError> {
        let mut steps = Vec::new();
        parse_into(text, "<script>", None, 0, &mut steps)?;
        Script::checked(steps)
    }

    /// Where `label` is, as a step index.
    pub(crate) fn label_index(&self, label: &str) -> Option<usize> {
        self.steps
            .iter()
            .position(|s| matches!(&s.step, Step::Label(l) if l == label))
    }

    /// Every jump must land on exactly one label.
    fn checked(steps: Vec<LocatedStep>) -> Result<Script, ScriptError> {
        let script = Script { steps };
        for located in &script.steps {
            let targets: Vec<&String> = match &located.step {
                Step::Goto(t) => vec![t],
                Step::Branch(alts) => alts.iter().map(|(_, t)| t).collect(),
                Step::Label(l)
                    if script
                        .steps
                        .iter()
                        .filter(|s| s.step == Step::Label(l.clone()))
                        .count()
                        > 1 =>
                {
                    return Err(ScriptError::Shape {
                        origin: located.origin.clone(),
                        message: format!("label {l:?} is defined twice"),
                    });
                }
                _ => vec![],
            };
            if let Some(missing) = targets
                .into_iter()
                .find(|t| script.label_index(t).is_none())
            {
                return Err(ScriptError::Shape {
                    origin: located.origin.clone(),
                    message: format!("no label {missing:?} to jump to"),
                });
            }
        }
        Ok(script)
    }
}

fn parse_into(
    text: &str,
    name: &str,
    dir: Option<&Path>,
    depth: usize,
    out: &mut Vec<LocatedStep>,
) -> Result<(), ScriptError> {
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with("//") || trimmed.starts_with('#') {
            continue;
        }
        let origin = format!("{name}:{}", index + 1);
        let value: Value = serde_json::from_str(trimmed).map_err(|source| ScriptError::Json {
            origin: origin.clone(),
            source,
        })?;
        let shape = |message: String| ScriptError::Shape {
            origin: origin.clone(),
            message,
        };
        let Value::Object(mut map) = value else {
            return Err(shape("a step must be a JSON object".into()));
        };
        let condition = match (map.remove("when"), map.remove("unless")) {
            (None, None) => None,
            (Some(Value::String(flag)), None) => Some(FlagCondition {
                flag,
                present: true,
            }),
            (None, Some(Value::String(flag))) => Some(FlagCondition {
                flag,
                present: false,
            }),
            _ => return Err(shape("`when`/`unless` take one flag name, not both".into())),
        };
        if let Some(target) = map.get("include") {
            if condition.is_some() {
                return Err(shape("`include` cannot be conditional".into()));
            }
            let target = target
                .as_str()
                .ok_or_else(|| shape("`include` takes a file name".into()))?;
            if depth >= MAX_INCLUDE_DEPTH {
                return Err(shape(format!(
                    "includes nest deeper than {MAX_INCLUDE_DEPTH} (a cycle?)"
                )));
            }
            let (text, sub_dir) = resolve_include(target, dir).map_err(shape)?;
            parse_into(&text, target, sub_dir.as_deref().or(dir), depth + 1, out)?;
            continue;
        }
        let mut step = parse_step(&map).map_err(shape)?;
        if let Step::On(handler) = &mut step {
            handler.origin = origin.clone();
        }
        out.push(LocatedStep {
            step,
            origin,
            condition,
        });
    }
    Ok(())
}

fn resolve_include(target: &str, dir: Option<&Path>) -> Result<(String, Option<PathBuf>), String> {
    if let Some((_, text)) = BUILTIN_SNIPPETS.iter().find(|(n, _)| *n == target) {
        return Ok(((*text).to_owned(), None));
    }
    let Some(dir) = dir else {
        return Err(format!("no built-in snippet named {target:?}"));
    };
    let path = dir.join(target);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot include {}: {e}", path.display()))?;
    Ok((text, path.parent().map(Path::to_owned)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_every_step_kind_and_skips_comments() {
        let text = r#"
// a comment
# another
{"expect": {"type":"user"}, "bind": {"prompt": "/message/content/0/text"}, "optional": true}
{"expect_any_order": [{"type":"a"}, {"expect": {"type":"b"}, "bind": {"id": "/id"}}]}
{"emit": {"type":"assistant","session_id":"${session_id}"}}
{"emit_raw": "not json"}
{"emit_big_line": {"bytes": 100, "template": {"t": "${filler}"}}}
{"sleep_ms": 5}
{"stderr": "boom"}
{"write_file": {"path": "a.txt", "content": "hi"}}
{"set": {"x": 1}}
{"wait_eof": true}
{"hang": true}
{"exit": 1}
"#;
        let script = Script::parse(text).unwrap();
        let steps: Vec<&Step> = script.steps.iter().map(|s| &s.step).collect();
        assert_eq!(steps.len(), 12);
        assert_eq!(
            steps[0],
            &Step::Expect(Expectation {
                pattern: json!({"type":"user"}),
                bind: vec![("prompt".into(), "/message/content/0/text".into())],
                optional: true
            })
        );
        let Step::ExpectAnyOrder(items) = steps[1] else {
            panic!("{:?}", steps[1])
        };
        assert_eq!(items[0].pattern, json!({"type":"a"}));
        assert_eq!(items[1].bind, vec![("id".to_string(), "/id".to_string())]);
        assert_eq!(
            steps[4],
            &Step::EmitBigLine {
                bytes: 100,
                fill: 'x',
                template: json!({"t":"${filler}"})
            }
        );
        assert_eq!(steps[10], &Step::Hang);
        assert_eq!(steps[11], &Step::Exit(1));
        assert_eq!(script.steps[0].origin, "<script>:4");
    }

    #[test]
    fn jumps_must_land_on_one_label() {
        let ok = Script::parse(
            r#"{"label": "top"}
{"branch": [{"expect": {"a": 1}, "bind": {"x": "/a"}, "goto": "top"}, {"expect": "$any", "goto": "end"}]}
{"label": "end"}
{"goto": "top"}"#,
        )
        .unwrap();
        assert_eq!(ok.label_index("end"), Some(2));
        let Step::Branch(alts) = &ok.steps[1].step else {
            panic!()
        };
        assert_eq!(alts[0].0.bind, vec![("x".to_string(), "/a".to_string())]);
        assert!(Script::parse(r#"{"goto": "nowhere"}"#).is_err());
        assert!(Script::parse("{\"label\": \"a\"}\n{\"label\": \"a\"}").is_err());
        assert!(Script::parse(r#"{"branch": [{"expect": {}}]}"#).is_err());
    }

    #[test]
    fn steps_can_depend_on_a_claude_flag() {
        let script = Script::parse(
            "{\"emit\": {}, \"when\": \"--include-partial-messages\"}\n{\"emit\": {}, \"unless\": \"--x\"}",
        )
        .unwrap();
        let partial = script.steps[0].condition.as_ref().unwrap();
        assert!(partial.holds(&["--verbose".into(), "--include-partial-messages".into()]));
        assert!(!partial.holds(&["--verbose".into()]));
        let unless = script.steps[1].condition.as_ref().unwrap();
        assert!(unless.holds(&[]));
        assert!(!unless.holds(&["--x=1".into()]));
        assert!(Script::parse("{\"emit\": {}, \"when\": 1}").is_err());
    }

    #[test]
    fn rejects_ambiguous_unknown_and_malformed_steps() {
        for bad in [
            r#"{"emit": {}, "exit": 1}"#,
            r#"{"emitt": {}}"#,
            r#"{"emit": {}, "bind": {"a": "/x"}}"#,
            r#"{"expect": {}, "bind": {"a": "x"}}"#,
            r#"{"emit_big_line": {"bytes": 10, "template": {"t": "no filler"}}}"#,
            r#"[1, 2]"#,
            r#"{"include": "no-such-snippet.jsonl"}"#,
        ] {
            assert!(Script::parse(bad).is_err(), "accepted {bad}");
        }
        let err = Script::parse("\n{\"emit\": }").unwrap_err().to_string();
        assert!(err.starts_with("<script>:2: not JSON"), "{err}");
    }

    #[test]
    fn includes_expand_builtin_snippets_and_sibling_files() {
        let script = Script::parse(r#"{"include": "initialize.jsonl"}"#).unwrap();
        assert!(matches!(script.steps[0].step, Step::Expect(_)));
        assert!(script.steps[0].origin.starts_with("initialize.jsonl:"));

        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("part.jsonl"),
            "{\"stderr\": \"from part\"}\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("main.jsonl"),
            "{\"include\": \"part.jsonl\"}\n{\"exit\": 2}\n",
        )
        .unwrap();
        let script = Script::load(dir.path().join("main.jsonl")).unwrap();
        assert_eq!(script.steps[0].step, Step::Stderr("from part".into()));
        assert_eq!(script.steps[0].origin, "part.jsonl:1");
        assert_eq!(script.steps[1].origin, "main.jsonl:2");

        std::fs::write(
            dir.path().join("loop.jsonl"),
            "{\"include\": \"loop.jsonl\"}\n",
        )
        .unwrap();
        let err = Script::load(dir.path().join("loop.jsonl"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("deeper"), "{err}");
    }
}
