#!/usr/bin/env python3
"""What the `list_permission_rules` round trip costs each ask of an editor-served tool: claude-acp
asks the running claude for the rules in force before deciding every call of the editor's Read,
Write, Edit or Bash. Starts claude (default: the pinned one) with the flags claude-acp gives it
when the editor serves the tools and a settings file of RULES rules of each kind, answers its
`initialize`, then sends the request N times, one after another, and prints the round trip
(request written -> answer read) and the answer's size. No API is reached (the base URL is a
closed loopback port).

    python3 scripts/permission_rules_round_trip.py [N] [RULES] [CLAUDE]
"""
import json, os, select, shutil, statistics, subprocess, sys, tempfile, time

import pinned_claude

n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
rules = int(sys.argv[2]) if len(sys.argv) > 2 else 10
CLAUDE = sys.argv[3] if len(sys.argv) > 3 else pinned_claude.path()
scratch = tempfile.mkdtemp(prefix="rules-rt-")
home, work = os.path.join(scratch, "home"), os.path.join(scratch, "work")
os.makedirs(os.path.join(home, ".claude"))
os.makedirs(work)
settings = {"permissions": {
    "deny": [f"Read(**/secret{i}.txt)" for i in range(rules)],
    "ask": [f"Bash(deploy{i}:*)" for i in range(rules)],
    "allow": [f"Bash(tool{i}:*)" for i in range(rules)]}}
json.dump(settings, open(os.path.join(home, ".claude", "settings.json"), "w"))
env = {"HOME": home, "PATH": os.environ["PATH"], "ANTHROPIC_API_KEY": "dummy",
       "ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
       "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1", "LANG": "C.UTF-8"}
p = subprocess.Popen([CLAUDE, "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
                      "--permission-prompt-tool", "stdio", "--disallowedTools", "Read,Write,Edit,MultiEdit,Bash,TaskStop"],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=work)
buf = b""


def send(v):
    p.stdin.write((json.dumps(v) + "\n").encode())
    p.stdin.flush()


def answer_to(request_id, timeout=120):
    """The control response to `request_id` (other lines skipped) and its line's size."""
    global buf
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            v = json.loads(line)
            if v.get("type") == "control_response" and v["response"].get("request_id") == request_id:
                return v, len(line)
        r, _, _ = select.select([p.stdout], [], [], 0.5)
        if r:
            chunk = os.read(p.stdout.fileno(), 1 << 20)
            if not chunk:
                break
            buf += chunk
    raise SystemExit(f"no answer to {request_id}")


try:
    send({"type": "control_request", "request_id": "init", "request": {"subtype": "initialize", "hooks": None}})
    answer_to("init")
    times, size, listed = [], 0, 0
    for i in range(n + 5):
        rid = f"rules-{i}"
        t0 = time.perf_counter()
        send({"type": "control_request", "request_id": rid, "request": {"subtype": "list_permission_rules"}})
        v, size = answer_to(rid)
        if i >= 5:  # the first few warm claude up
            times.append((time.perf_counter() - t0) * 1000)
        state = (v["response"].get("response") or {}).get("state") or {}
        listed = len(state.get("rules") or [])
    times.sort()
    q = lambda f: times[min(len(times) - 1, int(f * len(times)))]
    print(f"claude {pinned_claude.version() if len(sys.argv) <= 3 else CLAUDE}: list_permission_rules x{n}, "
          f"{listed} rules listed, answer {size} bytes")
    print(f"round trip ms: median {statistics.median(times):.3f}, p90 {q(0.9):.3f}, min {times[0]:.3f}, max {times[-1]:.3f}")
finally:
    p.stdin.close()
    p.kill()
    p.wait()
    shutil.rmtree(scratch, ignore_errors=True)
