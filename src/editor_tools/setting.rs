//! The "File edits" and "Terminal" options, one setting type: whether the editor serves a family
//! of claude's tools (its buffers, its terminal) or claude runs its own. Offered only where the
//! editor declared what the tools need; picked by `_meta` at `session/new` (and load, resume,
//! fork), changed by `session/set_config_option`.

use serde_json::Value;

use crate::domain::{AgentError, ConfigOption, ConfigValue};

/// Who runs one family of claude's tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ServedBy {
    /// The editor, through the session's `acp` server.
    Editor,
    /// claude, with its own built-ins.
    Claude,
}

/// One of the two settings: its option, its `_meta` key and its words.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct ToolSetting {
    /// The config option's id (`session/set_config_option`).
    pub(crate) option_id: &'static str,
    /// The `_meta` key of `session/new` that picks the starting value.
    meta_key: &'static str,
    name: &'static str,
    description: &'static str,
    /// The value's id when claude runs its own tools ("disk", "claude"); the editor's is "editor".
    claude_id: &'static str,
    /// The values' names and descriptions: the editor's, then claude's.
    editor_value: (&'static str, &'static str),
    claude_value: (&'static str, &'static str),
    /// Why the option is not there, where the editor cannot serve these tools.
    unavailable: &'static str,
}

/// Where claude's Read, Write and Edit work on files.
pub(crate) const FILE_EDITS: ToolSetting = ToolSetting {
    option_id: "file_edits",
    meta_key: "fileEdits",
    name: "File edits",
    description: "Where claude's Read, Write and Edit work on files",
    claude_id: "disk",
    editor_value: (
        "Review in editor",
        "Through the editor's buffers: unsaved changes are read, edits arrive for review",
    ),
    claude_value: ("Write to disk", "claude's own tools, on disk"),
    unavailable: "the editor did not declare fs.readTextFile and fs.writeTextFile, so files are always on disk",
};

/// Where claude's Bash commands run.
pub(crate) const TERMINAL: ToolSetting = ToolSetting {
    option_id: "terminal",
    meta_key: "terminal",
    name: "Terminal",
    description: "Where claude's Bash commands run",
    claude_id: "claude",
    editor_value: (
        "Run in editor",
        "In the editor's terminal, shown live in the tool call",
    ),
    claude_value: (
        "Run in claude",
        "claude's own shell; the output shows when the command ends",
    ),
    unavailable: "the editor did not declare terminal, so commands always run in claude",
};

/// The setting whose config option is `option_id`, if it is one of these.
pub(crate) fn find(option_id: &str) -> Option<&'static ToolSetting> {
    [&FILE_EDITS, &TERMINAL]
        .into_iter()
        .find(|setting| setting.option_id == option_id)
}

impl ToolSetting {
    /// The id of `value` in this option.
    pub(crate) fn id(&self, value: ServedBy) -> &'static str {
        match value {
            ServedBy::Editor => "editor",
            ServedBy::Claude => self.claude_id,
        }
    }

    pub(crate) fn parse(&self, value: &str) -> Option<ServedBy> {
        match value {
            "editor" => Some(ServedBy::Editor),
            v if v == self.claude_id => Some(ServedBy::Claude),
            _ => None,
        }
    }

    /// The session's starting value: `None` where the editor cannot serve these tools (`default`
    /// is `None`: the option is not offered, claude's own tools run), else the `_meta` key's, by
    /// default `default`.
    pub(crate) fn initial(
        &self,
        default: Option<ServedBy>,
        meta: Option<&Value>,
    ) -> Result<Option<ServedBy>, AgentError> {
        let key = self.meta_key;
        let asked = match meta.and_then(|m| m.get(key)) {
            None | Some(Value::Null) => None,
            Some(Value::String(value)) if self.parse(value).is_some() => self.parse(value),
            Some(other) => {
                return Err(AgentError::InvalidParams(format!(
                    "_meta.{key}: expected \"editor\" or \"{}\", got {other}",
                    self.claude_id
                )));
            }
        };
        Ok(default.map(|default| asked.unwrap_or(default)))
    }

    /// The new value of a session's setting `current` (`None`: not offered) asked to be `value`.
    pub(crate) fn change(
        &self,
        current: Option<ServedBy>,
        value: &str,
    ) -> Result<ServedBy, AgentError> {
        if current.is_none() {
            return Err(AgentError::InvalidParams(self.unavailable.into()));
        }
        self.parse(value).ok_or_else(|| {
            AgentError::InvalidParams(format!(
                "unknown value `{value}` for {} (expected editor or {})",
                self.option_id, self.claude_id
            ))
        })
    }

    /// The config option, showing `current`.
    pub(crate) fn config_option(&self, current: ServedBy) -> ConfigOption {
        let value = |id: ServedBy, (name, description): (&str, &str)| ConfigValue {
            id: self.id(id).into(),
            name: name.into(),
            description: Some(description.into()),
        };
        ConfigOption {
            id: self.option_id.into(),
            name: self.name.into(),
            description: Some(self.description.into()),
            category: None,
            current: self.id(current).into(),
            values: vec![
                value(ServedBy::Editor, self.editor_value),
                value(ServedBy::Claude, self.claude_value),
            ],
            boolean: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn each_setting_reads_its_own_meta_key_and_values() {
        let meta = json!({"fileEdits": "disk", "terminal": "claude"});
        assert_eq!(
            FILE_EDITS
                .initial(Some(ServedBy::Editor), Some(&meta))
                .unwrap(),
            Some(ServedBy::Claude)
        );
        assert_eq!(
            TERMINAL
                .initial(Some(ServedBy::Editor), Some(&meta))
                .unwrap(),
            Some(ServedBy::Claude)
        );
        assert_eq!(
            FILE_EDITS.initial(Some(ServedBy::Editor), None).unwrap(),
            Some(ServedBy::Editor)
        );
        // An editor that confirms writes itself starts on disk, and `_meta` still picks.
        assert_eq!(
            FILE_EDITS.initial(Some(ServedBy::Claude), None).unwrap(),
            Some(ServedBy::Claude)
        );
        let editor = json!({"fileEdits": "editor"});
        assert_eq!(
            FILE_EDITS
                .initial(Some(ServedBy::Claude), Some(&editor))
                .unwrap(),
            Some(ServedBy::Editor)
        );
        assert_eq!(TERMINAL.initial(None, Some(&meta)).unwrap(), None);
        let wrong = json!({"terminal": "disk"});
        let error = TERMINAL
            .initial(Some(ServedBy::Editor), Some(&wrong))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("expected \"editor\" or \"claude\""),
            "{error}"
        );
        assert_eq!(FILE_EDITS.parse("claude"), None);
        assert_eq!(TERMINAL.id(ServedBy::Claude), "claude");
        assert_eq!(FILE_EDITS.id(ServedBy::Claude), "disk");
    }

    #[test]
    fn a_change_needs_the_option_offered_and_a_known_value() {
        assert_eq!(
            FILE_EDITS.change(Some(ServedBy::Editor), "disk").unwrap(),
            ServedBy::Claude
        );
        let error = TERMINAL.change(None, "editor").unwrap_err().to_string();
        assert!(error.contains("did not declare terminal"), "{error}");
        let error = FILE_EDITS
            .change(Some(ServedBy::Claude), "claude")
            .unwrap_err()
            .to_string();
        assert!(error.contains("expected editor or disk"), "{error}");
    }
}
