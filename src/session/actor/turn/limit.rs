//! A prompt that waits out claude's usage limit: when claude rejects a prompt because the
//! subscription's limit is reached (its `rate_limit_event` says `rejected` and when the window
//! resets, then the turn ends in an error), the turn stays open and the user is asked, on a tool
//! call of claude-acp's own (kind `other`), whether to send the prompt again at the reset or to
//! stop. Waiting shows as that tool call in progress; a cancel or the session's close ends it and
//! nothing is sent. The ask waits for the editor as long as it takes.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{Done, SessionContext, Tell};
use crate::claude::wire::{ClaudeMessage, ResultMessage};
use crate::domain::{
    AgentError, EditorClient, PermissionOption, PermissionOptionKind, SessionUpdate,
    ToolCallUpdate, ToolContent, ToolStatus,
};
use crate::session::own_question::{self, Question};

/// The option that sends the prompt again at the reset.
const WAIT: &str = "wait-for-reset";
/// The option that ends the turn with the limit's message.
const STOP: &str = "stop";

/// The longest wait offered: a reset further off (or a clock gone wrong) is not waited for.
const LONGEST_WAIT: Duration = Duration::from_secs(24 * 3600);

/// claude's word that the limit is reached: when it resets, and which window it is.
#[derive(Debug, Clone, PartialEq)]
struct Rejected {
    /// Seconds since the epoch.
    resets_at: f64,
    window: Option<String>,
}

/// What the ask's task reports.
pub(in crate::session::actor) enum LimitAnswer {
    /// The limit has reset: the prompt goes to claude again.
    Resend,
    /// The user chose to stop (or the ask failed): the turn ends with the limit's message.
    Stop(AgentError),
}

impl Rejected {
    /// The limit claude reports rejected with a reset time, from one of its messages.
    fn of(message: &ClaudeMessage) -> Option<Rejected> {
        let ClaudeMessage::RateLimit(event) = message else {
            return None;
        };
        let info = &event.rate_limit_info;
        if info.status != "rejected" {
            return None;
        }
        Some(Rejected {
            resets_at: info.resets_at.filter(|t| t.is_finite())?,
            window: info.rate_limit_type.clone(),
        })
    }

    /// How long until the reset (zero when it is past); `None` when too far off to wait for.
    fn wait(&self, now: SystemTime) -> Option<Duration> {
        let now = now
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs_f64();
        let left = (self.resets_at - now).max(0.0);
        (left <= LONGEST_WAIT.as_secs_f64()).then(|| Duration::from_secs_f64(left))
    }

    /// `5-hour limit`, `weekly limit`, ...
    fn limit_name(&self) -> &'static str {
        match self.window.as_deref() {
            Some("five_hour") => "5-hour limit",
            Some("seven_day") => "weekly limit",
            Some("seven_day_opus") => "weekly Opus limit",
            Some("seven_day_sonnet") => "weekly Sonnet limit",
            _ => "usage limit",
        }
    }

    /// `14:05 UTC`: the reset's time of day.
    fn reset_time(&self) -> String {
        let secs = self.resets_at.max(0.0) as u64 % 86_400;
        format!("{:02}:{:02} UTC", secs / 3600, secs % 3600 / 60)
    }

    /// The ask's title: the limit and when it resets.
    fn title(&self) -> String {
        format!(
            "You've hit your {} · resets {}",
            self.limit_name(),
            self.reset_time()
        )
    }
}

/// The running turn's usage limit: claude's word that it is reached, kept for the turn's end.
#[derive(Default)]
pub(super) struct UsageLimit {
    rejected: Option<Rejected>,
}

impl UsageLimit {
    /// A turn starts: a limit reported before it is not its.
    pub(super) fn turn_starts(&mut self) {
        self.rejected = None;
    }

    /// claude's output during a turn of its own (`by_claude`): a rejected limit is noted.
    pub(super) fn on_message(&mut self, message: &ClaudeMessage, by_claude: bool) {
        if let Some(rejected) = Rejected::of(message)
            && by_claude
        {
            self.rejected = Some(rejected);
        }
    }

