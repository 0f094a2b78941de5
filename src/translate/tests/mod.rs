//! Translation driven by the pinned claude's real transcripts, and per-tool tables.

mod streaming;
mod tool_calls;
mod transcripts;
