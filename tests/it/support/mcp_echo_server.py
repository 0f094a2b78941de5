#!/usr/bin/env python3
"""A tiny MCP server on stdio for tests: one tool, `echo {text}`, answering "echo: <text>".

JSON-RPC 2.0, one message per line. claude 2.1.332 first probes `server/discover` (answered
method-not-found, as it expects), then sends initialize, notifications/initialized, tools/list.
If env ECHO_MCP_LOG names a file, each received method is appended to it (one per line), so a test
can tell that the editor's env reached the server and that the tool was really called.
"""
import json
import os
import sys

TOOL = {
    "name": "echo",
    "description": "Echoes the given text back.",
    "inputSchema": {
        "type": "object",
        "properties": {"text": {"type": "string", "description": "What to echo"}},
        "required": ["text"],
    },
}


def log(method):
    path = os.environ.get("ECHO_MCP_LOG")
    if path:
        with open(path, "a") as f:
            f.write(method + "\n")


def answer(message):
    method = message.get("method", "")
    params = message.get("params") or {}
    if method == "initialize":
        return {"result": {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "echo", "version": "1.0.0"},
        }}
    if method == "ping":
        return {"result": {}}
    if method == "tools/list":
        return {"result": {"tools": [TOOL]}}
    if method == "tools/call" and params.get("name") == "echo":
        text = (params.get("arguments") or {}).get("text", "")
        return {"result": {"content": [{"type": "text", "text": "echo: " + text}]}}
    return {"error": {"code": -32601, "message": "method not found: " + method}}


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            message = json.loads(line)
        except ValueError:
            continue
        log(message.get("method", "<response>"))
        if "id" not in message or "method" not in message:
            continue  # a notification or a response: nothing to answer
        reply = {"jsonrpc": "2.0", "id": message["id"]}
        reply.update(answer(message))
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
