//! The `claude-acp` binary: argument parsing and the choice of job; everything else is the library.

use clap::Parser;

use claude_acp::cli::{Cli, Command};

fn main() {
    let cli = Cli::parse();
    if let Err(e) = claude_acp::logging::init(cli.log_file.as_deref()) {
        eprintln!("claude-acp: cannot open the log file: {e}");
        std::process::exit(2);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let code = runtime.block_on(async move {
        match cli.command {
            None => {
                claude_acp::serve::run(cli.claude_path.as_deref(), cli.permission_transport).await
            }
            Some(Command::Standin { script, args }) => {
                claude_acp::standin::main(&script, args).await
            }
            Some(Command::Demo { real }) => {
                claude_acp::demo::run(real, cli.claude_path.as_deref()).await
            }
            Some(Command::Doctor) => claude_acp::doctor::run(cli.claude_path.as_deref()).await,
            Some(Command::Login) => claude_acp::doctor::login(cli.claude_path.as_deref()).await,
        }
    });
    // Exit without waiting on the SDK's blocking stdin reader thread.
    std::process::exit(code);
}
