// Drives claude-acp with the official TypeScript ACP client library, as an editor built on it
// would: initialize, open a session, prompt, answer the permissions the agent asks for (and, given
// a buffer, serve fs/* from it), and check what the user would see (streamed text, a tool call
// card, the stop reason).
//
// Usage: node client.mjs [path/to/claude-acp]    (or env CLAUDE_ACP_BIN)
// Env:   CLAUDE_PATH       the claude executable passed to claude-acp as --claude-path (required)
//        ACP_SESSION_CWD   the session's working directory (default: a fresh temporary directory)
//        ACP_PROMPT        the prompt text (default: "Please create hello.txt")
//        ACP_TIMEOUT_MS    overall time limit (default 60000)
//        ACP_PERMISSIONS   the option kind picked for each permission ask in turn, comma-separated
//                          (the last one repeats; default "allow_once")
//        ACP_EXPECT_ASKS   how many permission asks the turn must bring (default 1)
//        ACP_TERMINALS     when set, JSON {"<command>": ["<output>", <exit code>]}: the client declares
//                          terminal and serves terminal/* from it for `bash -c <command>` (other
//                          commands: an error); the ok line then ends with the terminals it created
//                          and released, as JSON
//        ACP_BUFFER_PATH   when set, the client declares fs.readTextFile/writeTextFile and serves
//        ACP_BUFFER_TEXT   this one buffer from memory (other paths: "no buffer" error); the ok
//                          line then ends with every fs/write_text_file as JSON
//        ACP_QUEUE_STEER   when set, the turn is three messages: the prompt "prompt one"; once its
//                          first text streams, "prompt two" sent while it runs (queued, as
//                          promptQueueing allows) and a steer "keep it short" (`_session/steering`,
//                          which must answer "injected"); both prompts must end `end_turn`, the first
//                          answered first, and the ok line then ends with the answers' order as JSON
// Exits 0 when every check passes; otherwise prints why on stderr and exits 1.

import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const adapterArg = process.argv[2] ?? process.env.CLAUDE_ACP_BIN;
const claudePath = process.env.CLAUDE_PATH;
const cwd = process.env.ACP_SESSION_CWD ?? mkdtempSync(join(tmpdir(), "ts-client-"));
const promptText = process.env.ACP_PROMPT ?? "Please create hello.txt";
const timeoutMs = Number(process.env.ACP_TIMEOUT_MS ?? 60000);
const permissionKinds = (process.env.ACP_PERMISSIONS ?? "allow_once").split(",");
const bufferPath = process.env.ACP_BUFFER_PATH;
const buffers = new Map(bufferPath ? [[bufferPath, process.env.ACP_BUFFER_TEXT ?? ""]] : []);
const writes = [];
const queueSteer = Boolean(process.env.ACP_QUEUE_STEER);
const scriptedCommands = process.env.ACP_TERMINALS ? JSON.parse(process.env.ACP_TERMINALS) : null;
const terminals = new Map();
const terminalLog = { created: [], released: [] };
const terminalOf = (id) => {
  if (!terminals.has(id)) throw acp.RequestError.resourceNotFound(id);
  return terminals.get(id);
};

function fail(message) {
  process.stderr.write(`ts-client: FAIL: ${message}\n`);
  process.exit(1);
}

if (!adapterArg) fail("no claude-acp path: pass it as the first argument or set CLAUDE_ACP_BIN");
// The adapter runs in the session directory, so a relative path must be resolved here.
const adapterPath = resolve(adapterArg);
if (!claudePath) fail("CLAUDE_PATH is not set (the claude executable for --claude-path)");

// The library reports messages it could not validate or handle on console.error and carries on;
// an editor would silently lose them, so here each one is a failure.
const libraryComplaints = [];
const consoleError = console.error.bind(console);
console.error = (...args) => {
  libraryComplaints.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "));
  consoleError(...args);
};

const adapter = spawn(adapterPath, ["--claude-path", claudePath], {
  cwd,
  stdio: ["pipe", "pipe", "inherit"],
});
adapter.on("error", (error) => fail(`cannot start ${adapterPath}: ${error.message}`));
const exited = new Promise((resolve) => adapter.on("exit", (code, signal) => resolve({ code, signal })));

