// An editor built on the official TypeScript ACP library that hosts an MCP server itself, with
// no process and no port (MCP over ACP: an `mcpServers` entry of type `acp`, its messages as
// `mcp/message`), served by the library's own `McpOverAcpProvider`. The server "project-tools"
// offers `echo` (answers "echo: <message>", and says its tool list changed while it runs) and
// `fail` (answers with an MCP error) and `slow` (answers only when withdrawn, after the client
// cancelled the turn it runs in); once the list changed it also offers `later`.
//
// Usage: node mcp_over_acp.mjs path/to/claude-acp   (claude-acp finds claude on PATH)
// Env:   ACP_SESSION_CWD   the session's working directory (required)
//        ACP_PROMPTS       the prompts, one turn each, separated by "|"
//        ACP_TIMEOUT_MS    overall time limit (default 60000)
// Prints "mcp-over-acp: ok <json>" with what the server saw, in order (each request's method and
// tool name, "slow withdrawn" when `slow`'s request was, "turn <stop reason>" as each turn ended)
// and each turn's stop reason; exits 1 with the reason on stderr otherwise.

import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/unstable";

const adapterPath = resolve(process.argv[2] ?? "");
const cwd = process.env.ACP_SESSION_CWD;
const prompts = (process.env.ACP_PROMPTS ?? "").split("|").filter(Boolean);
const timeoutMs = Number(process.env.ACP_TIMEOUT_MS ?? 60000);

function fail(message) {
  process.stderr.write(`mcp-over-acp: FAIL: ${message}\n`);
  process.exit(1);
}
if (!process.argv[2] || !cwd || prompts.length === 0) fail("usage: ACP_SESSION_CWD=… ACP_PROMPTS=… node mcp_over_acp.mjs claude-acp");

const libraryComplaints = [];
const consoleError = console.error.bind(console);
console.error = (...args) => {
  libraryComplaints.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "));
  consoleError(...args);
};

const adapter = spawn(adapterPath, [], { cwd, stdio: ["pipe", "pipe", "inherit"] });
adapter.on("error", (error) => fail(`cannot start ${adapterPath}: ${error.message}`));
const timer = setTimeout(() => {
  adapter.kill("SIGKILL");
  fail(`no result within ${timeoutMs} ms`);
}, timeoutMs);

// What the editor's server was asked, in order.
const served = [];
let listChanged = false;
// Cancels the running turn (set once the session is open).
let cancelTurn = () => {};
const tool = (name, description) => ({
  name,
  description,
  inputSchema: { type: "object", properties: { message: { type: "string" } } },
  // Offered to the model at once rather than behind claude's tool search.
  _meta: { "anthropic/alwaysLoad": true },
});

async function projectTools({ method, params, notify, signal }) {
  served.push(method === "tools/call" ? `tools/call ${params?.name}` : method);
  switch (method) {
    case "server/discover":
      return {
        result: {
          supportedVersions: [acp.MCP_PROTOCOL_VERSION],
          capabilities: { tools: { listChanged: true } },
          serverInfo: { name: "project-tools", version: "1.0.0" },
          resultType: "complete",
        },
      };
    case "tools/list": {
      const tools = [
        tool("echo", "Echoes a message back."),
        tool("fail", "Always fails."),
        tool("slow", "Answers when withdrawn."),
      ];
      if (listChanged) tools.push(tool("later", "Offered once the list changed."));
      return { result: { tools } };
    }
    case "tools/call":
      if (params?.name === "echo") {
        listChanged = true;
        await notify("notifications/tools/list_changed");
        const text = `echo: ${params.arguments?.message ?? ""}`;
        return { result: { content: [{ type: "text", text }], isError: false } };
      }
      if (params?.name === "slow") {
        // Recorded as the withdrawal comes, so its place among the turns' ends shows who withdrew
        // it (the library aborts every handler still running when the connection closes, too).
        const withdrawn = new Promise((resolve) =>
          signal.addEventListener("abort", () => resolve(served.push("slow withdrawn")), { once: true }),
        );
        cancelTurn();
        await withdrawn;
        throw new acp.McpProtocolError(-32800, "withdrawn");
      }
      throw new acp.McpProtocolError(-32001, "the editor's server refused: fail always fails");
    default:
      throw new acp.McpProtocolError(-32601, `Method not found: ${method}`);
  }
}

const mcp = new acp.McpOverAcpProvider();
const app = acp
  .client({ name: "claude-acp-mcp-over-acp-test" })
  .onRequest(acp.methods.client.mcp.message, mcp.handleRequest)
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    const pick = params.options.find((option) => option.kind === "allow_once");
    return { outcome: { outcome: "selected", optionId: pick.optionId } };
  });
const stream = acp.ndJsonStream(Writable.toWeb(adapter.stdin), Readable.toWeb(adapter.stdout));

const result = await app
  .connectWith(stream, async (ctx) => {
    const init = await ctx.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
      clientInfo: { name: "claude-acp-mcp-over-acp-test", version: "0.0.0" },
    });
    if (init.agentCapabilities?.mcpCapabilities?.acp !== true) {
      fail(`the agent does not advertise mcpCapabilities.acp: ${JSON.stringify(init.agentCapabilities)}`);
    }
    const tools = mcp.registerServer(ctx, { name: "project-tools", handler: projectTools });
    const session = await ctx.buildSession(cwd).withMcpServer(tools.declaration).start();
    cancelTurn = () => ctx.notify(acp.methods.agent.session.cancel, { sessionId: session.sessionId });
    const stops = [];
    for (const text of prompts) {
      const turn = session.prompt(text);
      for (;;) {
        const message = await session.nextUpdate();
        if (message.kind === "stop") break;
      }
      const { stopReason } = await turn;
      stops.push(stopReason);
      served.push(`turn ${stopReason}`);
    }
    await ctx.request(acp.methods.agent.session.close, { sessionId: session.sessionId });
    return { stops };
  })
  .catch((error) => fail(`ACP exchange failed: ${error?.stack ?? JSON.stringify(error)}`));

if (libraryComplaints.length > 0) fail(`the ACP library reported: ${libraryComplaints.join(" | ")}`);
adapter.stdin.end();
clearTimeout(timer);
process.stdout.write(`mcp-over-acp: ok ${JSON.stringify({ served, ...result })}\n`);
process.exit(0);
