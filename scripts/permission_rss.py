#!/usr/bin/env python3
"""Peak RSS of claude-acp for a big Write through a permission prompt, on the stand-in.

Plays fixtures/standin/big_write_permission.jsonl with its three big lines (the assistant's
tool_use, the can_use_tool and the tool result, as the real claude sends them) grown to --bytes, answers the permission with allow_once, and
prints the adapter's VmRSS before the prompt and its VmHWM (peak) before the prompt and at the end.
With --protocol 2 the editor speaks ACP v2 (the prompt answered at once, the turn's end its `idle`).

    python3 scripts/permission_rss.py --bin target/release/claude-acp [--bytes 10485760] [--runs 3] [--protocol 2]
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "fixtures/standin/big_write_permission.jsonl"


def status_kib(pid, field):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


class Editor:
    def __init__(self, proc):
        self.proc = proc
        self.next_id = 0
        self.asks = 0
        self.idle = None

    def send(self, message):
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        my_id = self.next_id
        self.send({"jsonrpc": "2.0", "id": my_id, "method": method, "params": params})
        while True:
            line = self.proc.stdout.readline()
            if not line:
                sys.exit(f"the adapter closed stdout waiting for {method}")
            if not line.startswith(b"{"):
                continue  # a wrapper's own output (heaptrack's banner)
            message = json.loads(line)
            if "method" in message and "id" in message:
                self.answer(message)
            elif message.get("method") == "session/update":
                update = message["params"]["update"]
                if update.get("sessionUpdate") == "state_update" and update.get("state") == "idle":
                    self.idle = update
            elif message.get("id") == my_id:
                if "error" in message:
                    sys.exit(f"{method}: {message['error']}")
                return message["result"]

    def until_idle(self):
        """ACP v2: reads until the turn's `idle`."""
        while self.idle is None:
            line = self.proc.stdout.readline()
            if not line:
                sys.exit("the adapter closed stdout before the turn ended")
            if not line.startswith(b"{"):
                continue
            message = json.loads(line)
            if "method" in message and "id" in message:
                self.answer(message)
            elif message.get("method") == "session/update":
                update = message["params"]["update"]
                if update.get("sessionUpdate") == "state_update" and update.get("state") == "idle":
                    self.idle = update
        return self.idle

    def answer(self, message):
        if message["method"] == "session/request_permission":
            self.asks += 1
            params = message["params"]
            call = params["subject"]["toolCall"] if "subject" in params else params["toolCall"]
            content = call["rawInput"]["content"]
            assert content.strip("x") == "", "the ask carries claude's content"
            result = {"outcome": {"outcome": "selected", "optionId": "allow_once"}}
            self.send({"jsonrpc": "2.0", "id": message["id"], "result": result})
        else:
            self.send({"jsonrpc": "2.0", "id": message["id"],
                       "error": {"code": -32601, "message": "not here"}})


def run(binary, size, protocol):
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        script = tmp / "script.jsonl"
        script.write_text(FIXTURE.read_text().replace('"bytes": 2097152', f'"bytes": {size}'))
        wrapper = tmp / "claude"
        wrapper.write_text(f"#!/bin/sh\nexec '{binary}' standin --script '{script}' \"$@\"\n")
        wrapper.chmod(0o755)
        work = tmp / "work"
        work.mkdir()
        env = dict(os.environ,
                   XDG_CACHE_HOME=str(tmp / "cache"),
                   CLAUDE_CONFIG_DIR=str(tmp / "config"),
                   CLAUDE_ACP_OPTIONS_WAIT_MS="30000",
                   RUST_LOG="warn")
        proc = subprocess.Popen([binary, "--claude-path", str(wrapper)], cwd=work, env=env,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=open(tmp / "stderr", "wb"))
        editor = Editor(proc)
        if protocol == 2:
            editor.request("initialize", {"protocolVersion": 2,
                                          "info": {"name": "rss", "version": "1"}})
            session = editor.request("session/new", {"cwd": str(work)})["sessionId"]
        else:
            editor.request("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
            session = editor.request("session/new", {"cwd": str(work), "mcpServers": []})["sessionId"]
        rss_before = status_kib(proc.pid, "VmRSS")
        hwm_before = status_kib(proc.pid, "VmHWM")
        prompt = [{"type": "text", "text": "Please create big.txt"}]
        stop = editor.request("session/prompt", {"sessionId": session, "prompt": prompt})
        if protocol == 2:
            stop = editor.until_idle()
        hwm_after = status_kib(proc.pid, "VmHWM")
        assert stop["stopReason"] == "end_turn", stop
        assert editor.asks == 1, editor.asks
        proc.stdin.close()
        proc.wait(timeout=30)
        return rss_before, hwm_before, hwm_after


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=str(ROOT / "target/release/claude-acp"))
    parser.add_argument("--bytes", type=int, default=10 * 1024 * 1024)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--protocol", type=int, choices=[1, 2], default=1)
    args = parser.parse_args()
    mib = 1024.0
    for _ in range(args.runs):
        rss, hwm_before, hwm = run(os.path.abspath(args.bin), args.bytes, args.protocol)
        print(f"RSS before the prompt {rss / mib:.1f} MiB, peak before {hwm_before / mib:.1f} MiB, "
              f"peak at the end {hwm / mib:.1f} MiB, growth {(hwm - rss) / mib:.1f} MiB "
              f"for a {args.bytes / mib / mib:.1f} MiB Write (ACP v{args.protocol})")


if __name__ == "__main__":
    main()
