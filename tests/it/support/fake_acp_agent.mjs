// A tiny ACP v1 agent used to test the test tooling (never the adapter itself).
//
// It answers initialize and session/new, and plays a scripted turn chosen by the prompt text:
//   default     announce a Write tool call, ask permission, then stream text (or stop if cancelled)
//   fail        answer the prompt with a JSON-RPC error
//   stderr      write a line to stderr, then end the turn
//   garbage     print a non-JSON line and a non-UTF-8 line on stdout, then end the turn
//   fs          ask the client fs/read_text_file and report the error code it got
//   exit        exit with status 3 without answering
// It exits when stdin closes. Node, not Python: the tests assume npm (and so node), nothing else.
import { createInterface } from "node:readline";
import { writeSync } from "node:fs";

function send(message) {
  writeSync(1, JSON.stringify({ ...message, jsonrpc: "2.0" }) + "\n");
}

function update(session, body) {
  send({ method: "session/update", params: { sessionId: session, update: body } });
}

function textChunk(session, text) {
  update(session, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
}

// The prompt waiting on a permission or fs answer: {id, session, cancelled}.
let turn = null;

function onMessage(message) {
  const method = message.method;
  const params = message.params ?? {};
  if (method === "initialize") {
    send({ id: message.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
  } else if (method === "session/new") {
    send({ id: message.id, result: { sessionId: "fake-session-1" } });
  } else if (method === "session/cancel") {
    if (turn) turn.cancelled = true;
  } else if (method === "session/prompt") {
    const session = params.sessionId;
    const text = params.prompt?.[0]?.text ?? "";
    if (text === "fail") {
      send({ id: message.id, error: { code: -32000, message: "fake failure", data: { why: "asked" } } });
    } else if (text === "stderr") {
      writeSync(2, "fake agent diagnostic line\n");
      send({ id: message.id, result: { stopReason: "end_turn" } });
    } else if (text === "garbage") {
      writeSync(1, "this is not json\n");
      writeSync(1, Buffer.from([0xff, 0xfe, ...Buffer.from(" not utf-8\n")]));
      send({ id: message.id, result: { stopReason: "end_turn" } });
    } else if (text === "fs") {
      turn = { id: message.id, session, cancelled: false };
      send({ id: "fs-1", method: "fs/read_text_file", params: { sessionId: session, path: "/etc/hostname" } });
    } else if (text === "exit") {
      process.exit(3);
    } else {
      turn = { id: message.id, session, cancelled: false };
      update(session, {
        sessionUpdate: "tool_call",
        toolCallId: "toolu_1",
        title: "Write hello.txt",
        kind: "edit",
        status: "pending",
      });
      send({
        id: "perm-1",
        method: "session/request_permission",
        params: {
          sessionId: session,
          toolCall: { toolCallId: "toolu_1", title: "Write hello.txt" },
          options: [
            { optionId: "allow", name: "Allow", kind: "allow_once" },
            { optionId: "reject", name: "Reject", kind: "reject_once" },
          ],
        },
      });
    }
  } else if ("id" in message && method === undefined && turn) {
    const session = turn.session;
    if (message.id === "fs-1") {
      textChunk(session, `fs error code ${message.error?.code ?? "None"}`);
      send({ id: turn.id, result: { stopReason: "end_turn" } });
    } else {
      const outcome = message.result?.outcome ?? {};
      if (turn.cancelled || outcome.outcome === "cancelled") {
        update(session, { sessionUpdate: "tool_call_update", toolCallId: "toolu_1", status: "failed" });
        send({ id: turn.id, result: { stopReason: "cancelled" } });
      } else if (outcome.optionId === "allow") {
        update(session, { sessionUpdate: "tool_call_update", toolCallId: "toolu_1", status: "completed" });
        textChunk(session, "Created ");
        textChunk(session, "hello.txt.");
        send({ id: turn.id, result: { stopReason: "end_turn" } });
      } else {
        update(session, { sessionUpdate: "tool_call_update", toolCallId: "toolu_1", status: "failed" });
        textChunk(session, "Not allowed.");
        send({ id: turn.id, result: { stopReason: "end_turn" } });
      }
    }
    turn = null;
  }
}

createInterface({ input: process.stdin }).on("line", (line) => onMessage(JSON.parse(line)));
