// A third-party MCP client for exo's tests: the official TypeScript SDK's Client (what the MCP
// Inspector and many editors use) drives `exo mcp serve` over stdio. Usage:
//   node ts_client.cjs NODE_MODULES_PARENT EXO_BINARY GUARDED_DIR OUTSIDE_DIR
// It lists the tools, creates a session, runs a command in its sandbox and reads its log; creates
// a session in GUARDED_DIR (whose rules ask before bash) and tries a command there; tries a
// session in OUTSIDE_DIR; and prints one JSON object with what it got.
const { createRequire } = require("node:module");
const path = require("node:path");

const req = createRequire(path.join(process.argv[2], "index.js"));
const { Client } = req("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = req("@modelcontextprotocol/sdk/client/stdio.js");

async function main() {
  const transport = new StdioClientTransport({ command: process.argv[3], args: ["mcp", "serve"], env: process.env, stderr: "inherit" });
  const client = new Client({ name: "ts-sdk-e2e", version: "1.0.0" });
  await client.connect(transport);
  const text = (r) => r.content.map((c) => c.text).join("");
  const tools = await client.listTools();
  const created = JSON.parse(text(await client.callTool({ name: "new_session", arguments: { name: "ts" } })));
  const exec = JSON.parse(text(await client.callTool({ name: "exec", arguments: { session: "ts", command: "echo from-typescript" } })));
  const log = text(await client.callTool({ name: "read_log", arguments: { session: "ts" } }));
  const bad = await client.callTool({ name: "fork_session", arguments: { session: "nobody" } });
  await client.callTool({ name: "new_session", arguments: { name: "guarded", workspace: process.argv[4] } });
  const guarded = await client.callTool({ name: "exec", arguments: { session: "guarded", command: "echo ran > ran.txt" } });
  const outside = await client.callTool({ name: "new_session", arguments: { name: "out", workspace: process.argv[5] } });
  console.log(JSON.stringify({
    server: client.getServerVersion(),
    tools: tools.tools.map((t) => ({ name: t.name, required: t.inputSchema.required || [] })),
    created, exec, log, badIsError: bad.isError === true, badText: text(bad),
    guardedIsError: guarded.isError === true, guardedText: text(guarded),
    outsideIsError: outside.isError === true, outsideText: text(outside),
  }));
  await client.close();
}

main().catch((e) => { console.error(e); process.exit(1); });
