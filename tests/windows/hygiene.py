"""Process hygiene of claude-acp.exe under Wine (.ci/windows): nothing of a session outlives it.

claude is tests/windows/busy_claude.exe, which starts a long-running child and then ignores its
stdin, so only claude-acp's Job object (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE) can end the two.
For each way a session ends (the editor's `session/close`; the editor closes stdin; claude-acp.exe
is killed outright, SIGKILL of its Wine process), an editor opens a session, waits until claude and
its child run, ends it, and checks that neither is left in the process table.

Usage: python3 hygiene.py WINE CLAUDE_ACP_EXE BUSY_CLAUDE_EXE WORK_DIR [close|eof|kill ...]
(all three by default)
"""

import json
import os
import select
import signal
import subprocess
import sys
import time


def ourselves():
    """This script's pid and its ancestors': their command lines name the exes too (our argv)."""
    pids, pid = set(), os.getpid()
    while pid > 1:
        pids.add(pid)
        with open(f"/proc/{pid}/stat") as stat:
            # The field after the parenthesised command name, which may itself hold spaces.
            pid = int(stat.read().rsplit(")", 1)[1].split()[1])
    return pids


def processes(name):
    """Linux pids of the Wine processes whose command line names `name`: never this script, nor
    claude-acp.exe, whose own command line names the claude it starts (`--claude-path`)."""
    out = subprocess.run(["ps", "-eo", "pid=,args="], capture_output=True, text=True).stdout
    mine = ourselves()
    found = [
        int(line.split()[0])
        for line in out.splitlines()
        if name in line and (name == ADAPTER_NAME or ADAPTER_NAME not in line)
    ]
    return [pid for pid in found if pid not in mine]


ADAPTER_NAME = "claude-acp.exe"


def wait_until(check, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return check()


def answer(editor, request_id, seconds):
    """The editor's reply to request `request_id` (other lines skipped), or None past `seconds`."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        ready, _, _ = select.select([editor.stdout], [], [], max(0.0, deadline - time.time()))
        if not ready:
            return None
        line = editor.stdout.readline()
        if not line:
            return None
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if message.get("id") == request_id and "method" not in message:
            return message
    return None


def scenario(wine, adapter, busy, work, end):
    pids = os.path.join(work, "busy.pids")
    if os.path.exists(pids):
        os.remove(pids)
    env = dict(os.environ, BUSY_CLAUDE_PIDS="Z:" + pids.replace("/", "\\"))
    editor = subprocess.Popen(
        [wine, adapter, "--claude-path", busy],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        # Unbuffered, so select() sees every line not yet read.
        bufsize=0,
    )

    def send(message):
        editor.stdin.write((json.dumps(message) + "\n").encode())
        editor.stdin.flush()

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
          "params": {"protocolVersion": 1, "clientCapabilities": {}}})
    editor.stdout.readline()
    send({"jsonrpc": "2.0", "id": 2, "method": "session/new",
          "params": {"cwd": "Z:" + work.replace("/", "\\"), "mcpServers": []}})
    if not wait_until(lambda: os.path.exists(pids) and os.path.getsize(pids) > 0, 60):
        editor.kill()
        return "claude never started"
    if not wait_until(lambda: len(processes(os.path.basename(busy))) >= 2, 20):
        editor.kill()
        return "claude and its child were not both seen running"
    if end == "close":
        opened = answer(editor, 2, 60)
        session = ((opened or {}).get("result") or {}).get("sessionId")
        if session is None:
            editor.kill()
            return f"session/new was not answered with a session: {opened}"
        send({"jsonrpc": "2.0", "id": 3, "method": "session/close",
              "params": {"sessionId": session}})
        closed = answer(editor, 3, 60)
        if closed is None or "error" in closed:
            editor.kill()
            return f"session/close was not answered: {closed}"
        # Checked while claude-acp.exe still runs: the close alone ended them.
        if not wait_until(lambda: not processes(os.path.basename(busy)), 20):
            left = processes(os.path.basename(busy))
            for pid in left:
                os.kill(pid, signal.SIGKILL)
            editor.kill()
            return f"left behind after session/close: {len(left)} process(es) of {os.path.basename(busy)}"
        editor.stdin.close()
        editor.wait(timeout=20)
        return None
    if end == "eof":
        editor.stdin.close()
        try:
            editor.wait(timeout=20)
        except subprocess.TimeoutExpired:
            editor.kill()
            return "claude-acp.exe did not exit after its stdin closed"
    else:
        # The Wine process of claude-acp.exe: the editor's child, or a child of its wine loader.
        os.kill(editor.pid, signal.SIGKILL)
        for pid in processes(os.path.basename(adapter)):
            os.kill(pid, signal.SIGKILL)
        editor.wait()
    if not wait_until(lambda: not processes(os.path.basename(busy)), 20):
        left = processes(os.path.basename(busy))
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        return f"left behind: {len(left)} process(es) of {os.path.basename(busy)}"
    return None


def main():
    wine, adapter, busy, work = sys.argv[1:5]
    failed = 0
    for end in sys.argv[5:] or ["close", "eof", "kill"]:
        problem = scenario(wine, adapter, busy, work, end)
        name = {"close": "session/close", "eof": "stdin closed",
                "kill": "claude-acp.exe killed outright"}[end]
        if problem:
            failed += 1
            print(f"hygiene: FAIL {name}: {problem}")
        else:
            print(f"hygiene: ok   {name}: claude and its child are gone")
    sys.exit(1 if failed else 0)


main()
