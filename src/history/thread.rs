//! A transcript's thread: its messages, each line's parent (`parentUuid`, across a `/compact`
//! `logicalParentUuid`), and the chain from a message back to the start of its conversation,
//! which replay and rewind both follow.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde_json::Value;

use super::lines;

/// The messages of a transcript (user, assistant, system lines) in file order, and every line's parent.
pub(super) fn read_messages(file: &Path) -> std::io::Result<(Vec<Value>, Parents)> {
    let mut messages = Vec::new();
    let mut parents = Parents::default();
    lines::for_each_line(file, |line| {
        if let Some(value) = lines::parse(line) {
            parents.note(&value);
            if matches!(lines::line_type(&value), "user" | "assistant" | "system") {
                messages.push(value);
            }
        }
        std::ops::ControlFlow::Continue(())
    })?;
    Ok((messages, parents))
}

/// The last main-thread message with an id, among `messages`.
pub(super) fn last_leaf(messages: &[Value]) -> Option<&str> {
    messages
        .iter()
        .rev()
        .filter(|m| m.get("isSidechain").and_then(Value::as_bool) != Some(true))
        .find_map(uuid_of)
}

pub(super) fn uuid_of(line: &Value) -> Option<&str> {
    line.get("uuid").and_then(Value::as_str)
}

pub(super) fn on_chain(line: &Value, chain: &Option<HashSet<String>>) -> bool {
    match (chain, uuid_of(line)) {
        (Some(chain), Some(uuid)) => chain.contains(uuid),
        // Lines without ids (older or hand-written transcripts): keep them all, in file order.
        (None, _) => true,
        (Some(_), None) => false,
    }
}

/// Each line's parent, for every line with a uuid (attachments sit between messages in the chain).
#[derive(Default)]
pub(super) struct Parents(HashMap<String, String>);

impl Parents {
    /// Notes that `uuid`'s parent is `parent`.
    pub(super) fn insert(&mut self, uuid: &str, parent: &str) {
        self.0.insert(uuid.to_owned(), parent.to_owned());
    }

    fn note(&mut self, line: &Value) {
        let parent = line
            .get("parentUuid")
            .and_then(Value::as_str)
            .or_else(|| line.get("logicalParentUuid").and_then(Value::as_str));
        if let (Some(uuid), Some(parent)) = (uuid_of(line), parent) {
            self.insert(uuid, parent);
        }
    }

    /// The uuids from the last main-thread message back to the start of its conversation; `None`
    /// when no message has a uuid.
    pub(super) fn chain_to_last(&self, messages: &[Value]) -> Option<HashSet<String>> {
        Some(self.chain_from(last_leaf(messages)?))
    }

    /// The uuids from `leaf` back to the start of its conversation.
    pub(super) fn chain_from(&self, leaf: &str) -> HashSet<String> {
        let mut chain = HashSet::new();
        let mut next = Some(leaf.to_owned());
        while let Some(uuid) = next {
            next = self.0.get(&uuid).cloned();
            if !chain.insert(uuid) {
                break; // a cycle: stop rather than loop
            }
        }
        chain
    }
}
