#!/usr/bin/env python3
"""When claude does the `acp` SDK MCP server's handshake: prints each control message with its time.

    python3 scripts/mcp_handshake_probe.py [plain|status] [CLAUDE]

Starts claude (default: the pinned one the tests install under target/claude-code/) with the flags
claude-acp gives it when the editor serves files, sends `initialize` naming the SDK server `acp`,
answers its `mcp_message`s at once, and (`status`) sends `mcp_status` right after the initialize
answer. No user line is sent and no API is reached (the base URL is a closed loopback port).
With `plain`, claude 2.1.332 sends only the MCP `initialize` (before its initialize answer):
`notifications/initialized` and `tools/list` wait for the first user line, so they are on the
first prompt's way. With `status`, both come at once, before any prompt.
"""
import json, os, select, shutil, subprocess, sys, tempfile, time
import pinned_claude
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
mode = sys.argv[1] if len(sys.argv) > 1 else "status"
CLAUDE = sys.argv[2] if len(sys.argv) > 2 else pinned_claude.path()
scratch = tempfile.mkdtemp(prefix="mcp-probe-")
for sub in ("home", "work"):
    os.makedirs(os.path.join(scratch, sub))
env = {"HOME": os.path.join(scratch, "home"), "PATH": os.environ["PATH"], "ANTHROPIC_API_KEY": "dummy",
       "ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
       "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1", "LANG": "C.UTF-8"}
p = subprocess.Popen([CLAUDE, "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
                      "--permission-prompt-tool", "stdio", "--disallowedTools", "Read,Write,Edit,MultiEdit,Bash,TaskStop"],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=os.path.join(scratch, "work"))
t0 = time.monotonic()
def send(v):
    p.stdin.write((json.dumps(v) + "\n").encode()); p.stdin.flush()
    print(f"{time.monotonic()-t0:.3f} -> {json.dumps(v)[:110]}")
send({"type": "control_request", "request_id": "init", "request": {"subtype": "initialize", "hooks": None, "sdkMcpServers": ["acp"]}})
buf = b""
# claude's start-up can take seconds on a busy machine; watch 5 s past its initialize answer.
deadline = time.monotonic() + 120
while time.monotonic() < deadline:
    r, _, _ = select.select([p.stdout], [], [], 0.1)
    if not r: continue
    chunk = os.read(p.stdout.fileno(), 65536)
    if not chunk: break
    buf += chunk
    while b"\n" in buf:
        line, buf = buf.split(b"\n", 1)
        v = json.loads(line)
        req = v.get("request") or {}
        msg = req.get("message") or {}
        print(f"{time.monotonic()-t0:.3f} <- {v.get('type')} {req.get('subtype') or v.get('subtype','')} {msg.get('method','')} {json.dumps(v.get('response',''))[:80]}")
        if v.get("type") == "control_request" and req.get("subtype") == "mcp_message":
            m = msg.get("method")
            if m == "initialize":
                res = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "acp", "version": "0.0.1"}}
            elif m == "tools/list":
                res = {"tools": [{"name": "Read", "description": "Read a file", "inputSchema": {"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]}}]}
            else:
                res = {}
            reply = {"jsonrpc": "2.0", "result": res}
            if "id" in msg: reply["id"] = msg["id"]
            send({"type": "control_response", "response": {"subtype": "success", "request_id": v["request_id"], "response": {"mcp_response": reply}}})
        if v.get("type") == "control_response" and (v.get("response") or {}).get("request_id") == "init":
            deadline = time.monotonic() + 5
            if mode == "status":
                send({"type": "control_request", "request_id": "st", "request": {"subtype": "mcp_status"}})
p.stdin.close(); p.kill(); p.wait()
shutil.rmtree(scratch, ignore_errors=True)
