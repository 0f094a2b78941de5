//! A session's settings as the editor sees them: the mode and model, their config options, and
//! what claude's `initialize` reply says about them (commands, models, its starting mode).

use serde_json::Value;

use super::{CONTROL_TIMEOUT, SessionActor};
use crate::claude::wire::OutboundControl;
use crate::domain::{AgentError, ConfigOption, SessionUpdate};
use crate::session::modes;
use crate::translate;

impl SessionActor {
    pub fn config_options(&self) -> Vec<ConfigOption> {
        let mut options = vec![modes::config_option(
            &self.mode,
            self.config.allow_bypass_permissions,
        )];
        if let Some(model) = self.model_option() {
            options.push(model);
        }
        options.extend(self.file_edits_option());
        options
    }

    pub(super) fn model_option(&self) -> Option<ConfigOption> {
        if self.models.is_empty() {
            return None;
        }
        Some(ConfigOption {
            id: "model".into(),
            name: "Model".into(),
            description: Some("The model claude uses in this session".into()),
            category: Some("model".into()),
            current: self
                .model
                .clone()
                .unwrap_or_else(|| self.models[0].0.clone()),
            values: self
                .models
                .iter()
                .map(|(id, name, description)| crate::domain::ConfigValue {
                    id: id.clone(),
                    name: name.clone(),
                    description: description.clone(),
                })
                .collect(),
        })
    }

    pub(super) async fn set_mode(&mut self, mode: &str) -> Result<(), AgentError> {
        if !modes::is_known(mode, self.config.allow_bypass_permissions) {
            return Err(AgentError::InvalidParams(format!("unknown mode `{mode}`")));
        }
        self.wake_if_stopped()?;
        if let Some(handle) = self.claude.handle() {
            handle
                .request(
                    OutboundControl::SetPermissionMode { mode: mode.into() },
                    CONTROL_TIMEOUT,
                )
                .await
                .map_err(|e| {
                    AgentError::Internal(format!("claude refused the mode change: {e}"))
                })?;
        } else {
            self.flags.set("--permission-mode", mode);
        }
        self.mode_changed(mode.to_owned());
        Ok(())
    }

    pub(super) async fn set_model(&mut self, model: &str) -> Result<(), AgentError> {
        if !self.models.is_empty() && !self.models.iter().any(|(id, ..)| id == model) {
            return Err(AgentError::InvalidParams(format!(
                "unknown model `{model}`"
            )));
        }
        self.ensure_claude()?;
        let handle = self.claude.handle().expect("claude is running");
        handle
            .request(
                OutboundControl::SetModel {
                    model: Some(model.into()),
                },
                CONTROL_TIMEOUT,
            )
            .await
            .map_err(|e| AgentError::Internal(format!("claude refused the model change: {e}")))?;
        self.model = Some(model.to_owned());
        // Kept for a restarted claude, which would otherwise fall back to the default model.
        self.flags.set("--model", model);
        Ok(())
    }

    /// Tells the editor in both forms clients read: the mode update and the config options.
    pub(super) fn mode_changed(&mut self, mode: String) {
        self.mode_touched = true;
        if self.mode == mode {
            return;
        }
        self.mode = mode.clone();
        *self.asker.mode.lock().unwrap_or_else(|p| p.into_inner()) = mode.clone();
        self.editor
            .session_update(&self.id, SessionUpdate::CurrentMode { mode_id: mode });
        self.editor.session_update(
            &self.id,
            SessionUpdate::ConfigOptions {
                options: self.config_options(),
            },
        );
    }

    pub(super) fn on_initialized(&mut self, reply: Value) {
        if let (Some(settings), Some(handle)) = (self.rules.flag_settings(), self.claude.handle()) {
            let request = OutboundControl::ApplyFlagSettings { settings };
            tokio::spawn(async move { handle.request(request, CONTROL_TIMEOUT).await });
        }
        if let Some(commands) = translate::available_commands(&reply) {
            self.editor
                .session_update(&self.id, SessionUpdate::AvailableCommands { commands });
        }
        self.models = translate::models(&reply);
        let before = self.config_options();
        // claude's starting mode counts only until anyone (the editor, claude) has changed it: the
        // reply may arrive after an early `session/set_mode`.
        if let Some(mode) = reply.get("current_permission_mode").and_then(Value::as_str)
            && !self.mode_touched
            && modes::is_known(mode, true)
            && mode != self.mode
        {
            self.mode_changed(mode.to_owned());
            return;
        }
        if !self.models.is_empty() || before != self.config_options() {
            self.editor.session_update(
                &self.id,
                SessionUpdate::ConfigOptions {
                    options: self.config_options(),
                },
            );
        }
    }
}
