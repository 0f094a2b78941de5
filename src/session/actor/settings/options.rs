//! The session's config options as the editor learns them: in the answer to `session/new` (load,
//! resume, fork), at once when claude's models are known (from this process or the options
//! cache), else after claude's `initialize` reply, waiting at most `AdapterConfig::options_wait`
//! ([`crate::session::options_cache::OPTIONS_WAIT`]); afterwards a `config_option_update` each
//! time they differ from what the editor was last told. Each option is offered where the current
//! model has it: effort levels, Fast mode, ultracode; the agent where claude lists custom agents.

use super::{
    AGENT_ID, DEFAULT_AGENT, DEFAULT_EFFORT, Done, FAST_ID, OpenedOptions, Reply, SessionContext,
    Settings, ULTRACODE_ID,
};
use crate::domain::{ConfigOption, ConfigValue, SessionUpdate};
use crate::editor_tools::setting::{FILE_EDITS, TERMINAL};
use crate::session::modes;

impl Settings {
    /// The modes this session offers now: `auto` where claude says the current model takes it.
    pub(in crate::session::actor) fn offered_modes(&self, ctx: &SessionContext) -> modes::Offered {
        modes::Offered {
            bypass: ctx.config.allow_bypass_permissions,
            auto: self
                .current_model_info()
                .is_some_and(|m| m.supports_auto_mode),
        }
    }

    pub(in crate::session::actor) fn config_options(
        &self,
        ctx: &SessionContext,
    ) -> Vec<ConfigOption> {
        let mut options = vec![modes::config_option(&self.mode, self.offered_modes(ctx))];
        options.extend(self.model_option());
        options.extend(self.effort_option());
        let editor = &ctx.editor;
        let speed = editor.knows_speed_category();
        options.extend(self.toggle_options(editor.supports_boolean_options(), speed));
        options.extend(self.agent_option());
        options.extend(self.file_edits.map(|v| FILE_EDITS.config_option(v)));
        options.extend(self.terminal.map(|v| TERMINAL.config_option(v)));
        options
    }

    fn model_option(&self) -> Option<ConfigOption> {
        Some(ConfigOption {
            id: "model".into(),
            name: "Model".into(),
            description: Some("The model claude uses in this session".into()),
            category: Some("model".into()),
            current: self.current_model()?,
            values: self
                .models
                .iter()
                .map(|m| ConfigValue {
                    id: m.value.clone(),
                    name: m.display_name.clone().unwrap_or_else(|| m.value.clone()),
                    description: m.description.clone(),
                })
                .collect(),
            boolean: false,
        })
    }

    /// The levels the current model takes (empty: it has no effort setting, or is unknown).
    pub(in crate::session::actor) fn effort_levels(&self) -> Vec<String> {
        let Some(current) = self.current_model() else {
            return Vec::new();
        };
        self.models
            .iter()
            .find(|m| m.value == current)
            .map(|m| m.effort_levels().to_vec())
            .unwrap_or_default()
    }

    /// The effort option (ACP category `thought_level`).
    fn effort_option(&self) -> Option<ConfigOption> {
        let levels = self.effort_levels();
        if levels.is_empty() {
            return None;
        }
        let current = self
            .effort
            .clone()
            .filter(|e| levels.contains(e))
            .unwrap_or_else(|| DEFAULT_EFFORT.into());
        let mut values = vec![ConfigValue {
            id: DEFAULT_EFFORT.into(),
            name: "Default".into(),
            description: Some("The model's own effort level".into()),
        }];
        values.extend(levels.into_iter().map(|level| ConfigValue {
            name: capitalized(&level),
            id: level,
            description: None,
        }));
        Some(ConfigOption {
            id: "effort".into(),
            name: "Effort".into(),
            description: Some("How much the model thinks before it answers".into()),
            category: Some("thought_level".into()),
            current,
            values,
            boolean: false,
        })
    }

    pub(in crate::session::actor) fn fast_offered(&self) -> bool {
        self.current_model_info()
            .is_some_and(|m| m.supports_fast_mode)
    }

    /// Offered while claude says ultracode can run; before it has said, where the model takes
    /// `xhigh` effort (claude checks both alike).
    fn ultracode_offered(&self) -> bool {
        self.toggles.ultracode_available.unwrap_or_else(|| {
            self.current_model_info()
                .is_some_and(|m| m.effort_levels().iter().any(|l| l == "xhigh"))
        })
    }

