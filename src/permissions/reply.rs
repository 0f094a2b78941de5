//! The editor's answer to a permission prompt -> claude's `can_use_tool` reply.
//!
//! Allow replies carry `updatedInput` (claude's input: ACP has no field for an edited one) and,
//! for "always allow", claude's suggestions as `updatedPermissions`. Deny replies always carry a
//! message, which the model reads; "always reject" also puts a deny rule in force.

use super::decision::{Decision, deny, take_allowed_input};
use super::options::{ALLOW_ALWAYS, ALLOW_ONCE, Choices, REJECT_ALWAYS, REJECT_ONCE, labels};
use super::rules::SessionRules;
use crate::claude::wire::{CanUseTool, DecisionClassification as By, PermissionDecision};
use crate::domain::{EditorError, PermissionOutcome};

pub fn answer(
    req: &mut CanUseTool,
    choices: &Choices,
    answer: Result<PermissionOutcome, EditorError>,
    rules: &SessionRules,
) -> Decision {
    let tool = req
        .display_name
        .clone()
        .unwrap_or_else(|| req.tool_name.clone());
    let option_id = match answer {
        Ok(PermissionOutcome::Selected { option_id }) => option_id,
        Ok(PermissionOutcome::Cancelled) => {
            return Decision::plain(deny(format!(
                "The user cancelled the permission request, so {tool} did not run."
            )))
            .by(By::UserReject);
        }
        Err(e) => return Decision::plain(deny(failed(&tool, &e))),
    };
    let offered = choices.options.iter().any(|o| o.id == option_id);
    match option_id.as_str() {
        ALLOW_ONCE if offered => Decision::plain(PermissionDecision::Allow {
            updated_input: take_allowed_input(req),
            updated_permissions: Vec::new(),
        })
        .by(By::UserTemporary),
        ALLOW_ALWAYS if offered => {
            rules.remember_allowed(&choices.allow_always);
            Decision {
                reply: PermissionDecision::Allow {
                    updated_input: take_allowed_input(req),
                    updated_permissions: choices.allow_always.clone(),
                },
                mode_change: choices.allow_always_mode.clone(),
                flag_settings: None,
                by: Some(By::UserPermanent),
            }
        }
        REJECT_ONCE if offered => {
            Decision::plain(deny(format!("The user rejected this {tool} call."))).by(By::UserReject)
        }
        REJECT_ALWAYS if offered => Decision {
            reply: deny(format!(
                "The user rejected this {tool} call and every call like it for the rest of the session ({}).",
                labels(&choices.deny_rules)
            )),
            mode_change: None,
            flag_settings: Some(
                rules.add_deny(
                    &choices
                        .deny_rules
                        .iter()
                        .map(|r| r.setting())
                        .collect::<Vec<_>>(),
                ),
            ),
            by: Some(By::UserReject),
        },
        other => Decision::plain(deny(format!(
            "Denied: the editor answered with an option this prompt did not offer (`{other}`), so {tool} did not run."
        ))),
    }
}

/// The deny message for a prompt that got no usable answer.
pub fn failed(tool: &str, error: &EditorError) -> String {
    format!("Denied: the permission request for {tool} failed ({error}), so it did not run.")
}
