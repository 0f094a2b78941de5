#!/usr/bin/env python3
"""Writes a long claude transcript for the load and resume benchmarks, built from lines the real
claude 2.1.332 wrote (fixtures/history/: a prompt, an assistant text, a Bash tool use and its
result), each copied with new ids into one chain of parentUuid links.

    python3 scripts/long_transcript.py --out FILE --session-id ID --cwd DIR \
        [--messages 10000] [--megabytes 50] [--big-every 250] [--big-kib 512]

Turns of four messages (prompt, Bash tool use, its result, text); each result's output is stored
twice, as claude does (the tool_result block and `toolUseResult.stdout`); every `--big-every`th
result is `--big-kib` KiB, the others are sized so the file comes to about `--megabytes` MB.
Prints the file's size, its line count and its longest line as JSON.
"""

import argparse
import copy
import datetime
import json
import os
import uuid

FIXTURE = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "..",
    "fixtures/history/projects/-tmp-claude-acp-test-LjGcc3-work",
    "5b0c7f4e-2a55-4c1e-9d4b-6f1e0a9c3d21.jsonl",
)
# 0-based line numbers in the fixture.
PROMPT, TEXT, TOOL_USE, TOOL_RESULT = 2, 19, 27, 28


def output_of(size, seed):
    """Command output of about `size` bytes: numbered log lines."""
    lines, total, n = [], 0, 0
    while total < size:
        line = f"{seed:05d}:{n:06d} INFO worker finished step {n} of the build in {n % 97} ms"
        lines.append(line)
        total += len(line) + 1
        n += 1
    return "\n".join(lines)[:size]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--session-id", required=True)
    parser.add_argument("--cwd", required=True)
    parser.add_argument("--messages", type=int, default=10000)
    parser.add_argument("--megabytes", type=float, default=50)
    parser.add_argument("--big-every", type=int, default=250)
    parser.add_argument("--big-kib", type=int, default=512)
    args = parser.parse_args()

    with open(FIXTURE) as f:
        fixture = [json.loads(line) for line in f]
    templates = [fixture[i] for i in (PROMPT, TOOL_USE, TOOL_RESULT, TEXT)]
    turns = args.messages // 4
    big = turns // args.big_every
    fixed = sum(len(json.dumps(t)) for t in templates) * turns + big * 2 * args.big_kib * 1024
    small = max(256, int((args.megabytes * 1e6 - fixed) / max(1, turns - big) / 2))

    start = datetime.datetime(2026, 12, 1, tzinfo=datetime.timezone.utc)
    parent = None
    longest = 0
    count = 0
    with open(args.out, "w") as out:
        for turn in range(turns):
            size = args.big_kib * 1024 if (turn + 1) % args.big_every == 0 else small
            tool_id = f"toolu_bench_{turn:06d}"
            for kind, template in enumerate(templates):
                line = copy.deepcopy(template)
                line_uuid = str(uuid.uuid4())
                line["uuid"] = line_uuid
                line["parentUuid"] = parent
                line["sessionId"] = args.session_id
                line["timestamp"] = (start + datetime.timedelta(seconds=count)).isoformat(
                    timespec="milliseconds"
                ).replace("+00:00", "Z")
                if "cwd" in line:
                    line["cwd"] = args.cwd
                content = line["message"]["content"]
                if kind == 0:
                    line["message"]["content"] = f"Run the build step {turn} and show its log"
                    line["promptId"] = str(uuid.uuid4())
                elif kind == 1:
                    content[0]["id"] = tool_id
                    content[0]["input"] = {
                        "command": f"./build.sh step {turn}",
                        "description": f"Run build step {turn}",
                    }
                    line["message"]["id"] = f"msg_bench_{turn:06d}a"
                elif kind == 2:
                    text = output_of(size, turn)
                    content[0]["tool_use_id"] = tool_id
                    content[0]["content"] = text
                    line["toolUseResult"]["stdout"] = text
                    line["sourceToolAssistantUUID"] = parent
                else:
                    content[0]["text"] = f"Step {turn} built cleanly; the log is above."
                    line["message"]["id"] = f"msg_bench_{turn:06d}b"
                text = json.dumps(line, ensure_ascii=False, separators=(",", ":"))
                out.write(text + "\n")
                longest = max(longest, len(text.encode()) + 1)
                parent = line_uuid
                count += 1
    print(json.dumps({"bytes": os.path.getsize(args.out), "lines": count, "longest_line": longest}))


if __name__ == "__main__":
    main()
