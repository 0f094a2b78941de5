//! Which message of claude's a text or thinking chunk is part of: block `index` of an API
//! message, named alike whether the block is streamed live or read back from a transcript, which
//! stores one line per block, in order; and what of an assembled block streaming already relayed.

use std::collections::HashMap;

use crate::domain::{ContentChunk, SessionUpdate};

/// The main thread's message being streamed.
#[derive(Default)]
pub(super) struct Stream {
    pub(super) message_id: Option<String>,
    /// The index of the block most recently started: the next assembled line is that block.
    pub(super) block: Option<u64>,
    /// Bytes of text or thinking relayed per block index.
    pub(super) relayed: HashMap<u64, usize>,
}

impl Stream {
    /// What streaming did not already relay of an assembled text or thinking block (block
    /// `index` of API message `message`).
    pub(super) fn rest(
        &self,
        text: &str,
        (streamed, message): (bool, Option<&str>),
        index: u64,
        thought: bool,
    ) -> Option<SessionUpdate> {
        let relayed = if streamed {
            self.relayed.get(&index).copied().unwrap_or(0)
        } else {
            0
        };
        // None: the deltas do not line up with the assembled text; sending it again would
        // duplicate it.
        let rest = text.get(relayed..)?;
        (!rest.is_empty()).then(|| chunk(rest.to_owned(), thought, message, index))
    }
}

/// The API message of the last main-thread assistant line, and how many lines of it came before
/// that one.
#[derive(Debug, Default)]
pub(super) struct StoredBlocks(Option<(String, u64)>);

impl StoredBlocks {
    /// The block a line of API message `message_id` is: how many lines of it came before.
    pub(super) fn line_of(&mut self, message_id: Option<&str>) -> u64 {
        match (&mut self.0, message_id) {
            (Some((id, seen)), Some(this)) if id == this => {
                *seen += 1;
                *seen
            }
            (_, this) => {
                self.0 = this.map(|id| (id.to_owned(), 0));
                0
            }
        }
    }
}

/// Text or thinking of block `index` of claude's API message `api_message` (when known).
pub(super) fn chunk(
    text: String,
    thought: bool,
    api_message: Option<&str>,
    index: u64,
) -> SessionUpdate {
    let content = ContentChunk::Text { text };
    let message_id = api_message.map(|id| crate::domain::message_id(id, index));
    if thought {
        SessionUpdate::AgentThoughtChunk {
            content,
            message_id,
        }
    } else {
        SessionUpdate::AgentMessageChunk {
            content,
            message_id,
        }
    }
}