    /// The turn's error `result` came after a rejected limit: asks the user, in a task that
    /// reports [`Done::Limit`], whether to wait for the reset; returns the task, which the turn
    /// keeps while it waits. `None` (nothing asked) without a rejected limit or for a reset too
    /// far off.
    pub(super) fn offer_wait(
        &mut self,
        ctx: &SessionContext,
        tell: &Tell<Done>,
        result: &ResultMessage,
        error: &AgentError,
    ) -> Option<tokio::task::AbortHandle> {
        let rejected = self.rejected.take()?;
        if !result.is_error {
            return None;
        }
        let wait = rejected.wait(SystemTime::now())?;
        let editor = ctx.editor.clone();
        let session = ctx.id.clone();
        let tell = tell.clone();
        let error = error.clone();
        let task = tokio::spawn(async move {
            let answer = ask_and_wait(editor, &session, &rejected, wait, error).await;
            tell.tell(Done::Limit(answer));
        });
        Some(task.abort_handle())
    }
}

/// Asks the user, and on "wait" waits for the reset; the tool call ends saying what happened,
/// and says "nothing was sent" if the task is aborted first (a cancel, the session's close).
async fn ask_and_wait(
    editor: Arc<dyn EditorClient>,
    session: &str,
    rejected: &Rejected,
    wait: Duration,
    error: AgentError,
) -> LimitAnswer {
    let id = format!("usage-limit-{}", uuid::Uuid::new_v4().simple());
    let title = rejected.title();
    let question = format!(
        "claude stopped: {error}\nSend this prompt to claude again when the limit resets ({}), \
         or stop here?",
        rejected.reset_time()
    );
    let mut settled = Unsettled {
        editor: editor.clone(),
        session: session.to_owned(),
        id: Some(id.clone()),
    };
    let waits = own_question::ask(
        editor.as_ref(),
        Question {
            session,
            id: &id,
            title,
            text: question,
            yes: PermissionOption {
                id: WAIT.into(),
                name: format!("Send it again at {}", rejected.reset_time()),
                kind: PermissionOptionKind::AllowOnce,
            },
            no: PermissionOption {
                id: STOP.into(),
                name: "Stop".into(),
                kind: PermissionOptionKind::RejectOnce,
            },
        },
    )
    .await;
    if !waits {
        settled.end(
            ToolStatus::Failed,
            "Stopped: the prompt was not sent again.",
        );
        return LimitAnswer::Stop(error);
    }
    let waiting = format!(
        "Waiting for the limit to reset at {}: the prompt then goes to claude again.",
        rejected.reset_time()
    );
    settled.update(ToolStatus::InProgress, &waiting);
    tokio::time::sleep(wait).await;
    settled.end(
        ToolStatus::Completed,
        "The limit has reset: the prompt was sent again.",
    );
    LimitAnswer::Resend
}

/// The ask's tool call until it is ended: dropped unended (the task aborted), it ends as failed.
struct Unsettled {
    editor: Arc<dyn EditorClient>,
    session: String,
    id: Option<String>,
}

impl Unsettled {
    fn update(&self, status: ToolStatus, text: &str) {
        if let Some(id) = &self.id {
            self.editor.session_update(
                &self.session,
                SessionUpdate::ToolCallUpdate(ToolCallUpdate {
                    id: id.clone(),
                    status: Some(status),
                    content: Some(vec![ToolContent::Text { text: text.into() }]),
                    ..ToolCallUpdate::default()
                }),
            );
        }
    }

    fn end(&mut self, status: ToolStatus, text: &str) {
        self.update(status, text);
        self.id = None;
    }
}

impl Drop for Unsettled {
    fn drop(&mut self) {
        self.end(
            ToolStatus::Failed,
            "Cancelled: the prompt was not sent again.",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejected(resets_at: f64) -> Rejected {
        Rejected {
            resets_at,
            window: Some("five_hour".into()),
        }
    }

    #[test]
    fn a_reset_in_the_past_is_waited_for_not_at_all_and_one_past_a_day_is_not_offered() {
        let now = UNIX_EPOCH + Duration::from_secs(1_000_000);
        assert_eq!(rejected(999_000.0).wait(now), Some(Duration::ZERO));
        assert_eq!(
            rejected(1_000_060.0).wait(now),
            Some(Duration::from_secs(60))
        );
        assert_eq!(rejected(1_000_000.0 + 86_401.0).wait(now), None);
    }

    #[test]
    fn the_title_names_the_window_and_the_reset() {
        // 2026-12-06T21:48:00Z
        assert_eq!(
            rejected(1_796_593_680.0).title(),
            "You've hit your 5-hour limit · resets 21:48 UTC"
        );
    }
}
