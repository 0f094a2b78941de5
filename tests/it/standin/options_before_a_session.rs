//! `session/options` with the stand-in as claude: what `session/new` would answer (its modes and
//! config options) without opening a session. Once claude's models are cached it starts no
//! claude; the first time ever it learns them as `session/new` does, by a claude it then ends.

use std::time::Duration;

use crate::support::standin::Standin;
use crate::support::v2_schema::violations_1_20_v1;
use serde_json::{Value, json};

fn options_of(answer: &Value) -> (Value, Value) {
    (answer["modes"].clone(), answer["configOptions"].clone())
}

#[tokio::test]
async fn a_new_sessions_options_come_without_a_session_and_from_the_cache_without_a_claude() {
    let s = Standin::new("text");
    let c = s.adapter(&[]);
    let init = c.initialize().await;
    assert_eq!(
        init["agentCapabilities"]["sessionCapabilities"]["options"],
        json!({}),
        "{init}"
    );
    let ask = || c.request("session/options", json!({"cwd": s.work}));

    // Nothing cached yet: learned from a claude, which is ended.
    let first = ask().await.unwrap();
    assert_eq!(
        violations_1_20_v1("SessionOptionsResponse", &first),
        Vec::<String>::new()
    );
    assert!(
        first["configOptions"]
            .as_array()
            .is_some_and(|o| !o.is_empty()),
        "{first}"
    );
    let learned = s.pids().len();
    assert_eq!(learned, 1, "one claude to learn them");
    let gone = crate::support::liveness::wait_until_gone(&s.pids(), Duration::from_secs(10)).await;
    assert!(gone, "the claude that told them was ended");

    // From the cache: the same, and no claude.
    let second = ask().await.unwrap();
    assert_eq!(options_of(&second), options_of(&first));
    assert_eq!(s.pids().len(), learned, "session/options starts no claude");

    let opened = c.open_session(&s.work).await;
    assert_eq!(
        options_of(&opened),
        options_of(&first),
        "what session/new answers"
    );
    let id = opened["sessionId"].as_str().unwrap();
    // The session's own claude, which session/new may answer before it has started.
    let started = s
        .wait_started(learned + 1, Duration::from_secs(10))
        .await
        .len();
    let of_session = c
        .request("session/options", json!({"cwd": s.work, "sessionId": id}))
        .await
        .unwrap();
    assert_eq!(options_of(&of_session), options_of(&opened));
    assert_eq!(
        s.pids().len(),
        started,
        "a session's options start no claude"
    );
    let unknown = c
        .request(
            "session/options",
            json!({"cwd": s.work, "sessionId": "7d9f1c2a-0000-4000-8000-0000000000ff"}),
        )
        .await
        .unwrap_err();
    assert_eq!(unknown.code, -32002, "{}", unknown.message);
}
