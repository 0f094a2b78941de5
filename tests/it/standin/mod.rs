//! The built adapter over stdio with the replay stand-in as claude: what an editor sees for each
//! request, and what claude is sent.

mod acp_requests;
mod auth;
mod cancel;
mod doctor;
mod idle;
mod logging;
mod modes;
mod permissions;
mod process_hygiene;
mod prompt_turns;
mod session_close;
mod session_model;
mod session_options;
mod sessions;
