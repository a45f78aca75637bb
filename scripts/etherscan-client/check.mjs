// check.mjs DATA_DIR — reads the Etherscan-compatible /api of `rollgate up`'s EVM rollup with
// ethers v6's EtherscanProvider (pinned in package.json) and compares every answer with the
// chain's own JSON-RPC, read with ethers' JsonRpcProvider: balance, txlist, tokentx, getLogs,
// getblocknobytime. Exits 0 when all agree, 1 when one does not (or setup fails), 2 on bad usage.
//
// EtherscanProvider builds its URLs in getUrl(module, params) (ethers v6
// src.ts/providers/provider-etherscan.ts: https://api.etherscan.io/v2/api?chainid=…); the
// subclass below keeps everything else (fetch, its envelope checks, getBalance) and only
// points that URL at rollgate, as a user of another Etherscan-compatible explorer would.
// getLogs and the account lists are not provider methods in v6, so they go through the
// provider's own fetch(module, params), which applies Etherscan's status/message rules.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { EtherscanPlugin, EtherscanProvider, JsonRpcProvider, Network } from "ethers";

process.on("uncaughtException", (err) => {
  console.error(`FAIL ${err.message}`);
  process.exit(1);
});

const [dataDir] = process.argv.slice(2);
if (!dataDir) {
  console.error("usage: node check.mjs DATA_DIR   (DATA_DIR: the --data-dir of rollgate up)");
  process.exit(2);
}
const endpoints = JSON.parse(readFileSync(join(dataDir, "endpoints.json"), "utf8"));
const [chainId, evm] = Object.entries(endpoints.chains).find(([, c]) => c.kind === "evm") ?? [];
if (!evm?.indexer || !evm?.json_rpc) throw new Error("no EVM rollup with an indexer in endpoints.json");

class RollgateEtherscan extends EtherscanProvider {
  constructor(base, network) {
    super(network);
    this.base = base;
  }
  getUrl(module, params) {
    let q = "";
    for (const [k, v] of Object.entries(params)) {
      if (v != null) q += `&${k}=${encodeURIComponent(v)}`;
    }
    return `${this.base}/api?module=${module}${q}`;
  }
}

const rpc = new JsonRpcProvider(evm.json_rpc);
// EtherscanProvider's constructor accepts only the chain ids Etherscan's v2 API serves, and
// uses the id for nothing but the chainid parameter of the URL getUrl builds (replaced
// below; rollgate ignores chainid). So the provider is given chain id 1 under the rollup's
// name, with an EtherscanPlugin naming rollgate's URL for getBaseUrl.
const network = new Network(chainId, 1);
network.attachPlugin(new EtherscanPlugin(evm.indexer));
const es = new RollgateEtherscan(evm.indexer, network);

// The chain keeps producing blocks: compare everything up to the head seen now, once the
// indexer has indexed it.
const head = await rpc.getBlockNumber();
for (let i = 0; ; i++) {
  const st = await (await fetch(`${evm.indexer}/status`)).json();
  if (Number(st.height) >= head) break;
  if (i > 600) throw new Error(`indexer at ${st.height}, chain head ${head}`);
  await new Promise((r) => setTimeout(r, 100));
}

const txs = [];
const times = new Map();
for (let h = 1; h <= head; h++) {
  const b = await rpc.getBlock(h, true);
  times.set(h, b.timestamp);
  for (const tx of b.prefetchedTransactions) txs.push(tx);
}
const logs = await rpc.getLogs({ fromBlock: 1, toBlock: head });
const TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
const erc20 = logs.filter((l) => l.topics.length === 3 && l.topics[0] === TRANSFER);

const lc = (s) => (s ?? "").toLowerCase();
const bySender = new Map();
for (const tx of txs) bySender.set(lc(tx.from), (bySender.get(lc(tx.from)) ?? 0) + 1);
const accounts = [...bySender.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 5).map(([a]) => a);

let failed = 0;
const report = (what, ok, detail) => {
  console.log(`${ok ? "OK  " : "FAIL"} ${what}${detail ? ": " + detail : ""}`);
  if (!ok) failed++;
};

for (const a of accounts) {
  // Balances move with every block: the indexer's answer must equal the chain's read just
  // before or just after it.
  const before = await rpc.getBalance(a);
  const got = await es.getBalance(a);
  const after = await rpc.getBalance(a);
  report(`balance ${a}`, got === before || got === after, `${got} (chain ${before}…${after})`);

  const want = txs.filter((t) => lc(t.from) === a || lc(t.to) === a);
  const list = await es.fetch("account", { action: "txlist", address: a, startblock: 0, endblock: head, sort: "asc" });
  const same = list.length === want.length && want.every((w, i) =>
    list[i].hash === w.hash && lc(list[i].from) === lc(w.from) && lc(list[i].to) === lc(w.to) &&
    list[i].value === w.value.toString() && list[i].nonce === String(w.nonce) && Number(list[i].blockNumber) === w.blockNumber);
  report(`txlist ${a}`, same, `${list.length} txs (chain ${want.length})`);

  const pad = "0x000000000000000000000000" + a.slice(2);
  const wantT = erc20.filter((l) => l.topics[1] === pad || l.topics[2] === pad);
  const gotT = await es.fetch("account", { action: "tokentx", address: a, startblock: 0, endblock: head, sort: "asc" });
  const sameT = gotT.length === wantT.length && wantT.every((w, i) =>
    gotT[i].hash === w.transactionHash && gotT[i].contractAddress === lc(w.address) &&
    gotT[i].value === BigInt(w.data).toString() && gotT[i].from === "0x" + w.topics[1].slice(26) && gotT[i].to === "0x" + w.topics[2].slice(26));
  report(`tokentx ${a}`, sameT, `${gotT.length} transfers (chain ${wantT.length})`);
}

const count = new Map();
for (const l of logs) count.set(lc(l.address), (count.get(lc(l.address)) ?? 0) + 1);
const busiest = [...count.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0];
if (busiest) {
  const wantL = logs.filter((l) => lc(l.address) === busiest);
  const gotL = await es.fetch("logs", { action: "getLogs", address: busiest, fromBlock: 1, toBlock: head });
  const sameL = gotL.length === Math.min(wantL.length, 1000) && gotL.every((g, i) =>
    g.transactionHash === wantL[i].transactionHash && Number(g.logIndex) === wantL[i].index && g.data === wantL[i].data &&
    g.topics.join() === wantL[i].topics.join() && Number(g.timeStamp) === times.get(wantL[i].blockNumber));
  report(`getLogs ${busiest}`, sameL, `${gotL.length} logs (chain ${wantL.length})`);
}

for (let h = 1; h <= head; h += Math.max(1, Math.floor(head / 10))) {
  const ts = times.get(h);
  let want = 0;
  for (const [k, t] of times) if (t <= ts && k > want) want = k;
  const got = await es.fetch("block", { action: "getblocknobytime", timestamp: ts, closest: "before" });
  report(`getblocknobytime ${ts}`, got === String(want), `block ${got} (chain ${want})`);
}

console.log(`${failed === 0 ? "all agree" : failed + " disagree"}: chain ${chainId} up to block ${head}, ${txs.length} txs, ${erc20.length} ERC-20 transfers, ${logs.length} logs`);
process.exit(failed === 0 ? 0 : 1);
