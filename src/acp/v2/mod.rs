//! ACP v2 (the draft the pinned SDK carries behind `unstable_protocol_v2`) beside v1: an editor
//! that asks for v2 at `initialize` is served these handlers and sent v2's forms, over the same
//! sessions; nothing below this folder knows which version an editor speaks.

pub(crate) mod convert;
pub(crate) mod editor;
pub(crate) mod server;

#[cfg(test)]
mod tests;
