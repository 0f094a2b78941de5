//! Logs go to stderr or a file, never stdout: stdout carries the protocol.

use std::path::Path;

use tracing_subscriber::EnvFilter;

pub fn init(log_file: Option<&Path>) -> std::io::Result<()> {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    // At trace level the ACP SDK and rmcp log whole messages, whose prompts, settings and headers
    // can hold secrets; their debug level logs only methods and ids.
    // A cap, so added only where trace is on: a `target=debug` directive would also raise them
    // to debug under the default `info` (the demo and every editor's stderr would fill with them).
    let tracing_everything = filter
        .max_level_hint()
        .is_none_or(|level| level >= tracing_subscriber::filter::LevelFilter::TRACE);
    let caps: &[&str] = if tracing_everything {
        &[crate::acp::SDK_LOG_TARGET, "rmcp"]
    } else {
        &[]
    };
    let filter = caps
        .iter()
        .filter_map(|target| format!("{target}=debug").parse().ok())
        .fold(filter, EnvFilter::add_directive);
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false);
    match log_file {
        Some(path) => {
            // Logs quote what claude and the editor say: only the user may read them.
            let file = crate::platform::files::append_private(path)?;
            builder
                .with_ansi(false)
                .with_writer(std::sync::Mutex::new(file))
                .init();
        }
        // Colour only for a person at a terminal: an editor that shows the agent's stderr (as
        // agent-shell does) would show the escape codes as text.
        None => builder
            .with_ansi(stderr_is_a_terminal())
            .with_writer(std::io::stderr)
            .init(),
    }
    Ok(())
}

/// Whether stderr is a terminal that may be coloured (`NO_COLOR` unset).
fn stderr_is_a_terminal() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}
