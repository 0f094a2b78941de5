#!/usr/bin/env python3
"""The adapter's peak RSS (VmHWM, from /proc) around one prompt on a stand-in script: initialize,
session/new, then VmRSS before the prompt and VmHWM once it is answered (Linux only).

  scripts/big_payload_peak.py target/release/claude-acp fixtures/standin/big_tool_result.jsonl [RUNS]

STANDIN=path runs the stand-in from another binary (to wrap the adapter in heaptrack, say); lines the
adapter prints that are not JSON (heaptrack's own) are skipped. Temp dirs are left in /tmp."""
import json, os, subprocess, sys, tempfile, threading, time

standin = os.path.abspath(os.environ.get("STANDIN", sys.argv[1]))
adapter, script = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 1

def status(pid, field):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field):
            return int(line.split()[1]) / 1024.0
    raise KeyError(field)

def one():
    d = tempfile.mkdtemp(prefix="bigline-")
    work = os.path.join(d, "work"); os.mkdir(work)
    wrapper = os.path.join(d, "claude")
    open(wrapper, "w").write(f"#!/bin/sh\nexec '{standin}' standin --script '{script}' \"$@\"\n")
    os.chmod(wrapper, 0o700)
    env = dict(os.environ); env.pop("RUST_LOG", None)
    p = subprocess.Popen([adapter, "--claude-path", wrapper], cwd=d, env=env,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    answers = {}; cond = threading.Condition(); biggest = [0]
    def reader():
        for line in p.stdout:
            biggest[0] = max(biggest[0], len(line))
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if "id" in msg and "method" not in msg:
                with cond: answers[msg["id"]] = msg; cond.notify_all()
    threading.Thread(target=reader, daemon=True).start()
    def request(i, method, params):
        p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n").encode()); p.stdin.flush()
        with cond:
            cond.wait_for(lambda: i in answers, timeout=120)
        return answers[i]
    request(1, "initialize", {"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False}, "clientInfo": {"name": "peak", "version": "0"}})
    sid = request(2, "session/new", {"cwd": work, "mcpServers": []})["result"]["sessionId"]
    time.sleep(0.5)
    before = status(p.pid, "VmHWM:"), status(p.pid, "VmRSS:")
    answer = request(3, "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "read big.log"}]})
    time.sleep(0.3)
    peak = status(p.pid, "VmHWM:")
    p.stdin.close(); p.wait(timeout=30)
    return before, peak, answer.get("result", answer), biggest[0]

for _ in range(runs):
    (hwm0, rss0), peak, answer, biggest = one()
    print(f"before prompt: VmRSS {rss0:.1f} MiB (VmHWM {hwm0:.1f}); peak VmHWM {peak:.1f} MiB; growth {peak - rss0:.1f} MiB; stop {answer}; biggest line out {biggest/1048576:.1f} MiB")
