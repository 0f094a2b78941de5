#!/usr/bin/env python3
"""A tiny MCP server on stdio for tests: one tool, `echo {text}`, answering "echo: <text>".

JSON-RPC 2.0, one message per line. claude 2.1.332 first probes `server/discover` (answered
method-not-found, as it expects), then sends initialize, notifications/initialized, tools/list.
If env ECHO_MCP_LOG names a file, each received method is appended to it (one per line), so a test
can tell that the editor's env reached the server and that the tool was really called.

With env ECHO_MCP_ELICIT set, a second tool `ask {mode}` asks the user through MCP elicitation
(`elicitation/create`: a form for a name, or with mode "url" a page to open), waits for the
answer, logs it as `elicitation-result <json>` and returns it as the tool's text.
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


ASK = {
    "name": "ask",
    "description": "Asks the user for their name.",
    "inputSchema": {
        "type": "object",
        "properties": {"mode": {"type": "string", "description": "form or url"}},
    },
}

FORM = {
    "mode": "form",
    "message": "What is your name?",
    "requestedSchema": {
        "type": "object",
        "properties": {"name": {"type": "string", "title": "Name"}},
        "required": ["name"],
    },
}

URL = {
    "mode": "url",
    "message": "Sign in to the echo service",
    "url": "https://example.com/echo-login",
    "elicitationId": "echo-login-1",
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
        tools = [TOOL, ASK] if os.environ.get("ECHO_MCP_ELICIT") else [TOOL]
        return {"result": {"tools": tools}}
    if method == "tools/call" and params.get("name") == "ask":
        mode = (params.get("arguments") or {}).get("mode", "form")
        result = elicit(URL if mode == "url" else FORM)
        log("elicitation-result " + json.dumps(result, sort_keys=True))
        return {"result": {"content": [{"type": "text", "text": "answer: " + json.dumps(result)}]}}
    if method == "tools/call" and params.get("name") == "echo":
        text = (params.get("arguments") or {}).get("text", "")
        return {"result": {"content": [{"type": "text", "text": "echo: " + text}]}}
    return {"error": {"code": -32601, "message": "method not found: " + method}}


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def elicit(params):
    """Sends `elicitation/create` and reads on until its answer (the result or the error)."""
    send({"jsonrpc": "2.0", "id": "elicit-1", "method": "elicitation/create", "params": params})
    for message in messages():
        if message.get("id") == "elicit-1" and "method" not in message:
            return message.get("result", {"error": message.get("error")})
        handle(message)
    return {"error": "stdin closed"}


def messages():
    while True:
        line = sys.stdin.readline()
        if not line:
            return
        line = line.strip()
        if not line:
            continue
        try:
            yield json.loads(line)
        except ValueError:
            continue


def handle(message):
    log(message.get("method", "<response>"))
    if message.get("method") == "initialize":
        caps = (message.get("params") or {}).get("capabilities") or {}
        log("client-capabilities " + json.dumps(caps, sort_keys=True))
    if "id" not in message or "method" not in message:
        return  # a notification or a response: nothing to answer
    reply = {"jsonrpc": "2.0", "id": message["id"]}
    reply.update(answer(message))
    send(reply)


def main():
    for message in messages():
        handle(message)


if __name__ == "__main__":
    main()