    /// Fast mode and ultracode, where offered: booleans for an editor that takes them, and Fast
    /// mode in schema 1.20's `speed` category for an editor that knows it (`model_config` else).
    pub(in crate::session::actor) fn toggle_options(
        &self,
        as_boolean: bool,
        speed: bool,
    ) -> Vec<ConfigOption> {
        let mut options = Vec::new();
        if self.fast_offered() {
            let mut description = "Faster responses on supported models".to_owned();
            if let Some(why) = self.toggles.fast_unavailable.filter(|_| !self.toggles.fast) {
                description = format!("{description} ({why})");
            }
            let mut fast = ConfigOption::toggle(
                FAST_ID,
                "Fast mode",
                description,
                self.toggles.fast,
                as_boolean,
            );
            if speed {
                fast.category = Some("speed".into());
            }
            options.push(fast);
        }
        if self.ultracode_offered() {
            options.push(ConfigOption::toggle(
                ULTRACODE_ID,
                "Ultracode",
                "Dynamic workflows on every task, at any effort level".into(),
                self.toggles.ultracode,
                as_boolean,
            ));
        }
        options
    }

    fn agent_option(&self) -> Option<ConfigOption> {
        if self.agents.is_empty() {
            return None;
        }
        let standard = ConfigValue {
            id: DEFAULT_AGENT.into(),
            name: "Default".into(),
            description: Some("Standard Claude Code agent".into()),
        };
        let custom = self.agents.iter().map(|a| ConfigValue {
            id: a.name.clone(),
            name: a.name.clone(),
            description: a.description.clone().filter(|d| !d.is_empty()),
        });
        // An agent given at start that claude does not list shows as the standard one.
        let current = self
            .agent
            .as_deref()
            .filter(|name| self.agents.iter().any(|a| a.name == *name))
            .unwrap_or(DEFAULT_AGENT);
        Some(ConfigOption {
            id: AGENT_ID.into(),
            name: "Agent".into(),
            description: Some("Main-thread agent persona".into()),
            category: None,
            current: current.into(),
            values: std::iter::once(standard).chain(custom).collect(),
            boolean: false,
        })
    }

    /// Answers with the options now, or once claude's models are known when `wait` allows it
    /// (and a claude runs to say them).
    pub(in crate::session::actor) fn answer_options(
        &mut self,
        ctx: &SessionContext,
        wait: bool,
        claude_runs: bool,
        reply: Reply<OpenedOptions>,
    ) {
        if !wait || !self.models.is_empty() || !claude_runs {
            self.reply_options(ctx, reply);
            return;
        }
        self.announced.waiting.push(reply);
        let tell = self.tell.clone();
        let wait_for = ctx.config.options_wait;
        tokio::spawn(async move {
            tokio::time::sleep(wait_for).await;
            tell.tell(Done::OptionsDeadline);
        });
    }

    fn reply_options(&mut self, ctx: &SessionContext, reply: Reply<OpenedOptions>) {
        let options = self.config_options(ctx);
        self.announced.options = Some(options.clone());
        let modes = modes::state(&self.mode, self.offered_modes(ctx));
        let _ = reply.send(Ok((modes, options)));
    }

    /// claude answered `initialize`, exited, or kept the session waiting too long: a waiting answer
    /// goes out with what is known; an editor told otherwise before gets an update.
    pub(in crate::session::actor) fn options_known(&mut self, ctx: &SessionContext) {
        let waiting = std::mem::take(&mut self.announced.waiting);
        if !waiting.is_empty() {
            for reply in waiting {
                self.reply_options(ctx, reply);
            }
            return;
        }
        if self.options_announced()
            && self.announced.options.as_ref() != Some(&self.config_options(ctx))
        {
            self.announce_options(ctx);
        }
    }

    /// Whether the editor has the session's options (its answer went out).
    pub(in crate::session::actor) fn options_announced(&self) -> bool {
        self.announced.options.is_some()
    }

    /// Tells the editor the options as they are now.
    pub(in crate::session::actor) fn announce_options(&mut self, ctx: &SessionContext) {
        let options = self.config_options(ctx);
        self.announced.options = Some(options.clone());
        ctx.tell_editor(SessionUpdate::ConfigOptions { options });
    }
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}
