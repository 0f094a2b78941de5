use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;

fn unstored() -> Arc<PromptKeys> {
    Arc::new(PromptKeys::load(None, false))
}

/// A prompt that is taken in as `message_id` at once and runs to its end.
async fn taken_in_as(
    keys: &Arc<PromptKeys>,
    key: &str,
    message_id: &'static str,
    runs: &AtomicUsize,
) -> String {
    let (inserted, told) = oneshot::channel();
    let outcome = keys
        .prompt(key.to_owned(), inserted, |mine| async move {
            runs.fetch_add(1, Ordering::SeqCst);
            let _ = mine.send(message_id.to_owned());
            Ok(TurnOutcome::from(StopReason::EndTurn))
        })
        .await;
    assert!(outcome.is_ok());
    told.await.expect("the prompt's id is told")
}

#[tokio::test]
async fn a_retry_of_a_prompt_taken_in_gets_its_id_and_runs_nothing() {
    let keys = unstored();
    let runs = AtomicUsize::new(0);
    assert_eq!(taken_in_as(&keys, "k", "m1", &runs).await, "m1");
    assert_eq!(taken_in_as(&keys, "k", "m2", &runs).await, "m1");
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(
        taken_in_as(&keys, "K", "m3", &runs).await,
        "m3",
        "keys are case-sensitive"
    );
}

#[tokio::test]
async fn a_retry_while_the_first_waits_is_answered_with_it() {
    let keys = unstored();
    let (release, released) = oneshot::channel::<()>();
    let (first_inserted, first_told) = oneshot::channel();
    let first = tokio::spawn({
        let keys = keys.clone();
        async move {
            keys.prompt("k".into(), first_inserted, |mine| async move {
                let _ = released.await;
                let _ = mine.send("m1".to_owned());
                Ok(TurnOutcome::from(StopReason::EndTurn))
            })
            .await
        }
    });
    tokio::task::yield_now().await;
    while keys.keys.lock().unwrap().waiting.is_empty() {
        tokio::task::yield_now().await;
    }
    let (retry_inserted, retry_told) = oneshot::channel();
    let retry = tokio::spawn({
        let keys = keys.clone();
        async move {
            keys.prompt("k".into(), retry_inserted, |_| async {
                panic!("a retry never runs")
            })
            .await
        }
    });
    release.send(()).unwrap();
    assert_eq!(first_told.await.unwrap(), "m1");
    assert_eq!(retry_told.await.unwrap(), "m1");
    assert!(first.await.unwrap().is_ok());
    assert!(retry.await.unwrap().is_ok());
}

#[tokio::test]
async fn a_prompt_that_ended_before_it_was_taken_in_frees_its_key() {
    let keys = unstored();
    let (inserted, told) = oneshot::channel();
    let outcome = keys
        .prompt("k".into(), inserted, |_mine| async {
            Ok(TurnOutcome::from(StopReason::Cancelled))
        })
        .await;
    assert_eq!(outcome.unwrap().stop_reason, StopReason::Cancelled);
    assert!(told.await.is_err(), "no id: nothing was inserted");
    let runs = AtomicUsize::new(0);
    assert_eq!(taken_in_as(&keys, "k", "m2", &runs).await, "m2");
    assert_eq!(
        runs.load(Ordering::SeqCst),
        1,
        "the retry is a new submission"
    );
}

#[tokio::test]
async fn only_the_newest_keys_are_kept() {
    let keys = unstored();
    let runs = AtomicUsize::new(0);
    for n in 0..=MAX_KEYS {
        let id: &'static str = Box::leak(format!("m{n}").into_boxed_str());
        taken_in_as(&keys, &format!("k{n}"), id, &runs).await;
    }
    let last = format!("k{MAX_KEYS}");
    assert_eq!(
        taken_in_as(&keys, &last, "new", &runs).await,
        format!("m{MAX_KEYS}")
    );
    assert_eq!(
        taken_in_as(&keys, "k0", "new", &runs).await,
        "new",
        "the oldest was forgotten"
    );
}

#[tokio::test]
async fn the_keys_are_kept_beside_the_transcript_for_the_next_process() {
    let config = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let id = "0b6c6c9e-5f3e-4d57-9d0c-6f0c1c9d2a11";
    let store = Some((
        config.path().to_path_buf(),
        cwd.path().to_path_buf(),
        id.to_owned(),
    ));
    let keys = Arc::new(PromptKeys::load(store.clone(), false));
    let runs = AtomicUsize::new(0);
    taken_in_as(&keys, "k", "m1", &runs).await;
    // claude stores the conversation where the keys went (the cwd's project folder).
    let path = history::prompt_keys_path(config.path(), cwd.path(), id).unwrap();
    let folder = path.parent().unwrap();
    let cwd_text = cwd.path().canonicalize().unwrap();
    let line = serde_json::json!({"type": "user", "cwd": cwd_text, "sessionId": id});
    std::fs::create_dir_all(folder.parent().unwrap()).unwrap();
    std::fs::write(folder.with_extension("jsonl"), format!("{line}\n")).unwrap();
    while !path.exists() {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    let metadata = std::fs::metadata(&path).unwrap();
    assert!(crate::platform::files::is_owner_only(&metadata));
    let next = Arc::new(PromptKeys::load(store, true));
    assert_eq!(taken_in_as(&next, "k", "m2", &runs).await, "m1");
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}
