//! Background work followed to its end with the stand-in playing claude's captured messages: a
//! subagent started in the background keeps its card `in_progress` after its turn and completes
//! with its report when claude's `task_notification` says it ended (claude is not stopped as idle
//! meanwhile); claude's own follow-up turn answers no prompt.

use std::time::Duration;

use crate::support::standin::Standin;

const AGENT: &str = "toolu_mock_bb2077870da740feac050066";
const WAIT: Duration = Duration::from_secs(10);

#[tokio::test]
async fn a_background_subagent_keeps_its_card_running_until_its_report() {
    let s = Standin::new("background_subagent");
    // The subagent runs 2.5 s after its turn: an idle stop would end it (and the script).
    let c = s.adapter(&["--idle-timeout", "1"]);
    c.initialize().await;
    let id = c.new_session(&s.work).await;
    let stop = c.prompt(&id, "start the helper").await.unwrap();
    assert_eq!(stop["stopReason"], "end_turn");
    let card = c
        .tool_call_state(&id, AGENT)
        .expect("the Agent call's card");
    assert_eq!(card["status"], "in_progress", "{card}");
    assert_eq!(
        card["_meta"]["claudeCode"]["asyncTaskId"], "ae51f4a1e9e6d2ed1",
        "{card}"
    );
    let shown = card["content"].to_string();
    assert!(
        !shown.contains("agentId"),
        "the launch note is the model's: {card}"
    );
    assert!(shown.contains("Working in the background"), "{card}");

    c.wait_for_update(
        |u| u["update"]["toolCallId"] == AGENT && u["update"]["status"] == "completed",
        WAIT,
    )
    .await;
    let card = c.tool_call_state(&id, AGENT).unwrap();
    assert!(
        card["content"]
            .to_string()
            .contains("subagent-report: all fine"),
        "{card}"
    );
    assert!(
        !card["content"].to_string().contains(".output"),
        "the subagent's transcript file is not shown: {card}"
    );
    // claude's follow-up turn reaches the editor; the subagent's own text does not (not opted in).
    let deadline = tokio::time::Instant::now() + WAIT;
    while !c.agent_text(&id).ends_with("The helper finished.") {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{}",
            c.agent_text(&id)
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!c.agent_text(&id).contains("subagent-report"));
    c.quit(WAIT).await;
    assert!(s.problems().is_empty(), "{:?}", s.problems());
}