const timer = setTimeout(() => {
  adapter.kill("SIGKILL");
  fail(`no result within ${timeoutMs} ms`);
}, timeoutMs);

const permissionRequests = [];
const app = acp
  .client({ name: "claude-acp-ts-client-test" })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    const kind = permissionKinds[Math.min(permissionRequests.length, permissionKinds.length - 1)];
    permissionRequests.push(params);
    const pick = params.options.find((option) => option.kind === kind);
    if (!pick) {
      return { outcome: { outcome: "cancelled" } };
    }
    return { outcome: { outcome: "selected", optionId: pick.optionId } };
  })
  .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
    if (!buffers.has(params.path)) {
      throw acp.RequestError.resourceNotFound(params.path);
    }
    return { content: buffers.get(params.path) };
  })
  .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
    writes.push({ path: params.path, content: params.content });
    buffers.set(params.path, params.content);
    return {};
  })
  .onRequest(acp.methods.client.terminal.create, ({ params }) => {
    const args = params.args ?? [];
    const command = params.command === "bash" && args[0] === "-c" ? args[1] : undefined;
    if (!scriptedCommands || !(command in scriptedCommands)) {
      throw acp.RequestError.invalidParams(params, `no scripted command ${JSON.stringify(params)}`);
    }
    const terminalId = `term-${terminalLog.created.length + 1}`;
    terminalLog.created.push({ command, cwd: params.cwd });
    const [output, exitCode] = scriptedCommands[command];
    terminals.set(terminalId, { output, exitStatus: { exitCode, signal: null } });
    return { terminalId };
  })
  .onRequest(acp.methods.client.terminal.output, ({ params }) => {
    const terminal = terminalOf(params.terminalId);
    return { output: terminal.output, truncated: false, exitStatus: terminal.exitStatus };
  })
  .onRequest(acp.methods.client.terminal.waitForExit, ({ params }) => terminalOf(params.terminalId).exitStatus)
  .onRequest(acp.methods.client.terminal.kill, ({ params }) => {
    terminalOf(params.terminalId).exitStatus = { exitCode: null, signal: "SIGKILL" };
    return {};
  })
  .onRequest(acp.methods.client.terminal.release, ({ params }) => {
    terminals.delete(params.terminalId);
    terminalLog.released.push(params.terminalId);
    return {};
  });

// The library answers a non-JSON line with a parse error and goes on; stdout of the agent must be
// the protocol only, so such lines are recorded on the way in.
const nonJsonLines = [];
let partialLine = "";
const decoder = new TextDecoder();
const lineCheck = new TransformStream({
  transform(chunk, controller) {
    const lines = (partialLine + decoder.decode(chunk, { stream: true })).split("\n");
    partialLine = lines.pop();
    for (const line of lines) {
      try {
        if (line.trim()) JSON.parse(line);
      } catch {
        nonJsonLines.push(line);
      }
    }
    controller.enqueue(chunk);
  },
});
const stream = acp.ndJsonStream(
  Writable.toWeb(adapter.stdin),
  Readable.toWeb(adapter.stdout).pipeThrough(lineCheck),
);

// A prompt queued behind a running one and a steer into it, as an editor that lets its user type
// while the agent works sends them; the requests go out as the library's generic requests.
const answerOrder = [];
let steerOutcome;
async function queueAndSteer(ctx, session) {
  const prompt = (text) =>
    ctx
      .request(acp.methods.agent.session.prompt, {
        sessionId: session.sessionId,
        prompt: [{ type: "text", text }],
      })
      .then((answer) => {
        answerOrder.push(text);
        return answer;
      });
  const first = prompt("prompt one");
  const updates = [];
  for (;;) {
    const message = await session.nextUpdate();
    if (message.kind === "stop") fail("the session stopped before the first prompt streamed");
    updates.push(message.update);
    if (message.update.sessionUpdate === "agent_message_chunk") break;
  }
  const second = prompt("prompt two");
  const steer = await ctx.request("_session/steering", {
    sessionId: session.sessionId,
    prompt: [{ type: "text", text: "keep it short" }],
  });
  steerOutcome = steer.outcome;
  const [one, two] = await Promise.all([first, second]);
  if (two.stopReason !== "end_turn") fail(`the queued prompt ended ${JSON.stringify(two.stopReason)}`);
  return { updates, response: one };
}

