//! The built adapter over stdio with the replay stand-in as claude: what an editor sees for each
//! request, and what claude is sent.

mod acp_requests;
mod additional_directories;
mod auth;
mod cancel;
mod claude_faults;
mod compaction;
mod config_options;
mod context;
mod doctor;
mod editor_edits;
mod editor_terminal;
mod editor_undo;
mod end_turn_usage;
mod fault_matrix;
mod hard_kill;
mod idle;
mod logging;
mod logout;
mod method_dispatch;
mod modes;
mod permissions;
mod process_hygiene;
mod progress;
mod prompt_turns;
mod queued_prompts;
mod rewind;
mod secrets;
mod session_close;
mod session_delete;
mod session_model;
mod session_options;
mod session_title;
mod sessions;
mod setting_changes;
mod transport;
