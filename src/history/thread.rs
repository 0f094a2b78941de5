//! A transcript's thread: its messages, each line's parent (`parentUuid`, across a `/compact`
//! `logicalParentUuid`), and the chain from a message back to the start of its conversation,
//! which replay and rewind both follow.
//!
//! A long transcript has tens of thousands of ids, each a 36-character uuid that appears twice
//! (a line's own and the next line's parent): each id's text is kept once, numbered ([`Id`]), and
//! the parents and chains are numbers.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::path::Path;

use serde_json::Value;

use super::lines;

/// The messages of a transcript (user, assistant, system lines) in file order, and every line's parent.
pub(super) fn read_messages(file: &Path) -> std::io::Result<(Vec<Value>, Parents)> {
    let mut messages = Vec::new();
    let mut parents = Parents::default();
    lines::for_each_line(file, |line| {
        if let Some(value) = lines::parse(line) {
            parents.note_line(&value);
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

pub(super) fn on_chain(line: &Value, chain: &Option<Chain>) -> bool {
    match (chain, uuid_of(line)) {
        (Some(chain), Some(uuid)) => chain.contains(uuid),
        // Lines without ids (older or hand-written transcripts): keep them all, in file order.
        (None, _) => true,
        (Some(_), None) => false,
    }
}

/// A transcript id, by its number in [`Parents`] (from 1, so that an `Option<Id>` is 4 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Id(NonZeroU32);

impl Id {
    fn index(self) -> usize {
        self.0.get() as usize - 1
    }
}

/// Every id seen (its text once) and each line's parent, for every line with a uuid (attachments
/// sit between messages in the chain).
#[derive(Default)]
pub(super) struct Parents {
    /// claude's ids are uuids: kept as their 16 bytes.
    uuids: HashMap<[u8; 16], Id>,
    /// Any other id (older or hand-written transcripts).
    others: HashMap<Box<str>, Id>,
    /// By id number: the parent, if its line named one.
    parent: Vec<Option<Id>>,
}

impl Parents {
    /// The number of `uuid`, given it if it is new.
    pub(super) fn id(&mut self, uuid: &str) -> Id {
        if let Some(id) = self.find(uuid) {
            return id;
        }
        let id = Id(u32::try_from(self.parent.len() + 1)
            .ok()
            .and_then(NonZeroU32::new)
            .expect("fewer than 2^32 ids in a transcript"));
        match uuid_bytes(uuid) {
            Some(bytes) => self.uuids.insert(bytes, id),
            None => self.others.insert(uuid.into(), id),
        };
        self.parent.push(None);
        id
    }

    /// The number of `uuid`, if it was seen.
    pub(super) fn find(&self, uuid: &str) -> Option<Id> {
        match uuid_bytes(uuid) {
            Some(bytes) => self.uuids.get(&bytes).copied(),
            None => self.others.get(uuid).copied(),
        }
    }

    /// Notes a line's id and its parent (`None` at the start of a conversation).
    pub(super) fn note(&mut self, uuid: &str, parent: Option<&str>) -> Id {
        let id = self.id(uuid);
        if let Some(parent) = parent {
            let parent = self.id(parent);
            self.parent[id.index()] = Some(parent);
        }
        id
    }

    fn note_line(&mut self, line: &Value) {
        let parent = line
            .get("parentUuid")
            .and_then(Value::as_str)
            .or_else(|| line.get("logicalParentUuid").and_then(Value::as_str));
        if let Some(uuid) = uuid_of(line) {
            self.note(uuid, parent);
        }
    }

    /// The ids from the last main-thread message back to the start of its conversation; `None`
    /// when no message has a uuid.
    pub(super) fn chain_to_last(&self, messages: &[Value]) -> Option<Chain<'_>> {
        Some(self.chain_from(self.find(last_leaf(messages)?)))
    }

    /// The ids from `leaf` back to the start of its conversation (none for an id never seen).
    pub(super) fn chain_from(&self, leaf: Option<Id>) -> Chain<'_> {
        let mut on = vec![false; if leaf.is_some() { self.parent.len() } else { 0 }];
        let mut next = leaf;
        while let Some(id) = next {
            if std::mem::replace(&mut on[id.index()], true) {
                break; // a cycle: stop rather than loop
            }
            next = self.parent[id.index()];
        }
        Chain { parents: self, on }
    }
}

/// The ids of one chain of the thread.
pub(super) struct Chain<'a> {
    parents: &'a Parents,
    /// By id number.
    on: Vec<bool>,
}

impl Chain<'_> {
    pub(super) fn has(&self, id: Id) -> bool {
        self.on.get(id.index()).copied().unwrap_or(false)
    }

    pub(super) fn contains(&self, uuid: &str) -> bool {
        self.parents.find(uuid).is_some_and(|id| self.has(id))
    }
}

/// The 16 bytes of a uuid written as claude writes them (lowercase, hyphens at 8, 13, 18 and 23);
/// `None` for any other text, so that two different texts never share bytes.
fn uuid_bytes(text: &str) -> Option<[u8; 16]> {
    let text = text.as_bytes();
    if text.len() != 36 || [8, 13, 18, 23].iter().any(|&at| text[at] != b'-') {
        return None;
    }
    let mut digits = text.iter().filter(|&&c| c != b'-');
    let mut bytes = [0u8; 16];
    for byte in &mut bytes {
        let mut nibble = || match digits.next()? {
            c @ b'0'..=b'9' => Some(c - b'0'),
            c @ b'a'..=b'f' => Some(c - b'a' + 10),
            _ => None,
        };
        *byte = (nibble()? << 4) | nibble()?;
    }
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_and_other_ids_are_told_apart_and_each_numbered_once() {
        let mut parents = Parents::default();
        let lower = "6195f462-5cae-4046-86f3-a6166b2ade40";
        let upper = "6195F462-5CAE-4046-86F3-A6166B2ADE40";
        let a = parents.note(lower, Some("first"));
        let b = parents.note(upper, Some(lower));
        assert_ne!(a, b, "an uppercase uuid is another id");
        assert_eq!(parents.find(lower), Some(a));
        assert!(parents.find("first").is_some() && parents.find("never seen").is_none());
        let chain = parents.chain_from(Some(b));
        assert!(chain.contains(upper) && chain.contains(lower) && chain.contains("first"));
        assert!(!chain.contains("6195f462-5cae-4046-86f3-a6166b2ade41"));
    }
}
