// check.mjs DIR — runs Skip's own JavaScript client (@skip-go/client, the package wallets use)
// over every /v2/tx/status answer the router's end-to-end tests read, dumped to DIR by
//   go test ./internal/router/e2e -run TestTrackEndToEnd -status-dump DIR
// Each answer is served again, with the Content-Type the router sent, to the client's
// transactionStatus(); what the client makes of it goes through the helpers wallets use to
// render progress (getTransferEventsFromTxStatusResponse, getSimpleOverallStatus). Exits 1 on
// the first answer the client cannot read the way the router meant it.
import http from "node:http";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import {
  getSimpleOverallStatus,
  getTransferEventsFromTxStatusResponse,
  transactionStatus,
} from "@skip-go/client";

const dir = process.argv[2];
if (!dir) {
  console.error("usage: node check.mjs DIR");
  process.exit(2);
}
const files = readdirSync(dir).filter((f) => f.endsWith(".json")).sort();
if (files.length === 0) {
  console.error(`check.mjs: no status answers in ${dir}`);
  process.exit(1);
}

let current;
const server = http.createServer((req, res) => {
  const u = new URL(req.url, "http://localhost");
  const ok = u.pathname === "/v2/tx/status" && u.searchParams.get("tx_hash") === current.tx_hash &&
    u.searchParams.get("chain_id") === current.chain_id;
  if (!ok) {
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ code: 5, message: `unexpected request ${req.url}` }));
    return;
  }
  res.writeHead(200, { "content-type": current.content_type });
  res.end(JSON.stringify(current.body));
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const apiUrl = `http://127.0.0.1:${server.address().port}`;

// The router's detailed states and the client's overall status of each (docs/router-api.md):
// the coarse status is STATE_COMPLETED on every terminal state, so the outcome comes from state.
// Skip's client calls a transfer whose error is known but whose refund is still on its way
// (STATE_PENDING_ERROR, coarse status STATE_PENDING) "failed" already.
const overall = new Set(["STATE_SUBMITTED", "STATE_PENDING", "STATE_PENDING_ERROR", "STATE_COMPLETED_SUCCESS",
  "STATE_COMPLETED_ERROR", "STATE_ABANDONED"]);
const terminalStates = new Set(["STATE_COMPLETED_SUCCESS", "STATE_COMPLETED_ERROR", "STATE_ABANDONED"]);
const simpleOfState = { STATE_COMPLETED_SUCCESS: "success", STATE_COMPLETED_ERROR: "failed", STATE_ABANDONED: "failed",
  STATE_PENDING_ERROR: "failed" };

const failures = [];
const last = new Map(); // test → summary of its last answer
for (const f of files) {
  current = JSON.parse(readFileSync(join(dir, f), "utf8"));
  const fail = (msg) => failures.push(`${f} (${current.test}): ${msg}`);
  let got;
  try {
    got = await transactionStatus({ txHash: current.tx_hash, chainId: current.chain_id, apiUrl });
  } catch (err) {
    fail(`transactionStatus threw: ${err.message}`);
    continue;
  }
  if (typeof got !== "object" || !Array.isArray(got.transfers)) {
    fail(`the client read no transfers: ${JSON.stringify(got).slice(0, 200)}`);
    continue;
  }
  if (!overall.has(got.state)) fail(`state ${got.state} is not one of Skip's`);
  const want = simpleOfState[got.state] ?? "pending";
  const simple = getSimpleOverallStatus(got.state);
  if (simple !== want) fail(`status ${current.body.status} (${got.state}) but the client's overall status is ${simple}, want ${want}`);
  // InterwovenKit stops polling only on status STATE_COMPLETED: every terminal state must say so.
  if (terminalStates.has(got.state) !== (current.body.status === "STATE_COMPLETED")) {
    fail(`state ${got.state} answered with status ${current.body.status}`);
  }
  // Skip's executeRoute ends a route on transfers[0].state, waitForTransaction on state.
  if (terminalStates.has(got.state)) {
    if (got.transfers[0]?.state !== got.state) fail(`terminal, but transfers[0].state is ${got.transfers[0]?.state}, state ${got.state}`);
  }

  const events = getTransferEventsFromTxStatusResponse(got.transfers);
  const hops = current.body.transfers.flatMap((t) => t.transfer_sequence ?? []);
  if (events.length !== hops.length) fail(`${hops.length} hops answered, the client made ${events.length} events`);
  events.forEach((ev, i) => {
    const kind = Object.keys(hops[i] ?? {})[0];
    const camel = kind?.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
    if (ev.transferType !== camel) fail(`hop ${i}: ${kind} read as "${ev.transferType}"`);
    const raw = hops[i][kind];
    // The client reads a send tx from packet_txs (IBC) or txs.send_tx; an OPinit hop names its
    // first tx init_tx, which the client does not look for.
    const send = raw.packet_txs?.send_tx ?? raw.txs?.send_tx;
    if (send?.tx_hash && ev.fromTxHash !== send.tx_hash) fail(`hop ${i}: send tx ${send.tx_hash} read as ${ev.fromTxHash}`);
    if (ev.state !== raw.state) fail(`hop ${i}: state ${raw.state} read as ${ev.state}`);
    if (ev.fromChainId !== undefined && ev.fromChainId !== raw.from_chain_id) fail(`hop ${i}: from_chain_id read as ${ev.fromChainId}`);
  });
  last.set(current.test, `${current.body.status} (${got.state} → ${simple}); hops: ` +
    events.map((ev) => `${ev.transferType} ${ev.fromChainId}→${ev.toChainId} ${ev.state} (${ev.status})`).join(", "));
}
server.close();

for (const [test, summary] of last) console.log(`${test}: ${summary}`);
console.log(`${files.length} status answers from ${last.size} tests read by @skip-go/client; ${failures.length} failures`);
for (const f of failures) console.error(f);
process.exit(failures.length ? 1 : 0);
