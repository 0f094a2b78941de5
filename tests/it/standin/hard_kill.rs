//! Nothing claude started outlives the adapter: not when the adapter is SIGKILLed (no chance to clean
//! up: the reaper does it, and removes the session's MCP config file too), not on SIGHUP or SIGQUIT (handled like SIGTERM). "Started" means a
//! process in claude's group that is not claude, like the command its Bash tool runs.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::support::acp_client::AcpClient;
use crate::support::liveness;
use crate::support::standin::Standin;

/// A session whose claude has started a long child (`sleep`) and hangs; the adapter's temp dir
/// (where the MCP config file goes, with `--permission-transport mcp`) is `tmp`.
struct Busy {
    _standin: Standin,
    adapter: AcpClient,
    claude: u32,
    child: u32,
    tmp: PathBuf,
}

async fn busy_claude() -> Busy {
    let mut standin = Standin::new("hang");
    let child_pid = standin.dir().join("child.pid");
    // Like claude's Bash tool: a command running in claude's process group, in the background.
    let wrapper = standin.dir().join("claude-busy");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nsleep 1000 &\necho $! > '{}'\nexec '{}' standin \"$@\"\n",
            child_pid.display(),
            crate::support::adapter(),
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    standin.claude = wrapper;
    let tmp = standin.dir().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let adapter = standin.adapter_with_env(
        &["--permission-transport", "mcp"],
        &[("TMPDIR", tmp.to_str().unwrap())],
    );
    adapter.initialize().await;
    adapter.new_session(&standin.work).await;
    let claude = standin.wait_started(1, Duration::from_secs(10)).await[0];
    let child = wait_for_pid_file(&child_pid).await;
    assert!(liveness::is_alive(child), "the long child is running");
    assert_eq!(
        mcp_config_files(&tmp).len(),
        1,
        "claude got its MCP config file"
    );
    Busy {
        _standin: standin,
        adapter,
        claude,
        child,
        tmp,
    }
}

async fn wait_for_pid_file(path: &Path) -> u32 {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(pid) = std::fs::read_to_string(path)
            .ok()
            .and_then(|text| text.trim().parse().ok())
        {
            return pid;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "claude's child did not start"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn mcp_config_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("claude-acp-mcp-"))
        })
        .collect()
}

/// Kills `pids` if a test failed with them alive, so a failure leaves nothing behind either.
fn clean_up(pids: &[u32]) {
    for &pid in pids {
        if liveness::is_alive(pid) {
            // SAFETY: kill(2) has no memory-safety preconditions.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        }
    }
}

#[tokio::test]
async fn a_sigkilled_adapter_leaves_neither_claude_nor_its_commands_running() {
    let busy = busy_claude().await;
    busy.adapter.signal(libc::SIGKILL);
    assert!(
        busy.adapter
            .wait_exit(Duration::from_secs(2))
            .await
            .is_some()
    );
    let gone = liveness::wait_until_gone(&[busy.child, busy.claude], Duration::from_secs(2)).await;
    clean_up(&[busy.child, busy.claude]);
    assert!(gone, "claude's command survived the SIGKILLed adapter");
    assert!(
        wait_until_no_mcp_config(&busy.tmp, Duration::from_secs(2)).await,
        "the MCP config file (with the permission server's token) outlived the SIGKILLed adapter: {:?}",
        mcp_config_files(&busy.tmp)
    );
}

/// Polls until `dir` holds no MCP config file; false if one is still there after `limit`.
async fn wait_until_no_mcp_config(dir: &Path, limit: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + limit;
    while !mcp_config_files(dir).is_empty() {
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    true
}

async fn a_signal_ends_everything_and_removes_the_mcp_config(signal: i32) {
    let busy = busy_claude().await;
    busy.adapter.signal(signal);
    let status = busy.adapter.wait_exit(Duration::from_secs(2)).await;
    let gone = liveness::wait_until_gone(&[busy.child, busy.claude], Duration::from_secs(2)).await;
    clean_up(&[busy.child, busy.claude]);
    let status = status.expect("the adapter exited within 2 s");
    assert_eq!(
        status.code(),
        Some(128 + signal),
        "{}",
        busy.adapter.diagnostics()
    );
    assert!(gone, "claude or its command survived signal {signal}");
    assert_eq!(mcp_config_files(&busy.tmp), Vec::<PathBuf>::new());
}

#[tokio::test]
async fn sighup_is_handled_like_sigterm() {
    a_signal_ends_everything_and_removes_the_mcp_config(libc::SIGHUP).await;
}

#[tokio::test]
async fn sigquit_is_handled_like_sigterm() {
    a_signal_ends_everything_and_removes_the_mcp_config(libc::SIGQUIT).await;
}

#[tokio::test]
async fn sigterm_removes_the_mcp_config_file_too() {
    a_signal_ends_everything_and_removes_the_mcp_config(libc::SIGTERM).await;
}
