//! How long claude-acp waits for the editor's answer to one `fs/*` or `terminal/*` request: by
//! default as long as the turn lasts. The editor may be waiting on its user (acpx asks before it
//! writes a file), and an answer given after a clock ran out would be lost. Such a wait ends as a
//! permission ask does: on `session/cancel`, the session's close, or the editor's end of input.
//! `CLAUDE_ACP_EDITOR_TIMEOUT` (seconds, > 0) sets an upper bound for editors that may never answer.

use std::sync::OnceLock;
use std::time::Duration;

/// The environment variable that bounds the wait.
pub(crate) const ENV: &str = "CLAUDE_ACP_EDITOR_TIMEOUT";

/// The configured bound, `None` (the default) for none; read once.
pub(crate) fn from_env() -> Option<Duration> {
    static BOUND: OnceLock<Option<Duration>> = OnceLock::new();
    *BOUND.get_or_init(|| parse(std::env::var(ENV).ok().as_deref()))
}

/// `"45"` is 45 s; unset, empty, zero or not a number is no bound.
fn parse(value: Option<&str>) -> Option<Duration> {
    let seconds: f64 = value?.trim().parse().ok()?;
    (seconds.is_finite() && seconds > 0.0).then(|| Duration::from_secs_f64(seconds))
}

/// The editor's answer, or `Err(bound)` if a bound was set and passed first.
pub(crate) async fn answer<T>(
    bound: Option<Duration>,
    request: impl Future<Output = T>,
) -> Result<T, Duration> {
    match bound {
        None => Ok(request.await),
        Some(bound) => tokio::time::timeout(bound, request)
            .await
            .map_err(|_| bound),
    }
}

/// "45 s" for a failure message.
pub(crate) fn describe(bound: Duration) -> String {
    format!("{} s", bound.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_bound_unless_a_positive_number_of_seconds_is_set() {
        assert_eq!(parse(None), None);
        assert_eq!(parse(Some("")), None);
        assert_eq!(parse(Some("0")), None);
        assert_eq!(parse(Some("-3")), None);
        assert_eq!(parse(Some("soon")), None);
        assert_eq!(parse(Some(" 45 ")), Some(Duration::from_secs(45)));
        assert_eq!(parse(Some("0.5")), Some(Duration::from_millis(500)));
    }

    #[tokio::test(start_paused = true)]
    async fn without_a_bound_an_answer_after_an_hour_still_counts() {
        let late = async {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            "yes"
        };
        assert_eq!(answer(None, late).await, Ok("yes"));
        let never = std::future::pending::<()>();
        assert_eq!(
            answer(Some(Duration::from_secs(45)), never).await,
            Err(Duration::from_secs(45))
        );
    }
}