const { init, updates, response, sessionId } = await app
  .connectWith(stream, async (ctx) => {
    const init = await ctx.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {
        fs: { readTextFile: Boolean(bufferPath), writeTextFile: Boolean(bufferPath) },
        terminal: Boolean(scriptedCommands),
      },
      clientInfo: { name: "claude-acp-ts-client-test", version: "0.0.0" },
    });
    const session = await ctx.buildSession(cwd).start();
    if (queueSteer) return { init, ...(await queueAndSteer(ctx, session)), sessionId: session.sessionId };
    const turn = session.prompt(promptText);
    const updates = [];
    for (;;) {
      const message = await session.nextUpdate();
      if (message.kind === "stop") break;
      updates.push(message.update);
    }
    return { init, updates, response: await turn, sessionId: session.sessionId };
  })
  .catch(async (error) => {
    const gone = await Promise.race([exited, new Promise((r) => setTimeout(() => r(null), 500))]);
    const state = gone ? `claude-acp exited (code ${gone.code}, signal ${gone.signal})` : "claude-acp still running";
    fail(`ACP exchange failed; ${state}: ${error?.stack ?? JSON.stringify(error)}`);
  });

const problems = [];
const check = (ok, what) => {
  if (!ok) problems.push(what);
};

check(init.protocolVersion === 1, `initialize answered protocolVersion ${init.protocolVersion}, want 1`);
check(typeof sessionId === "string" && sessionId.length > 0, "session/new gave no session id");
check(response.stopReason === "end_turn", `stop reason ${JSON.stringify(response.stopReason)}, want "end_turn"`);

const text = updates
  .filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text")
  .map((u) => u.content.text)
  .join("");
check(text.trim().length > 0, "no agent_message_chunk text was streamed");

const toolCalls = updates.filter((u) => u.sessionUpdate === "tool_call");
if (queueSteer) {
  check(steerOutcome === "injected", `the steer answered ${JSON.stringify(steerOutcome)}, want "injected"`);
  check(
    JSON.stringify(answerOrder) === JSON.stringify(["prompt one", "prompt two"]),
    `prompts answered in the order ${JSON.stringify(answerOrder)}`,
  );
} else {
  check(toolCalls.length > 0, "no tool_call update was streamed");
}

const wantAsks = Number(process.env.ACP_EXPECT_ASKS ?? (queueSteer ? 0 : 1));
check(
  permissionRequests.length === wantAsks,
  `${permissionRequests.length} permission requests, want ${wantAsks}`,
);
for (const asked of permissionRequests) {
  const id = asked.toolCall.toolCallId;
  check(asked.sessionId === sessionId, `permission request for session ${asked.sessionId}, want ${sessionId}`);
  check(
    toolCalls.some((call) => call.toolCallId === id),
    `permission asked for tool call ${id}, which no tool_call update announced`,
  );
}
check(nonJsonLines.length === 0, `claude-acp printed non-JSON on stdout: ${JSON.stringify(nonJsonLines)}`);
check(libraryComplaints.length === 0, `the ACP library reported: ${libraryComplaints.join(" | ")}`);

// An editor closes the agent's stdin when it is done; the agent must then exit by itself.
adapter.stdin.end();
const exitWait = new Promise((resolve) => setTimeout(() => resolve(null), 10000));
const exit = await Promise.race([exited, exitWait]);
if (exit === null) {
  adapter.kill("SIGKILL");
  check(false, "claude-acp was still running 10 s after its stdin closed");
}
clearTimeout(timer);

if (problems.length > 0) {
  fail(`${problems.join("\n  ")}\nupdates seen: ${JSON.stringify(updates)}`);
}
process.stdout.write(
  `ts-client: ok: ${updates.length} updates, ${toolCalls.length} tool call(s), text ${JSON.stringify(text)}` +
    (bufferPath ? `, writes ${JSON.stringify(writes)}` : "") +
    (scriptedCommands ? `, terminals ${JSON.stringify(terminalLog)}` : "") +
    (queueSteer ? `, answered ${JSON.stringify(answerOrder)}` : "") +
    "\n",
);
process.exit(0);
