#!/usr/bin/env python3
"""What one session costs, this build beside a baseline build, in one run on one machine.

Builds claude-acp's release binary of the work tree (`cargo build --release`) and of a baseline
git revision (default BASELINE below, a known-good one; built once into target/bench/baseline/REV
from `git archive`, or --baseline-bin PATH), then runs the same session on each, alternating:
a fresh adapter started as an editor starts it, `initialize`, `session/new`, three prompts of 50
text deltas each on the claude stand-in (fixtures/standin/bench_turn.jsonl, played by this work
tree's build for both, so only the adapter differs), with claude's options already cached by a
first session (the options cache warm, as every session after a user's first). Prints medians side
by side: the binary's size and its loaded text, spawn -> `initialize` answered, `session/new`
request -> answer, the RSS after `session/new`, the peak RSS (VmHWM) after the third prompt and
what it is made of (anonymous: allocations; file-backed: the executable's pages the kernel mapped
in), the adapter's threads and its CPU time. Nothing is asserted.

    python3 scripts/footprint.py [--runs 10] [--baseline REV | --baseline-bin PATH] [--bin PATH]
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "fixtures/standin/bench_turn.jsonl"
# Main before one session grew from 9.4 to 11.6 MiB of peak RSS in this benchmark (f4eaa3a).
BASELINE = "aa12ff6"
PROMPTS = 3


def build_current():
    subprocess.run(["cargo", "build", "--release", "--locked", "--bin", "claude-acp"],
                   cwd=ROOT, check=True)
    return ROOT / "target/release/claude-acp"


def build_baseline(rev):
    commit = subprocess.run(["git", "rev-parse", "--short", f"{rev}^{{commit}}"], cwd=ROOT,
                            check=True, capture_output=True, text=True).stdout.strip()
    home = ROOT / "target/bench/baseline" / commit
    binary = home / "target/release/claude-acp"
    if not binary.exists():
        src = home / "src"
        src.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", commit], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
        subprocess.run(["cargo", "build", "--release", "--locked", "--bin", "claude-acp",
                        "--target-dir", str(home / "target")], cwd=src, check=True)
    return commit, binary


def status(pid):
    fields = {}
    for line in open(f"/proc/{pid}/status"):
        key, _, value = line.partition(":")
        fields[key] = value.split()[0] if value.split() else ""
    return fields


def rollup(pid):
    fields = {}
    for line in open(f"/proc/{pid}/smaps_rollup"):
        parts = line.split()
        if len(parts) >= 2 and parts[0].endswith(":") and parts[1].isdigit():
            fields[parts[0][:-1]] = int(parts[1])
    return fields


def cpu_ms(pid):
    """The CPU time of the process's live threads so far (/proc/PID/task/*/schedstat, ns)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            total += int(open(f"/proc/{pid}/task/{task}/schedstat").read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total / 1e6


class Editor:
    def __init__(self, proc):
        self.proc = proc
        self.next_id = 0

    def request(self, method, params):
        self.next_id += 1
        my_id = self.next_id
        message = {"jsonrpc": "2.0", "id": my_id, "method": method, "params": params}
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            if not line:
                sys.exit(f"the adapter closed stdout waiting for {method}")
            message = json.loads(line)
            if "method" in message and "id" in message:
                answer = {"jsonrpc": "2.0", "id": message["id"],
                          "error": {"code": -32601, "message": "not here"}}
                self.proc.stdin.write((json.dumps(answer) + "\n").encode())
                self.proc.stdin.flush()
            elif message.get("id") == my_id:
                if "error" in message:
                    sys.exit(f"{method}: {message['error']}")
                return message["result"]


