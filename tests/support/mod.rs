pub mod acp_client;
pub mod procs;
