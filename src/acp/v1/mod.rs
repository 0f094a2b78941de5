//! ACP v1: its handlers ([`server`]) and the form the editor is written to in ([`editor`]). It
//! shares with v2 only what is in `shared`, and imports nothing of v2's.

pub(crate) mod chunk_line;
pub(crate) mod editor;
pub(crate) mod server;
