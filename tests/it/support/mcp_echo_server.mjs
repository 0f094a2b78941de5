// A tiny MCP server on stdio for tests: one tool, `echo {text}`, answering "echo: <text>".
//
// JSON-RPC 2.0, one message per line. claude 2.1.332 first probes `server/discover` (answered
// method-not-found, as it expects), then sends initialize, notifications/initialized, tools/list.
// If env ECHO_MCP_LOG names a file, each received method is appended to it (one per line), so a
// test can tell that the editor's env reached the server and that the tool was really called.
//
// With env ECHO_MCP_ELICIT set, a second tool `ask {mode}` asks the user through MCP elicitation
// (`elicitation/create`: a form for a name, or with mode "url" a page to open), waits for the
// answer, logs it as `elicitation-result <json>` and returns it as the tool's text.
//
// Node, not Python: the tests run where npm (and so node) is, and nothing else is assumed.
import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";

const TOOL = {
  name: "echo",
  description: "Echoes the given text back.",
  inputSchema: {
    type: "object",
    properties: { text: { type: "string", description: "What to echo" } },
    required: ["text"],
  },
};

const ASK = {
  name: "ask",
  description: "Asks the user for their name.",
  inputSchema: {
    type: "object",
    properties: { mode: { type: "string", description: "form or url" } },
  },
};

const FORM = {
  mode: "form",
  message: "What is your name?",
  requestedSchema: {
    type: "object",
    properties: { name: { type: "string", title: "Name" } },
    required: ["name"],
  },
};

const URL = {
  mode: "url",
  message: "Sign in to the echo service",
  url: "https://example.com/echo-login",
  elicitationId: "echo-login-1",
};

function log(line) {
  const path = process.env.ECHO_MCP_LOG;
  if (path) appendFileSync(path, line + "\n");
}

// JSON with its object keys sorted, so a logged value reads the same every run.
function sorted(value) {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sorted(value[k])]),
    );
  }
  return value;
}

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

// The answer to our one elicitation, when it comes.
let elicited = null;

function elicit(params) {
  return new Promise((resolve) => {
    elicited = resolve;
    send({ jsonrpc: "2.0", id: "elicit-1", method: "elicitation/create", params });
  });
}

async function answer(message) {
  const method = message.method ?? "";
  const params = message.params ?? {};
  const args = params.arguments ?? {};
  if (method === "initialize") {
    return {
      result: {
        protocolVersion: params.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "echo", version: "1.0.0" },
      },
    };
  }
  if (method === "ping") return { result: {} };
  if (method === "tools/list") {
    return { result: { tools: process.env.ECHO_MCP_ELICIT ? [TOOL, ASK] : [TOOL] } };
  }
  if (method === "tools/call" && params.name === "ask") {
    const result = await elicit(args.mode === "url" ? URL : FORM);
    log("elicitation-result " + JSON.stringify(sorted(result)));
    return { result: { content: [{ type: "text", text: "answer: " + JSON.stringify(result) }] } };
  }
  if (method === "tools/call" && params.name === "echo") {
    return { result: { content: [{ type: "text", text: "echo: " + (args.text ?? "") }] } };
  }
  return { error: { code: -32601, message: "method not found: " + method } };
}

async function handle(message) {
  if (message.id === "elicit-1" && message.method === undefined && elicited) {
    const resolve = elicited;
    elicited = null;
    log("<response>");
    resolve(message.result ?? { error: message.error });
    return;
  }
  log(message.method ?? "<response>");
  if (message.method === "initialize") {
    log("client-capabilities " + JSON.stringify(sorted(message.params?.capabilities ?? {})));
  }
  if (message.id === undefined || message.method === undefined) return;
  send({ jsonrpc: "2.0", id: message.id, ...(await answer(message)) });
}

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (!line.trim()) return;
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  // Not awaited: a tool waiting on the user's answer must not hold up the messages after it.
  handle(message);
});
lines.on("close", () => {
  if (elicited) elicited({ error: "stdin closed" });
});
