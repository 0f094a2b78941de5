//! Translation driven by real claude 2.1.332 transcripts, and per-tool tables.

mod streaming;
mod tool_calls;
mod transcripts;
