"""The pinned claude for the scripts: its version read from `PINNED_CLAUDE_VERSION` in
src/claude/install.rs (the one constant), and the binary the tests install for it under
target/claude-code/<version>/ (npm's `@anthropic-ai/claude-code`, or the agent SDK's platform
package for a release only published there). `cargo test` installs it on first use."""
import os, platform, re

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def version():
    text = open(os.path.join(ROOT, "src/claude/install.rs")).read()
    return re.search(r'^pub const PINNED_CLAUDE_VERSION: &str = "([^"]+)";', text, re.M).group(1)


def path(v=None):
    """The installed claude of version `v` (default: the pinned one)."""
    d = os.path.join(ROOT, "target/claude-code", v or version(), "node_modules")
    system = {"Linux": "linux", "Darwin": "darwin", "Windows": "win32"}[platform.system()]
    arch = {"x86_64": "x64", "AMD64": "x64", "aarch64": "arm64", "arm64": "arm64"}[platform.machine()]
    exe = "claude.exe" if system == "win32" else "claude"
    for candidate in (os.path.join(d, ".bin", "claude"),
                      os.path.join(d, "@anthropic-ai", f"claude-agent-sdk-{system}-{arch}", exe)):
        if os.path.exists(candidate):
            return candidate
    raise SystemExit(f"no claude {v or version()} under {d}: run the real-CLI tests once (`cargo test`) to install it")
