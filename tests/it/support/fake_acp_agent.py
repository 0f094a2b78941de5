#!/usr/bin/env python3
"""A tiny ACP v1 agent used to test the test tooling (never the adapter itself).

It answers initialize and session/new, and plays a scripted turn chosen by the prompt text:
  default     announce a Write tool call, ask permission, then stream text (or stop if cancelled)
  fail        answer the prompt with a JSON-RPC error
  stderr      write a line to stderr, then end the turn
  garbage     print a non-JSON line and a non-UTF-8 line on stdout, then end the turn
  fs          ask the client fs/read_text_file and report the error code it got
  exit        exit with status 3 without answering
It exits when stdin closes.
"""
import json
import sys


def send(message):
    message["jsonrpc"] = "2.0"
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def update(session, body):
    send({"method": "session/update", "params": {"sessionId": session, "update": body}})


def text_chunk(session, text):
    update(session, {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}})


turn = None  # the prompt waiting on a permission or fs answer: {"id", "session", "cancelled"}

for line in sys.stdin:
    message = json.loads(line)
    method = message.get("method")
    params = message.get("params") or {}
    if method == "initialize":
        send({"id": message["id"], "result": {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []}})
    elif method == "session/new":
        send({"id": message["id"], "result": {"sessionId": "fake-session-1"}})
    elif method == "session/cancel":
        if turn is not None:
            turn["cancelled"] = True
    elif method == "session/prompt":
        session = params["sessionId"]
        text = params["prompt"][0].get("text", "")
        if text == "fail":
            send({"id": message["id"], "error": {"code": -32000, "message": "fake failure", "data": {"why": "asked"}}})
        elif text == "stderr":
            sys.stderr.write("fake agent diagnostic line\n")
            sys.stderr.flush()
            send({"id": message["id"], "result": {"stopReason": "end_turn"}})
        elif text == "garbage":
            sys.stdout.write("this is not json\n")
            sys.stdout.flush()
            sys.stdout.buffer.write(b"\xff\xfe not utf-8\n")
            sys.stdout.buffer.flush()
            send({"id": message["id"], "result": {"stopReason": "end_turn"}})
        elif text == "fs":
            turn = {"id": message["id"], "session": session, "cancelled": False}
            send({"id": "fs-1", "method": "fs/read_text_file", "params": {"sessionId": session, "path": "/etc/hostname"}})
        elif text == "exit":
            sys.exit(3)
        else:
            turn = {"id": message["id"], "session": session, "cancelled": False}
            update(session, {"sessionUpdate": "tool_call", "toolCallId": "toolu_1", "title": "Write hello.txt",
                             "kind": "edit", "status": "pending"})
            send({"id": "perm-1", "method": "session/request_permission", "params": {
                "sessionId": session,
                "toolCall": {"toolCallId": "toolu_1", "title": "Write hello.txt"},
                "options": [
                    {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                    {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
                ],
            }})
    elif "id" in message and method is None and turn is not None:
        session = turn["session"]
        if message["id"] == "fs-1":
            code = message.get("error", {}).get("code")
            text_chunk(session, "fs error code %s" % code)
            send({"id": turn["id"], "result": {"stopReason": "end_turn"}})
        else:
            outcome = message.get("result", {}).get("outcome", {})
            if turn["cancelled"] or outcome.get("outcome") == "cancelled":
                update(session, {"sessionUpdate": "tool_call_update", "toolCallId": "toolu_1", "status": "failed"})
                send({"id": turn["id"], "result": {"stopReason": "cancelled"}})
            elif outcome.get("optionId") == "allow":
                update(session, {"sessionUpdate": "tool_call_update", "toolCallId": "toolu_1", "status": "completed"})
                text_chunk(session, "Created ")
                text_chunk(session, "hello.txt.")
                send({"id": turn["id"], "result": {"stopReason": "end_turn"}})
            else:
                update(session, {"sessionUpdate": "tool_call_update", "toolCallId": "toolu_1", "status": "failed"})
                text_chunk(session, "Not allowed.")
                send({"id": turn["id"], "result": {"stopReason": "end_turn"}})
        turn = None
