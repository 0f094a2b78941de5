// Drives claude-acp with the official TypeScript ACP library's draft v2 client
// (`@agentclientprotocol/sdk/experimental/v2`), as an editor built on it would: initialize asking
// for protocol 2, open a session, prompt, allow the permission the agent asks for, and read the
// turn's text until the session is idle. The library validates every message it takes against v2.
//
// Usage: node client_v2.mjs [path/to/claude-acp]    (or env CLAUDE_ACP_BIN)
// Env:   CLAUDE_PATH       the claude executable passed to claude-acp as --claude-path (required)
//        ACP_SESSION_CWD   the session's working directory (required)
//        ACP_PROMPT        the prompt text (default: "Please create hello.txt")
//        ACP_TIMEOUT_MS    overall time limit (default 60000)
// Prints one line `ok <json>` with what the client saw; exits 1 with the reason otherwise.

import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { Readable, Writable } from "node:stream";
import * as v2 from "@agentclientprotocol/sdk/experimental/v2";

const adapterArg = process.argv[2] ?? process.env.CLAUDE_ACP_BIN;
const claudePath = process.env.CLAUDE_PATH;
const cwd = process.env.ACP_SESSION_CWD;
const promptText = process.env.ACP_PROMPT ?? "Please create hello.txt";
const timeoutMs = Number(process.env.ACP_TIMEOUT_MS ?? 60000);

function fail(message) {
  process.stderr.write(`ts-client-v2: FAIL: ${message}\n`);
  process.exit(1);
}
if (!adapterArg || !claudePath || !cwd) fail("needs the adapter path, CLAUDE_PATH and ACP_SESSION_CWD");

// What the library cannot validate it reports on console.error and drops: here a failure.
const libraryComplaints = [];
const consoleError = console.error.bind(console);
console.error = (...args) => {
  libraryComplaints.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "));
  consoleError(...args);
};

const adapter = spawn(resolve(adapterArg), ["--claude-path", claudePath], {
  cwd,
  stdio: ["pipe", "pipe", "inherit"],
});
adapter.on("error", (error) => fail(`cannot start the adapter: ${error.message}`));
const timer = setTimeout(() => {
  adapter.kill("SIGKILL");
  fail(`no result within ${timeoutMs} ms`);
}, timeoutMs);

const permissionRequests = [];
const app = v2.client({ name: "claude-acp-ts-v2-client-test" }).onRequest(
  "session/request_permission",
  ({ params }) => {
    permissionRequests.push(params);
    const allow = params.options.find((option) => option.kind === "allow_once");
    return allow
      ? { outcome: { outcome: "selected", optionId: allow.optionId } }
      : { outcome: { outcome: "cancelled" } };
  },
);
const stream = v2.ndJsonStream(Writable.toWeb(adapter.stdin), Readable.toWeb(adapter.stdout));

const seen = await app.connectWith(stream, async (ctx) => {
  const init = await ctx.request("initialize", {
    protocolVersion: v2.PROTOCOL_VERSION,
    info: { name: "claude-acp-ts-v2-client-test", version: "0.0.0" },
    capabilities: {},
  });
  const session = await ctx.buildSession(cwd).start();
  const answer = await session.prompt(promptText);
  const text = await session.readTextUntilIdle();
  return { protocolVersion: init.protocolVersion, agent: init.info.name, messageId: answer.messageId, text };
});
clearTimeout(timer);
adapter.stdin.end();
if (libraryComplaints.length > 0) fail(`the library complained: ${libraryComplaints.join(" | ")}`);
const asks = permissionRequests.map((p) => ({ title: p.title, subject: p.subject?.type }));
process.stdout.write(`ts-client-v2: ok ${JSON.stringify({ ...seen, asks })}\n`);
process.exit(0);
