//! The session's config options as the editor learns them: in the answer to `session/new` (load,
//! resume, fork), at once when claude's models are known (from this process or the options
//! cache), else after claude's `initialize` reply, waiting at most `AdapterConfig::options_wait`
//! ([`crate::session::options_cache::OPTIONS_WAIT`]); afterwards a
//! `config_option_update` each time they differ from what the editor was last told.

use super::{Internal, Reply, SessionActor};
use crate::domain::{ConfigOption, ModeState, SessionUpdate};
use crate::session::modes;

/// The session's modes and config options, for the answer that opens it.
pub(crate) type OpenedOptions = (ModeState, Vec<ConfigOption>);

/// What the editor was told, and who waits to be told.
#[derive(Default)]
pub(super) struct Announced {
    /// The options last sent (in an answer or an update); `None` before the session's answer.
    options: Option<Vec<ConfigOption>>,
    waiting: Vec<Reply<OpenedOptions>>,
}

impl SessionActor {
    /// Answers with the options now, or once claude's models are known when `wait` allows it.
    pub(super) fn answer_options(&mut self, wait: bool, reply: Reply<OpenedOptions>) {
        if !wait || !self.settings.models.is_empty() || !self.claude.is_running() {
            self.reply_options(reply);
            return;
        }
        self.settings.announced.waiting.push(reply);
        let internal = self.inbox.tx.clone();
        let wait_for = self.ctx.config.options_wait;
        tokio::spawn(async move {
            tokio::time::sleep(wait_for).await;
            let _ = internal.send(Internal::OptionsDeadline);
        });
    }

    fn reply_options(&mut self, reply: Reply<OpenedOptions>) {
        let options = self.config_options();
        self.settings.announced.options = Some(options.clone());
        let modes = modes::state(&self.settings.mode, self.offered_modes());
        let _ = reply.send(Ok((modes, options)));
    }

    /// claude answered `initialize`, exited, or kept the session waiting too long: a waiting answer
    /// goes out with what is known; an editor told otherwise before gets an update.
    pub(super) fn options_known(&mut self) {
        let waiting = std::mem::take(&mut self.settings.announced.waiting);
        if !waiting.is_empty() {
            for reply in waiting {
                self.reply_options(reply);
            }
            return;
        }
        if self.options_announced()
            && self.settings.announced.options.as_ref() != Some(&self.config_options())
        {
            self.announce_options();
        }
    }

    /// Whether the editor has the session's options (its answer went out).
    pub(super) fn options_announced(&self) -> bool {
        self.settings.announced.options.is_some()
    }

    /// Tells the editor the options as they are now.
    pub(super) fn announce_options(&mut self) {
        let options = self.config_options();
        self.settings.announced.options = Some(options.clone());
        self.ctx
            .editor
            .session_update(&self.ctx.id, SessionUpdate::ConfigOptions { options });
    }
}
