//! Deciding one tool call, whatever way claude asks: `can_use_tool` on stdio or our MCP
//! permission tool ([`fallback`], [`PermissionTransport`]) -> the editor's
//! `session/request_permission` (or a form) -> claude's decision.
//!
//! Fails closed: whatever goes wrong on the way to or from the editor becomes a deny whose
//! message says why, so the model sees it and the turn goes on.
//!
//! Three asks get their own rendering: `AskUserQuestion` (a form, or one permission prompt per
//! question: [`ask_user`]), `ExitPlanMode` (the plan and three ways on: [`plan_mode`]), and every
//! other tool (allow / reject, once or always: [`options`] builds the choices, [`reply`] answers);
//! [`route`] picks the rendering. The editor-served tools are decided as claude decides for its
//! own ([`editor_tools`], [`editor_bash`]); [`asker`] takes one ask whichever way it came, and
//! [`decision`] holds what the deciders share. [`rules`] keeps the session's "always" answers;
//! [`in_force`] gathers the rules of every source claude applies, [`path_rules`] and
//! [`bash_rules`] match them as claude does.

mod ask_user;
pub(crate) mod asker;
mod bash_rules;
mod decision;
mod editor_bash;
mod editor_tools;
pub mod fallback;
mod in_force;
mod options;
mod path_rules;
mod plan_mode;
mod read_only;
mod reply;
mod route;
mod rules;
#[cfg(test)]
mod tests;
mod transport;

pub use decision::Decision;
pub use in_force::RuleSources;
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) use options::build as permission_choices;
pub use options::{ALLOW_ALWAYS, ALLOW_ONCE, REJECT_ALWAYS, REJECT_ONCE};
pub use plan_mode::{ACCEPT_EDITS, APPROVE_EACH_EDIT, KEEP_PLANNING};
pub use route::decide;
pub use rules::SessionRules;
pub use transport::PermissionTransport;
