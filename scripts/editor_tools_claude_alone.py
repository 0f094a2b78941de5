#!/usr/bin/env python3
"""What the editor tools cost claude's own start-up, with no adapter: cold starts of the pinned claude
run in turn, three ways, with a user line written at spawn:

  none      the flags claude-acp gives a client declaring neither fs nor terminal
  flags     plus `--disallowedTools Read,Write,Edit,MultiEdit,Bash,TaskStop` (what declaring them adds)
  server    plus `sdkMcpServers: ["acp"]` in `initialize`, its MCP messages answered at once

    python3 scripts/editor_tools_claude_alone.py [ROUNDS] [CLAUDE]

Prints, per way, the median (and range) of spawn -> claude's `initialize` answer and spawn ->
`system/init` (claude starting the turn: the handshake, when there is one, is done before it), and
the median of the round-by-round differences from `none` (rounds where a run failed are dropped
only at the end, so a failure can shift the pairing; none did in the runs quoted). No
API is reached (the base URL is a closed loopback port); each claude is killed at `system/init`."""
import json, os, select, shutil, statistics, subprocess, sys, tempfile, time

import pinned_claude

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 10
CLAUDE = sys.argv[2] if len(sys.argv) > 2 else pinned_claude.path()
TOOLS = [{"name": name, "description": f"{name} through the editor",
          "inputSchema": {"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]}}
         for name in ("Read", "Write", "Edit", "Bash", "TaskStop")]


def one(way):
    scratch = tempfile.mkdtemp(prefix="tools-alone-")
    for sub in ("home", "work"):
        os.makedirs(os.path.join(scratch, sub))
    env = {"HOME": os.path.join(scratch, "home"), "PATH": os.environ["PATH"], "ANTHROPIC_API_KEY": "dummy",
           "ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
           "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1", "LANG": "C.UTF-8"}
    args = [CLAUDE, "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
            "--permission-prompt-tool", "stdio"]
    if way != "none":
        args += ["--disallowedTools", "Read,Write,Edit,MultiEdit,Bash,TaskStop"]
    p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         env=env, cwd=os.path.join(scratch, "work"))
    t0 = time.monotonic()

    def send(v):
        p.stdin.write((json.dumps(v) + "\n").encode())
        p.stdin.flush()

    request = {"subtype": "initialize", "hooks": None}
    if way == "server":
        request["sdkMcpServers"] = ["acp"]
    send({"type": "control_request", "request_id": "init", "request": request})
    send({"type": "user", "message": {"role": "user", "content": "hi"}, "parent_tool_use_id": None, "session_id": ""})
    buf, init, started = b"", None, None
    deadline = time.monotonic() + 120
    while started is None and time.monotonic() < deadline:
        r, _, _ = select.select([p.stdout], [], [], 0.1)
        if not r:
            continue
        chunk = os.read(p.stdout.fileno(), 65536)
        if not chunk:
            break
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            v = json.loads(line)
            now = (time.monotonic() - t0) * 1000
            req = v.get("request") or {}
            if v.get("type") == "control_request" and req.get("subtype") == "mcp_message":
                msg = req.get("message") or {}
                m = msg.get("method")
                if m == "initialize":
                    res = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "acp", "version": "0.0.1"}}
                elif m == "tools/list":
                    res = {"tools": TOOLS}
                else:
                    res = {}
                reply = {"jsonrpc": "2.0", "result": res}
                if "id" in msg:
                    reply["id"] = msg["id"]
                send({"type": "control_response", "response": {"subtype": "success", "request_id": v["request_id"], "response": {"mcp_response": reply}}})
            elif v.get("type") == "control_response" and (v.get("response") or {}).get("request_id") == "init":
                init = now
            elif v.get("type") == "system" and v.get("subtype") == "init":
                started = now
    p.kill()
    p.wait()
    shutil.rmtree(scratch, ignore_errors=True)
    return init, started


def main():
    ways = ("none", "flags", "server")
    got = {w: ([], []) for w in ways}
    for n in range(rounds):
        for way in ways if n % 2 == 0 else reversed(ways):
            init, started = one(way)
            if init is not None and started is not None:
                got[way][0].append(init)
                got[way][1].append(started)
    rounds_done = min(len(got[w][1]) for w in ways)
    for way in ways[1:]:
        diffs = [got[way][1][i] - got["none"][1][i] for i in range(rounds_done)]
        if diffs:
            print(f"{way} - none, spawn -> system/init, round by round: median {statistics.median(diffs):+.0f} ms")
    for way in ways:
        inits, starts = got[way]
        if not starts:
            print(f"{way}: no run reached system/init")
            continue
        print(f"{way:6} ({len(starts)} runs): spawn -> initialize answer {statistics.median(inits):.0f} ms "
              f"({min(inits):.0f}-{max(inits):.0f}); spawn -> system/init {statistics.median(starts):.0f} ms "
              f"({min(starts):.0f}-{max(starts):.0f})")


if __name__ == "__main__":
    main()
