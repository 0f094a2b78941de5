#!/usr/bin/env python3
"""The adapter's time and peak RSS (VmHWM, from /proc) for `session/load` of the long conversation
(scripts/long_transcript.py), on the stand-in: a fresh HOME, the transcript written into its store,
then per run a fresh adapter, initialize, VmRSS, session/load, VmHWM once it is answered (Linux
only). The adapter's stdout is read without parsing the updates, so the driver keeps up.

  scripts/load_peak.py target/release/claude-acp [RUNS [long_transcript.py's options]]

Prints one line per run: request -> answer, updates sent, RSS before, peak, growth (peak - before);
then the growth split into anonymous memory (the heap, thread stacks, mapped blocks) and
file-backed pages (the program's code and data read in for the first time), from /proc's RssAnon
and RssFile before the request and at the highest of the samples taken every millisecond while it
ran and once after (VmHWM has no split; the sample is at most the peak).
STANDIN=path runs the stand-in from another binary; METHOD=session/resume asks for that instead of
session/load (no replay: the session's start alone). The temp dir is removed at the end."""
import json, os, shutil, subprocess, sys, tempfile, threading, time, uuid

adapter = os.path.abspath(sys.argv[1])
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
standin = os.path.abspath(os.environ.get("STANDIN", adapter))
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
script = os.path.join(root, "fixtures/standin/resume.jsonl")


METHOD = os.environ.get("METHOD", "session/load")


def status(pid, field):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field):
            return int(line.split()[1]) / 1024.0
    raise KeyError(field)


def memory(pid):
    """VmRSS, RssAnon, RssFile (+RssShmem, none here) in MiB."""
    fields = {}
    for line in open(f"/proc/{pid}/status"):
        key, _, value = line.partition(":")
        if key in ("VmRSS", "RssAnon", "RssFile", "RssShmem"):
            fields[key] = int(value.split()[0]) / 1024.0
    return fields


def slug(path):
    return "".join(c if c.isascii() and c.isalnum() else "-" for c in path)


def one(home, work, session_id):
    wrapper = os.path.join(home, "claude")
    env = dict(os.environ, HOME=home)
    env.pop("RUST_LOG", None)
    env.pop("CLAUDE_CONFIG_DIR", None)
    p = subprocess.Popen([adapter, "--claude-path", wrapper], cwd=work, env=env,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    answers, updates = {}, [0]
    cond = threading.Condition()

    def reader():
        for line in p.stdout:
            if b'"session/update"' in line[:80]:
                updates[0] += 1
                continue
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if "id" in msg and "method" not in msg:
                with cond:
                    answers[msg["id"]] = (time.monotonic(), msg)
                    cond.notify_all()

    threading.Thread(target=reader, daemon=True).start()

    def request(i, method, params):
        sent = time.monotonic()
        p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n").encode())
        p.stdin.flush()
        with cond:
            cond.wait_for(lambda: i in answers, timeout=300)
        at, msg = answers[i]
        if "error" in msg:
            raise SystemExit(f"{method}: {msg['error']}")
        return (at - sent) * 1000.0

    request(1, "initialize", {"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": True, "writeTextFile": True}, "terminal": True}, "clientInfo": {"name": "load-peak", "version": "0"}})
    time.sleep(0.3)
    before = memory(p.pid)
    highest, running = [before], [True]

    def sample():
        while running[0]:
            now = memory(p.pid)
            if now["VmRSS"] > highest[0]["VmRSS"]:
                highest[0] = now
            time.sleep(0.001)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    ms = request(2, METHOD, {"sessionId": session_id, "cwd": work, "mcpServers": []})
    running[0] = False
    sampler.join()
    after = memory(p.pid)
    if after["VmRSS"] > highest[0]["VmRSS"]:
        highest[0] = after
    peak = status(p.pid, "VmHWM:")
    p.stdin.close()
    p.wait(timeout=30)
    return ms, updates[0], before, peak, highest[0]


def main():
    home = tempfile.mkdtemp(prefix="load-peak-")
    try:
        work = os.path.join(home, "work")
        os.mkdir(work)
        with open(os.path.join(home, "claude"), "w") as f:
            f.write(f"#!/bin/sh\nexec '{standin}' standin --script '{script}' \"$@\"\n")
        os.chmod(os.path.join(home, "claude"), 0o700)
        project = os.path.join(home, ".claude", "projects", slug(work))
        os.makedirs(project)
        session_id = str(uuid.uuid4())
        info = subprocess.run([sys.executable, os.path.join(root, "scripts/long_transcript.py"),
                               "--out", os.path.join(project, f"{session_id}.jsonl"),
                               "--session-id", session_id, "--cwd", work] + sys.argv[3:],
                              check=True, capture_output=True).stdout
        info = json.loads(info)
        print(f"transcript: {info['lines']} lines, {info['bytes'] / 1e6:.1f} MB, longest line {info['longest_line'] / 1048576:.2f} MiB")
        one(home, work, session_id)  # the first session: fills the options cache
        for _ in range(runs):
            ms, sent, before, peak, high = one(home, work, session_id)
            rss = before["VmRSS"]
            print(f"{METHOD.split('/')[1]} {ms:.0f} ms, {sent} updates; RSS before {rss:.2f} MiB, peak {peak:.2f} MiB, growth {peak - rss:.2f} MiB")
            print(f"  anonymous before {before['RssAnon']:.2f} MiB, file-backed {before['RssFile']:.2f} MiB; at the highest sample"
                  f" ({high['VmRSS'] - rss:.2f} MiB over) anonymous +{high['RssAnon'] - before['RssAnon']:.2f} MiB,"
                  f" file-backed +{high['RssFile'] - before['RssFile']:.2f} MiB")
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
