#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpus under fuzz/corpus/ from fixtures/ (not committed).

The same seeds as src/fuzzing/tests.rs: for claude_stdout, claude's stdout of every captured
run (fixtures/transcripts, lines with dir "claude->client", one file per run) and the lines each
stand-in script prints (fixtures/standin, "emit" and "emit_raw"); for editor_stdin,
fixtures/editor_lines.jsonl whole, and its initialize line followed by each other line.
"""
import json
import pathlib
import sys

root = pathlib.Path(__file__).resolve().parent.parent
out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else root / "fuzz" / "corpus"


def write(target, name, data):
    folder = out / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)


def line(value):
    # The same compact form serde_json prints.
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


for path in sorted((root / "fixtures" / "transcripts").glob("*.jsonl")):
    runs = {}
    for text in path.read_text().splitlines():
        record = json.loads(text)
        if record["dir"] == "claude->client":
            runs.setdefault(record.get("run") or 0, bytearray()).extend(line(record["msg"]))
    for run, data in runs.items():
        write("claude_stdout", f"transcript-{path.stem}-{run}", bytes(data))

for path in sorted((root / "fixtures" / "standin").glob("*.jsonl")):
    data = bytearray()
    for text in path.read_text().splitlines():
        try:
            step = json.loads(text)
        except ValueError:
            continue
        if "emit" in step:
            data.extend(line(step["emit"]))
        elif isinstance(step.get("emit_raw"), str):
            data.extend(step["emit_raw"].encode() + b"\n")
    if data:
        write("claude_stdout", f"standin-{path.stem}", bytes(data))

editor = (root / "fixtures" / "editor_lines.jsonl").read_bytes()
lines = [l for l in editor.splitlines() if l.strip()]
write("editor_stdin", "session", editor)
for i, other in enumerate(lines[1:], 1):
    write("editor_stdin", f"init-then-{i:02}", lines[0] + b"\n" + other + b"\n")

print(f"seed corpus written to {out}")
