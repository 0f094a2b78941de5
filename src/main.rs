//! The `claude-acp` binary: argument parsing and the choice of job; everything else is the library.

use clap::Parser;

use claude_acp::cli::{Cli, Command};

fn main() {
    claude_acp::platform::memory::keep_big_blocks_apart();
    claude_acp::platform::memory::one_heap();
    // One thread runs everything: the adapter's work per message is tiny, and a single scheduler
    // avoids waking a second worker for every streamed chunk.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(code) = claude_acp::platform::process::run_reaper_if_asked(&args) {
        std::process::exit(code);
    }
    // The stand-in takes claude's own arguments, so it is dispatched before our parser sees them.
    if std::env::args().nth(1).as_deref() == Some(claude_acp::standin::SUBCOMMAND) {
        let code = runtime.block_on(claude_acp::standin::run_cli(
            std::env::args().skip(2).collect(),
        ));
        std::process::exit(code);
    }
    let cli = Cli::parse();
    if let Err(e) = claude_acp::logging::init(cli.log_file.as_deref()) {
        eprintln!("claude-acp: cannot open the log file: {e}");
        std::process::exit(2);
    }
    let code = runtime.block_on(async move {
        match cli.command {
            None => {
                let idle_timeout = cli.idle_timeout();
                claude_acp::serve::run(
                    cli.claude_path.as_deref(),
                    cli.permission_transport,
                    idle_timeout,
                    cli.protocol,
                )
                .await
            }
            Some(Command::Demo { real }) => {
                claude_acp::demo::run(real, cli.claude_path.as_deref()).await
            }
            Some(Command::Doctor) => claude_acp::doctor::run(cli.claude_path.as_deref()).await,
            Some(Command::Login {
                claudeai,
                console,
                sso,
            }) => {
                claude_acp::doctor::login(cli.claude_path.as_deref(), claudeai, console, sso).await
            }
        }
    });
    // Exit without waiting on the SDK's blocking stdin reader thread.
    std::process::exit(code);
}
