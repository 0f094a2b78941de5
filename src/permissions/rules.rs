//! The "always" rules one session's answers added, kept to be given again to a restarted claude.

use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::options;
use crate::claude::wire::{PermissionSettings, PermissionUpdate, UpdateKind};

/// The "always" rules of one session: deny rules "Always reject" added (`Bash(rm -rf build)`,
/// `Edit(//abs/path)`), and the allow rules and directories of an "Always allow ... in this
/// session". claude keeps none of them past its process: they are re-sent to a restarted claude
/// (after a crash or an idle stop) by [`SessionRules::flag_settings`].
#[derive(Debug, Clone, Default)]
pub struct SessionRules {
    lists: Arc<Mutex<RuleLists>>,
}

#[derive(Debug, Default)]
struct RuleLists {
    deny: Vec<String>,
    allow: Vec<String>,
    directories: Vec<String>,
}

impl RuleLists {
    /// Every list that has entries: claude replaces a list it is sent, so each goes whole.
    fn settings(&self) -> Value {
        PermissionSettings {
            deny: self.deny.clone(),
            allow: self.allow.clone(),
            additional_directories: self.directories.clone(),
        }
        .to_flag_settings()
    }
}

fn add_once(list: &mut Vec<String>, item: &str) {
    if !list.iter().any(|have| have == item) {
        list.push(item.to_owned());
    }
}

impl SessionRules {
    pub fn new() -> Self {
        Self::default()
    }

    fn lists(&self) -> std::sync::MutexGuard<'_, RuleLists> {
        self.lists.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds deny rules (once each) and returns the settings that put every rule so far in force.
    pub(super) fn add_deny(&self, rules: &[String]) -> Value {
        let mut lists = self.lists();
        for rule in rules {
            add_once(&mut lists.deny, rule);
        }
        lists.settings()
    }

    /// Remembers what an "always allow" answer gave claude for this session only (claude's
    /// `updatedPermissions` with destination `session`), to give it again to a restarted claude.
    /// Rules saved to settings files need nothing: claude reads them again.
    pub(super) fn remember_allowed(&self, updates: &[PermissionUpdate]) {
        let mut lists = self.lists();
        for update in updates.iter().filter(|u| u.is_for_session()) {
            match update.kind() {
                Some(UpdateKind::AddRules {
                    rules, behavior, ..
                }) if behavior == "allow" => {
                    for rule in rules {
                        let rule = options::ToolRule {
                            tool: rule.tool_name.clone(),
                            content: rule.rule_content.clone(),
                        };
                        add_once(&mut lists.allow, &rule.setting());
                    }
                }
                Some(UpdateKind::AddDirectories { directories, .. }) => {
                    for dir in directories {
                        add_once(&mut lists.directories, dir);
                    }
                }
                // setMode: the session's mode, which a restarted claude is given anyway.
                _ => {}
            }
        }
    }

    /// Whether every one of these deny rules is in force (and there is at least one).
    pub(super) fn denies_all(&self, rules: &[String]) -> bool {
        let lists = self.lists();
        !rules.is_empty() && rules.iter().all(|r| lists.deny.contains(r))
    }

    /// The settings to re-apply to a new claude process, if the session has any rule.
    pub fn flag_settings(&self) -> Option<Value> {
        let lists = self.lists();
        let empty = lists.deny.is_empty() && lists.allow.is_empty() && lists.directories.is_empty();
        (!empty).then(|| lists.settings())
    }
}