def session(binary, standin, home, measure):
    """One session on a fresh adapter; its figures if `measure`."""
    work = home / "work"
    work.mkdir(exist_ok=True)
    env = dict(os.environ, XDG_CACHE_HOME=str(home / "cache"), CLAUDE_CONFIG_DIR=str(home / "config"),
               CLAUDE_ACP_OPTIONS_WAIT_MS="30000", HOME=str(home))
    env.pop("RUST_LOG", None)
    started = time.perf_counter()
    proc = subprocess.Popen([str(binary), "--claude-path", str(standin)], cwd=work, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    editor = Editor(proc)
    editor.request("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    initialized = time.perf_counter()
    asked = time.perf_counter()
    sid = editor.request("session/new", {"cwd": str(work), "mcpServers": []})["sessionId"]
    opened = time.perf_counter()
    rss_opened = int(status(proc.pid)["VmRSS"])
    for n in range(PROMPTS):
        stop = editor.request("session/prompt", {"sessionId": sid,
                                                 "prompt": [{"type": "text", "text": f"turn {n}"}]})
        assert stop["stopReason"] == "end_turn", stop
    fields = status(proc.pid)
    smaps = rollup(proc.pid)
    figures = {
        "spawn -> initialize answered (ms)": (initialized - started) * 1000,
        "session/new: request -> answer (ms)": (opened - asked) * 1000,
        "RSS after session/new (MiB)": rss_opened / 1024,
        f"peak RSS after {PROMPTS} prompts (MiB)": int(fields["VmHWM"]) / 1024,
        "RSS at the end (MiB)": smaps["Rss"] / 1024,
        "  of it anonymous: allocations, stacks (MiB)": smaps["Anonymous"] / 1024,
        "  of it file-backed: the executable, libc (MiB)": (smaps["Rss"] - smaps["Anonymous"]) / 1024,
        "threads": int(fields["Threads"]),
        "adapter CPU, whole session (ms)": cpu_ms(proc.pid),
    }
    proc.stdin.close()
    proc.wait(timeout=30)
    return figures if measure else None


def text_size(binary):
    out = subprocess.run(["size", "-A", str(binary)], capture_output=True, text=True)
    if out.returncode != 0:
        return None
    sections = {p[0]: int(p[1]) for p in (l.split() for l in out.stdout.splitlines()) if len(p) >= 2 and p[1].isdigit()}
    return sum(sections.get(s, 0) for s in (".text", ".rodata", ".eh_frame", ".eh_frame_hdr", ".gcc_except_table", ".data.rel.ro"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--baseline", default=BASELINE, help="a git revision, built once")
    parser.add_argument("--baseline-bin", help="a baseline binary instead of building one")
    parser.add_argument("--bin", help="this build's binary instead of `cargo build --release`")
    args = parser.parse_args()

    current = pathlib.Path(args.bin).resolve() if args.bin else build_current()
    if args.baseline_bin:
        base_name, baseline = "baseline", pathlib.Path(args.baseline_bin).resolve()
    else:
        base_name, baseline = build_baseline(args.baseline)
    builds = [(base_name, baseline), ("this build", current)]

    samples = {name: [] for name, _ in builds}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        standin = tmp / "claude"
        standin.write_text(f"#!/bin/sh\nexec '{current}' standin --script '{FIXTURE}' \"$@\"\n")
        standin.chmod(0o755)
        homes = {}
        for name, binary in builds:
            homes[name] = tmp / name.replace(" ", "-")
            homes[name].mkdir()
            session(binary, standin, homes[name], measure=False)  # fills the options cache
        for _ in range(args.runs):
            for name, binary in builds:
                samples[name].append(session(binary, standin, homes[name], measure=True))

    load = open("/proc/loadavg").read().split()[:3]
    print(f"One session, {PROMPTS} prompts of 50 deltas on the stand-in, options cache warm; medians of "
          f"{args.runs} runs each, alternating; load average {' '.join(load)}")
    rows = [("binary (MB)", [b.stat().st_size / 1e6 for _, b in builds]),
            ("  loaded code and read-only data (MB)",
             [(text_size(b) or 0) / 1e6 for _, b in builds])]
    for key in samples[builds[0][0]][0]:
        rows.append((key, [statistics.median(s[key] for s in samples[name]) for name, _ in builds]))
    width = max(len(r[0]) for r in rows)
    print(f"{'':{width}}  {builds[0][0]:>12}  {builds[1][0]:>12}  {'change':>8}")
    for label, (base, ours) in rows:
        change = f"{(ours - base) / base * 100:+.0f}%" if base else "-"
        print(f"{label:{width}}  {base:12.2f}  {ours:12.2f}  {change:>8}")


if __name__ == "__main__":
    main()
