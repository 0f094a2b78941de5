//! Which rendering one ask about claude's own tools (and the MCP tools of the editor's servers)
//! gets: `AskUserQuestion` a form or prompts, `ExitPlanMode` the plan, any other tool allow or
//! reject, once or always.

use std::path::Path;
use std::sync::Arc;

use super::decision::{Asking, Decision, call_update, tool_call_without_input};
use super::rules::SessionRules;
use super::{ask_user, options, plan_mode, reply};
use crate::claude::wire::CanUseTool;
use crate::domain::{EditorClient, ToolCallUpdate};

/// Asks the editor about one tool call and turns the answer into claude's decision.
pub async fn decide(
    editor: Arc<dyn EditorClient>,
    session_id: &str,
    cwd: &Path,
    req: CanUseTool,
    rules: &SessionRules,
) -> Decision {
    match req.tool_name.as_str() {
        "AskUserQuestion" => {
            Decision::plain(ask_user::ask(editor.as_ref(), session_id, &req).await)
        }
        "ExitPlanMode" => plan_mode::ask(editor.as_ref(), session_id, cwd, &req).await,
        _ => {
            let mut req = req;
            let choices = options::build(&req, cwd);
            let call = call_update(tool_call_without_input(&req, cwd));
            let asking = Asking {
                editor: editor.as_ref(),
                session_id,
                cwd,
                rules,
            };
            ask_and_reply(asking, call, &mut req, &choices).await
        }
    }
}

/// Asks the editor about `call`, whose `rawInput` is `req`'s input shared rather than copied (a
/// Write's input holds the whole file), and turns the answer into claude's reply, which gets the
/// input back.
async fn ask_and_reply(
    asking: Asking<'_>,
    mut call: ToolCallUpdate,
    req: &mut CanUseTool,
    choices: &options::Choices,
) -> Decision {
    let input = Arc::new(std::mem::take(&mut req.input));
    call.raw_input = Some(input.clone());
    let reason = req.decision_reason.clone();
    let answer = asking.ask(call, choices.options.clone(), reason).await;
    // The ask has been sent and answered, so the input is ours alone again: no copy.
    req.input = Arc::unwrap_or_clone(input);
    reply::answer(req, choices, answer, asking.rules)
}
