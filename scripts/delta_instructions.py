#!/usr/bin/env python3
"""Instructions the adapter executes per relayed text delta, counted by valgrind's callgrind (which,
unlike CPU time, the machine's load does not change): the release adapter under callgrind, the
stand-in (not under valgrind) streaming a reply of N deltas as the compare bench's stress does,
one warm-up turn, then the counters zeroed, one turn, and the counters dumped (Linux only).

  scripts/delta_instructions.py target/release/claude-acp [DELTAS]

Prints the instructions over the measured turn and per delta, and leaves the dump
(callgrind.out.*, for callgrind_annotate) in a temp dir whose path it prints."""
import glob, json, os, subprocess, sys, tempfile, threading, time

adapter = os.path.abspath(sys.argv[1])
deltas = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def delta_script(path):
    """fixtures/standin/bench_short.jsonl with its one delta made `deltas` (as benches/compare/standin.rs)."""
    steps = [json.loads(l) for l in open(os.path.join(root, "fixtures/standin/bench_short.jsonl")) if l.startswith("{")]
    is_delta = lambda s: s.get("emit", {}).get("event", {}).get("delta", {}).get("type") == "text_delta"
    delta = next(s for s in steps if is_delta(s))
    texts = [f"t{i} " for i in range(deltas)]
    whole = "".join(texts)
    out = []
    for step in steps:
        if is_delta(step):
            for i, text in enumerate(texts):
                d = json.loads(json.dumps(delta))
                d["emit"]["event"]["delta"]["text"] = text
                d["emit"]["uuid"] = "${msg}-d%d" % i
                out.append(json.dumps(d, separators=(",", ":")))
            continue
        step = json.loads(json.dumps(step))
        emit = step.get("emit", {})
        if emit.get("type") == "assistant":
            emit["message"]["content"] = [{"type": "text", "text": whole}]
        if emit.get("type") == "result" or "duration_api_ms" in emit:
            emit["result"] = whole
        out.append(json.dumps(step, separators=(",", ":")))
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    d = tempfile.mkdtemp(prefix="delta-instr-")
    work = os.path.join(d, "work")
    os.mkdir(work)
    script = os.path.join(d, "deltas.jsonl")
    delta_script(script)
    wrapper = os.path.join(d, "claude")
    with open(wrapper, "w") as f:
        f.write(f"#!/bin/sh\nexec '{adapter}' standin --script '{script}' \"$@\"\n")
    os.chmod(wrapper, 0o700)
    env = dict(os.environ, HOME=d)
    env.pop("RUST_LOG", None)
    p = subprocess.Popen(["valgrind", "--tool=callgrind", f"--callgrind-out-file={d}/callgrind.out.%p",
                          adapter, "--claude-path", wrapper], cwd=work, env=env,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    answers, chunks = {}, [0]
    cond = threading.Condition()

    def reader():
        for line in p.stdout:
            if b"agent_message_chunk" in line:
                chunks[0] += 1
                continue
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if "id" in msg and "method" not in msg:
                with cond:
                    answers[msg["id"]] = msg
                    cond.notify_all()

    threading.Thread(target=reader, daemon=True).start()

    def request(i, method, params):
        p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n").encode())
        p.stdin.flush()
        with cond:
            cond.wait_for(lambda: i in answers, timeout=1800)
        return answers[i]["result"]

    request(1, "initialize", {"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": True, "writeTextFile": True}, "terminal": True}, "clientInfo": {"name": "delta-instructions", "version": "0"}})
    sid = request(2, "session/new", {"cwd": work, "mcpServers": []})["sessionId"]
    prompt = {"sessionId": sid, "prompt": [{"type": "text", "text": "go"}]}
    request(3, "session/prompt", prompt)
    subprocess.run(["callgrind_control", "-z", str(p.pid)], check=True, capture_output=True)
    chunks[0] = 0
    request(4, "session/prompt", prompt)
    subprocess.run(["callgrind_control", "-d", "measured", str(p.pid)], check=True, capture_output=True)
    time.sleep(0.5)
    p.stdin.close()
    p.wait(timeout=600)
    dumps = [f for f in glob.glob(f"{d}/callgrind.out.*") if "measured" in open(f, errors="replace").read(4096)]
    total = 0
    for f in dumps:
        for line in open(f, errors="replace"):
            if line.startswith("summary:") or line.startswith("totals:"):
                total = max(total, int(line.split()[1]))
    print(f"{deltas} deltas, {chunks[0]} chunks: {total} instructions, {total / deltas:.0f} per delta ({d})")


if __name__ == "__main__":
    main()
