// check.mjs DATA_DIR [AMOUNT] — a wallet built on the official Initia SDK (@initia/initia.js,
// pinned in package.json) moves INIT from the L1 to every rollup of `rollgate up` through the
// router, as an initia.js user does: route, (op hook), msgs, sign, broadcast, track, status;
// then, when `up` runs the Ethereum chain, USDT from the L1 to Ethereum over LayerZero (the
// Move OFT's MsgExecute send_withdraw, tracked to the OFT's receive on Ethereum).
//
// The key is the SDK's default for the mnemonic `rollgate up` prints: new MnemonicKey({mnemonic})
// (coin type 60, eth_secp256k1), txs signed by the SDK's Wallet (SIGN_MODE_DIRECT unless told).
// The router is called with the request shapes of initia.js v2's RouterClient
// (initia-labs/initia.js@a60dc6b:src/bridge/router-client.ts): no published version of the
// package ships that client (npm's latest is 1.1.0, the v2 branch is 2.0.0-rc.7, unpublished), so
// its bodies, headers and decoding are reproduced here and everything chain-side is the SDK's.
// Paths cited below without a repository are in initia-labs/initia.js@a60dc6b (branch v2).
// A transfer that fails is reported with its step and the next one is tried; exits 1 if any
// failed or the setup did, 2 on bad usage.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  AccAddress,
  AuthInfo,
  Coins,
  Fee,
  MnemonicKey,
  Msg,
  RESTClient,
  SignDoc,
  SignMode,
  Tx,
  TxBody,
} from "@initia/initia.js";

// A setup step that throws (router or chain unreachable): one line, exit 1.
process.on("uncaughtException", (err) => {
  console.error(`FAIL ${err.message}`);
  process.exit(1);
});

const [dataDir, amountArg] = process.argv.slice(2);
if (!dataDir) {
  console.error("usage: node check.mjs DATA_DIR [AMOUNT]   (DATA_DIR: the --data-dir of rollgate up)");
  process.exit(2);
}
const amount = amountArg ?? "1000000";
if (!/^[1-9][0-9]*$/.test(amount)) {
  console.error(`check.mjs: AMOUNT must be a positive integer in base units, got ${amount}`);
  process.exit(2);
}

// The devnet serves no /cosmos/tx/v1beta1/simulate, which the SDK's fee estimation calls, so the
// gas limit is given (the one `rollgate transfer` signs with); the price is the router's average
// for the chain's fee asset, which InterwovenKit reads for fees
// (initia-labs/interwovenkit@913e480:packages/interwovenkit-react/src/pages/bridge/data/tx.ts:150-167).
const GAS_LIMIT = 2_000_000;
// initia.js v2 sends this constant on every router call (router-client.ts:32,284-286).
const INTERWOVENKIT_VERSION = "2.4.6";
// initia.js v2 types `state` with Skip's values (src/bridge/types.ts:219-262); these end a transfer.
const TERMINAL = new Set(["STATE_COMPLETED_SUCCESS", "STATE_COMPLETED_ERROR", "STATE_ABANDONED"]);
const STATUS_TIMEOUT_MS = 180_000;

const endpoints = JSON.parse(readFileSync(join(dataDir, "endpoints.json"), "utf8"));
const mnemonic = endpoints.accounts?.mnemonic;
if (!mnemonic) fail(`${dataDir}/endpoints.json has no accounts.mnemonic`);
const routerUrl = endpoints.router.replace(/\/+$/, "");
const chainIds = Object.keys(endpoints.chains).sort();
const l1 = chainIds.find((id) => endpoints.chains[id].kind === "l1");
const rollups = chainIds.filter((id) => ["evm", "move", "wasm"].includes(endpoints.chains[id].kind));
if (!l1 || rollups.length === 0) fail(`${dataDir}/endpoints.json names no L1 or no rollup`);

const key = new MnemonicKey({ mnemonic });
const sdkVersion = JSON.parse(readFileSync(new URL("./node_modules/@initia/initia.js/package.json", import.meta.url), "utf8")).version;
const rest = Object.fromEntries(chainIds.map((id) => [id, new RESTClient(endpoints.chains[id].rest, { chainId: id })]));

function fail(msg) {
  console.error(`FAIL ${msg}`);
  process.exit(1);
}
// A failed step of one transfer: reported, and the next transfer is tried.
function bad(msg) {
  throw new Error(msg);
}
function step(msg) {
  console.log(`  ${msg}`);
}

// --- the router, called as initia.js v2's RouterClient calls it ---

async function router(method, path, body) {
  const headers = { "InterwovenKit-Version": INTERWOVENKIT_VERSION };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(routerUrl + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  if (!res.ok) {
    let detail = "";
    try {
      const b = await res.json();
      if (b.message) detail = `: ${b.message}`;
    } catch {
      /* the client ignores a body it cannot parse */
    }
    throw new Error(`Router API ${path} failed (${res.status})${detail}`);
  }
  return res.json();
}

// Router msgs are proto3 JSON strings; initia.js 1.1.0 reads proto3 JSON through Msg.fromData
// (the "@type" form its REST client uses). v2 decodes strictly (protobuf-es fromJson rejects an
// unknown field); fromData would drop one silently, so every field the router sent must come
// back from the decoded msg unchanged.
function decodeMsg({ msg_type_url: typeUrl, msg }) {
  if (!msg.startsWith("{")) bad(`${typeUrl}: msg is not JSON (initia.js v2 would read it as base64 proto)`);
  const json = JSON.parse(msg);
  // proto3 JSON lets a field be null, meaning its default, which v2's fromJson accepts; 1.1.0's
  // fromData maps over list fields unguarded, so a null goes to it as absent or else as [].
  const nulls = Object.keys(json).filter((k) => json[k] === null);
  const without = Object.fromEntries(Object.entries(json).filter(([, v]) => v !== null));
  let m;
  try {
    m = Msg.fromData({ "@type": typeUrl, ...without });
  } catch (err) {
    try {
      if (nulls.length === 0) throw err;
      m = Msg.fromData({ "@type": typeUrl, ...without, ...Object.fromEntries(nulls.map((k) => [k, []])) });
    } catch {
      bad(`${typeUrl}: the SDK cannot decode the router's msg: ${err.message}`);
    }
  }
  const back = m.toData();
  for (const [k, v] of Object.entries(json)) {
    if (isDefault(v) && isDefault(back[k])) continue; // proto3: a default value and no value are one encoding
    if (canonical(back[k]) !== canonical(v)) {
      bad(`${typeUrl}: field ${k} is ${canonical(v)} in the router's msg, ${canonical(back[k])} once decoded`);
    }
  }
  return m;
}

// The sign mode the SDK wrote into the tx's signer info.
function signModeOf(tx) {
  const mode = tx.auth_info.signer_infos[0]?.toData().mode_info?.single?.mode;
  return typeof mode === "number" ? SignMode[mode] : String(mode);
}

function isDefault(v) {
  return v === undefined || v === null || v === "" || v === false || (Array.isArray(v) && v.length === 0);
}

// JSON with object keys sorted: field order carries no meaning in proto3 JSON.
function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(",")}}`;
  }
  return JSON.stringify(v);
}

function feeFor(chain) {
  const fa = chain.fee_assets?.[0];
  const price = Number(fa?.gas_price?.average ?? 0);
  // A zero coin is an invalid fee amount: no price, no fee coin.
  const coins = price > 0 ? new Coins({ [fa.denom]: Math.ceil(price * GAS_LIMIT) }) : new Coins();
  return new Fee(GAS_LIMIT, coins);
}

async function accountOn(chainId) {
  try {
    const acc = await rest[chainId].auth.accountInfo(key.accAddress);
    return { accountNumber: acc.getAccountNumber(), sequence: acc.getSequenceNumber() };
  } catch (err) {
    if (err.response?.status === 404) return undefined;
    throw err;
  }
}

async function balance(chainId, denom) {
  const [coins] = await rest[chainId].bank.balance(key.accAddress);
  return BigInt(coins.get(denom)?.amount.toString() ?? "0");
}

// initia.js v2's Bridge.signOpHook (src/bridge/bridge.ts:189-315): the hook msgs as a tx on the
// hook's chain, fee [] and gas 0, the account's number and sequence there (0/0 if it does not
// exist yet), the sequence advanced by 2 when the hook runs on the route's source chain, and
// EIP-191 (v2's default for a key that can sign personal messages). EIP-191 signs the amino JSON;
// initia.js 1.1.0's amino JSON leaves out fields the chain's keeps (MsgCall's empty access_list:
// minievm marks it amino.dont_omitempty, initia-labs/minievm@3470dff:proto/minievm/evm/v1/tx.proto),
// and a signature over other bytes cannot verify. Where that is so the hook is signed
// SIGN_MODE_DIRECT, which v2 offers as signOpHook's signMode option, and the step says why.
async function signOpHook(hookResult, sourceChainId) {
  const msgs = hookResult.hook.map(decodeMsg);
  const acc = (await accountOn(hookResult.chain_id)) ?? { accountNumber: 0, sequence: 0 };
  const sequence = acc.sequence + (sourceChainId === hookResult.chain_id ? 2 : 0);
  const fee = new Fee(0, new Coins());
  const body = new TxBody(msgs, "", 0);
  const amino = JSON.parse(new SignDoc(hookResult.chain_id, acc.accountNumber, sequence, new AuthInfo([], fee), body).toAminoJSON());
  const dropped = [...new Set(hookResult.hook.flatMap((h, i) =>
    Object.keys(JSON.parse(h.msg)).filter((k) => !(k in amino.msgs[i].value)).map((k) => `${h.msg_type_url}.${k}`)))];
  const signMode = dropped.length ? SignMode.SIGN_MODE_DIRECT : SignMode.SIGN_MODE_EIP_191;
  const signed = await key.signTx(new Tx(body, new AuthInfo([], fee), []), {
    accountNumber: acc.accountNumber,
    sequence,
    chainId: hookResult.chain_id,
    signMode,
  });
  const why = dropped.length ? ` (initia.js ${sdkVersion}'s amino JSON omits ${dropped.join(", ")}: no EIP-191)` : "";
  return {
    signed: { hook: Buffer.from(signed.toBytes()).toString("base64"), signer: key.accAddress },
    how: `${SignMode[signMode]}, account ${acc.accountNumber} sequence ${sequence}${why}`,
  };
}

// --- one transfer ---

// msgsFor asks /v2/fungible/msgs for the route's txs: the route's own amounts, assets and
// operations, the address on each chain it requires, 1% slippage, and the members of extra.
async function msgsFor(route, addressList, extra = {}) {
  return router("POST", "/v2/fungible/msgs", {
    amount_in: route.amount_in,
    amount_out: route.amount_out,
    source_asset_chain_id: route.source_asset_chain_id,
    source_asset_denom: route.source_asset_denom,
    dest_asset_chain_id: route.dest_asset_chain_id,
    dest_asset_denom: route.dest_asset_denom,
    address_list: addressList,
    operations: route.operations,
    slippage_tolerance_percent: "1",
    ...extra,
  });
}

// untilTerminal polls /v2/tx/status for the tx until its state is terminal, printing each line
// describe(raw) gives when it differs from the one before; an end other than success, or none
// within STATUS_TIMEOUT_MS, fails the transfer.
async function untilTerminal(txHash, chainId, describe) {
  const started = Date.now();
  let last = "";
  for (;;) {
    const params = new URLSearchParams({ tx_hash: txHash, chain_id: chainId });
    const raw = await router("GET", `/v2/tx/status?${params}`);
    const line = describe(raw);
    if (line !== last) step(line);
    last = line;
    if (TERMINAL.has(raw.state)) {
      if (raw.state !== "STATE_COMPLETED_SUCCESS") bad(`transfer ended ${raw.state}: ${JSON.stringify(raw.error ?? null)}`);
      return;
    }
    if (Date.now() - started > STATUS_TIMEOUT_MS) bad(`no terminal state after ${STATUS_TIMEOUT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

// oneOf is a Skip transfer_sequence hop's one-of: its kind (the key of its one object) and body.
function oneOf(hop) {
  return Object.entries(hop).find(([, v]) => typeof v === "object") ?? ["?", {}];
}

async function transfer(chains, dest, at) {
  const src = { chainId: l1, denom: "uinit" };
  console.log(`\n${src.chainId} ${src.denom} → ${dest.chainId} ${dest.denom} (${dest.symbol ?? "?"}, ${dest.decimals ?? "?"} decimals), ${amount}`);
  const before = await balance(dest.chainId, dest.denom);
  // The hook's toLocal converts min(allowance, balance) of the bridged coin
  // (initia-labs/minievm@3470dff:x/evm/contracts/erc20_wrapper/ERC20Wrapper.sol), so bridged INIT
  // the signer already holds on the rollup is wrapped along with the deposit.
  const heldBefore = dest.bridged ? await balance(dest.chainId, dest.bridged.denom) : 0n;

  at.step = "route";
  const route = await router("POST", "/v2/fungible/route", {
    amount_in: amount,
    source_asset_chain_id: src.chainId,
    source_asset_denom: src.denom,
    dest_asset_chain_id: dest.chainId,
    dest_asset_denom: dest.denom,
    allow_unsafe: undefined,
    go_fast: undefined,
    is_op_withdraw: undefined,
  });
  const ops = route.operations.map((o) => o.type ?? o.op_type ?? Object.keys(o).find((k) => typeof o[k] === "object"));
  // The display fields initia.js v2 reads (router-client.ts:56-83), printed as it would get them.
  step(`route    ${route.amount_in} ${route.source_asset_symbol ?? "(no source_asset_symbol)"} → ${route.amount_out} ` +
    `${route.dest_asset_symbol ?? "(no dest_asset_symbol)"}, operations [${ops.join(", ")}], ` +
    `estimated_duration_seconds ${route.estimated_duration_seconds ?? "(absent)"}, required_op_hook ${route.required_op_hook ?? false}`);

  let signedOpHook;
  if (route.required_op_hook) {
    at.step = "op-hook";
    const hookResult = await router("POST", "/op-hook", {
      source_address: key.accAddress,
      source_asset_chain_id: src.chainId,
      source_asset_denom: src.denom,
      dest_address: key.accAddress,
      dest_asset_chain_id: dest.chainId,
      dest_asset_denom: dest.denom,
    });
    const { signed, how } = await signOpHook(hookResult, src.chainId);
    signedOpHook = signed;
    step(`op-hook  ${hookResult.hook.length} msg(s) [${hookResult.hook.map((h) => h.msg_type_url).join(", ")}] on ${hookResult.chain_id}, signed ${how}`);
  }

  // initia.js v2's example passes the key's address for every chain (examples/smart-route.ts:163):
  // one init1… address on the Initia chains.
  at.step = "msgs";
  const addressList = route.required_chain_addresses.map((id) => {
    const c = chains.get(id);
    if (c?.bech32_prefix && c.bech32_prefix !== "init") bad(`route needs an address on ${id} (${c.bech32_prefix}), not an Initia chain`);
    return key.accAddress;
  });
  const { txs } = await msgsFor(route, addressList, { signed_op_hook: signedOpHook, ignore_blacklist: undefined });
  if (!txs?.length) bad("the router returned no txs");
  step(`msgs     ${txs.length} tx(s): ${txs.map((t) => `${t.chain_id ?? t.cosmos_tx?.chain_id} [${(t.cosmos_tx?.msgs ?? []).map((m) => m.msg_type_url).join(", ")}]`).join("; ")}`);

  let first;
  for (const t of txs) {
    const chainId = t.chain_id ?? t.cosmos_tx?.chain_id ?? t.evm_tx?.chain_id;
    if (!t.cosmos_tx) bad(`tx on ${chainId} is not a cosmos_tx`);
    at.step = "sign";
    const msgs = t.cosmos_tx.msgs.map(decodeMsg);
    const wallet = rest[chainId].wallet(key);
    const signed = await wallet.createAndSignTx({ msgs, fee: feeFor(chains.get(chainId)), memo: "" });
    step(`sign     ${chainId} as ${key.accAddress}, ${signModeOf(signed)}`);
    at.step = "broadcast";
    const res = await rest[chainId].tx.broadcast(signed);
    if (res.code) bad(`broadcast on ${chainId}: code ${res.code} ${res.raw_log}`);
    step(`broadcast ${res.txhash} in block ${res.height}`);
    first ??= { hash: res.txhash, chainId };
  }

  at.step = "track";
  await router("POST", "/v2/tx/track", { tx_hash: first.hash, chain_id: first.chainId });
  step(`track    ${first.hash} on ${first.chainId}`);

  at.step = "status";
  let noted = false;
  await untilTerminal(first.hash, first.chainId, (raw) => {
    // What initia.js v2's getTransferStatus returns: state, and flat transfer_sequence hops.
    const hops = (raw.transfer_sequence ?? []).map((h) => {
      const [kind, x] = oneOf(h);
      return `${h.src_chain_id ?? x.from_chain_id} → ${h.dst_chain_id ?? x.to_chain_id} ${h.state ?? x.state} (${kind})`;
    });
    if (!noted && (raw.transfer_sequence ?? []).some((h) => h.src_chain_id === undefined)) {
      noted = true;
      step("note     transfer_sequence holds Skip's one-of hops; initia.js v2 reads each as flat " +
        "{src_chain_id, dst_chain_id, state} (router-client.ts:466-488), undefined here: shown from the one-of");
    }
    return `status   state ${raw.state} (status ${raw.status}); ${hops.join("; ")}`;
  });

  at.step = "balance";
  const after = await balance(dest.chainId, dest.denom);
  const got = after - before;
  step(`balance  ${dest.denom} on ${dest.chainId}: ${before} → ${after} (+${got})`);
  let want = BigInt(route.amount_out);
  if (route.required_op_hook && dest.bridged && heldBefore > 0n) {
    const scale = 10n ** BigInt(dest.decimals - dest.bridged.decimals);
    want += heldBefore * scale;
    const heldAfter = await balance(dest.chainId, dest.bridged.denom);
    step(`         the hook also wrapped the ${heldBefore} ${dest.bridged.denom} held before (now ${heldAfter}): want +${want}`);
    if (heldAfter !== 0n) bad(`${heldAfter} ${dest.bridged.denom} left unwrapped`);
  }
  if (got !== want) bad(`received ${got}, want ${want} (the route said ${route.amount_out})`);
}

// --- a LayerZero transfer: the L1's USDT to the Ethereum chain ---

// The key's account on the Ethereum chain: the same eth_secp256k1 key's 20 bytes, 0x hex.
function evmAddress() {
  return "0x" + AccAddress.toHex(key.accAddress).replace(/^0x/, "").padStart(40, "0");
}

async function ethTokenBalance(rpc, token, holder) {
  const data = "0x70a08231" + holder.replace(/^0x/, "").toLowerCase().padStart(64, "0"); // balanceOf(address)
  const res = await fetch(rpc, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_call", params: [{ to: token, data }, "latest"] }),
    signal: AbortSignal.timeout(30_000),
  });
  const out = await res.json();
  if (out.error) throw new Error(`eth_call balanceOf on ${rpc}: ${out.error.message}`);
  return BigInt(out.result);
}

async function lzTransfer(chains, eth, usdtL1, at) {
  const to = evmAddress();
  console.log(`\n${l1} ${usdtL1} → ${eth.chain_id} ${eth.usdt} (USDT over LayerZero), ${amount}, to ${to}`);
  const before = await ethTokenBalance(eth.json_rpc, eth.usdt, to);
  const sentBefore = await balance(l1, usdtL1);

  at.step = "route";
  const route = await router("POST", "/v2/fungible/route", {
    amount_in: amount,
    source_asset_chain_id: l1,
    source_asset_denom: usdtL1,
    dest_asset_chain_id: eth.chain_id,
    dest_asset_denom: eth.usdt,
  });
  const ops = route.operations.map((o) => Object.keys(o).find((k) => typeof o[k] === "object"));
  step(`route    ${route.amount_in} ${route.source_asset_symbol} → ${route.amount_out} ${route.dest_asset_symbol}, operations [${ops.join(", ")}], ` +
    `txs_required ${route.txs_required}, fees ${(route.estimated_fees ?? []).map((f) => `${f.bridge_id} ${f.amount} ${f.origin_asset?.denom}`).join(", ")}`);
  if (ops.join() !== "layer_zero_transfer") bad(`want one layer_zero_transfer, got [${ops.join(", ")}]`);

  at.step = "msgs";
  const addressList = route.required_chain_addresses.map((id) => (chains.get(id)?.chain_type === "evm" ? to : key.accAddress));
  const { txs, estimated_fees: fees } = await msgsFor(route, addressList);
  if (txs?.length !== 1 || !txs[0].cosmos_tx) bad(`want one cosmos_tx on ${l1}, got ${JSON.stringify(txs)}`);
  const t = txs[0].cosmos_tx;
  const m0 = JSON.parse(t.msgs[0].msg);
  step(`msgs     ${t.chain_id} [${t.msgs.map((m) => m.msg_type_url).join(", ")}] ${m0.module_address}::${m0.module_name}::${m0.function_name}, ` +
    `quoted fee ${(fees ?? []).map((f) => `${f.amount} ${f.origin_asset?.denom}`).join(", ")}`);

  at.step = "sign";
  const msgs = t.msgs.map(decodeMsg);
  const signed = await rest[l1].wallet(key).createAndSignTx({ msgs, fee: feeFor(chains.get(l1)), memo: "" });
  step(`sign     ${l1} as ${key.accAddress}, ${signModeOf(signed)}`);
  at.step = "broadcast";
  const res = await rest[l1].tx.broadcast(signed);
  if (res.code) bad(`broadcast on ${l1}: code ${res.code} ${res.raw_log}`);
  step(`broadcast ${res.txhash} in block ${res.height}`);

  at.step = "track";
  await router("POST", "/v2/tx/track", { tx_hash: res.txhash, chain_id: l1 });
  step(`track    ${res.txhash} on ${l1}`);
  at.step = "status";
  await untilTerminal(res.txhash, l1, (raw) => {
    const hops = (raw.transfer_sequence ?? []).map((h) => {
      const [kind, x] = oneOf(h);
      return `${x.from_chain_id} → ${x.to_chain_id} ${x.state} (${kind}${x.guid ? ` guid ${x.guid.slice(0, 10)}…` : ""})`;
    });
    return `status   state ${raw.state}; ${hops.join("; ")}`;
  });

  at.step = "balance";
  const after = await ethTokenBalance(eth.json_rpc, eth.usdt, to);
  const sent = sentBefore - (await balance(l1, usdtL1));
  step(`balance  USDT on ${eth.chain_id}: ${before} → ${after} (+${after - before}); ${usdtL1} on ${l1}: -${sent}`);
  if (after - before !== BigInt(route.amount_out)) bad(`received ${after - before}, want ${route.amount_out}`);
  if (sent !== BigInt(route.amount_in)) bad(`the L1 sent ${sent}, want ${route.amount_in}`);
}

// --- main ---

console.log(`initia.js ${sdkVersion}, router ${routerUrl}`);
console.log(`key      new MnemonicKey({mnemonic}) → ${key.accAddress} (${key.publicKey.toData()["@type"]})`);
const l1Acc = await accountOn(l1);
if (!l1Acc) fail(`${key.accAddress} does not exist on ${l1}: rollgate up funded other keys than the SDK derives`);
console.log(`account  ${l1}: number ${l1Acc.accountNumber}, sequence ${l1Acc.sequence}, ${await balance(l1, "uinit")} uinit`);

const { chains: chainList } = await router("GET", `/v2/info/chains?chain_ids=${[l1, ...rollups].join(",")}`);
const chains = new Map(chainList.map((c) => [c.chain_id, c]));
for (const id of [l1, ...rollups]) {
  if (!chains.has(id)) fail(`the router does not list ${id}`);
  if (chains.get(id).rest?.replace(/\/+$/, "") !== endpoints.chains[id].rest.replace(/\/+$/, "")) {
    fail(`the router's REST for ${id} is ${chains.get(id).rest}, endpoints.json says ${endpoints.chains[id].rest}`);
  }
}
const { chain_to_assets_map: assets } = await router("GET", `/v2/fungible/assets?chain_ids=${[l1, ...rollups].join(",")}`);
const init = assets[l1]?.assets.find((a) => a.denom === "uinit");
if (!init) fail(`the router lists no uinit on ${l1}`);

// On each rollup, the INIT the OP bridge delivers (l2/…) and its 18-decimal ERC-20 wrapper on an
// EVM rollup (evm/…, reached through the op hook) where the router lists it; IBC vouchers
// (ibc/…) of INIT travel another way and are left out.
const done = [];
const failed = [];
for (const id of rollups) {
  const dests = (assets[id]?.assets ?? [])
    .filter((a) => a.symbol === init.symbol && !a.hidden && !a.denom.startsWith("ibc/"))
    .sort((a, b) => Number(b.denom.startsWith("l2/")) - Number(a.denom.startsWith("l2/")));
  if (!dests.some((a) => a.denom.startsWith("l2/"))) {
    console.error(`FAIL the router lists no OP-bridged ${init.symbol} (l2/…) on ${id}`);
    failed.push(`${id}: no l2/ INIT listed`);
  }
  for (const a of dests) {
    const name = `${id} ${a.denom}`;
    const at = { step: "" };
    try {
      const bridged = a.denom.startsWith("l2/") ? undefined : dests.find((b) => b.denom.startsWith("l2/"));
      await transfer(chains, { chainId: id, denom: a.denom, symbol: a.symbol, decimals: a.decimals, bridged }, at);
      done.push(name);
    } catch (err) {
      console.error(`  FAIL     ${at.step}: ${err.message}`);
      failed.push(`${name} (${at.step})`);
    }
  }
}
// LayerZero: the L1's USDT (which rollgate up gives the test accounts) to the Ethereum chain.
const eth = endpoints.ethereum;
if (eth?.usdt && eth?.json_rpc) {
  const { chains: lzChains } = await router("GET", `/v2/info/chains?chain_ids=${l1},${eth.chain_id}`);
  for (const c of lzChains) chains.set(c.chain_id, c);
  const usdtL1 = assets[l1]?.assets.find((a) => a.symbol === "USDT")?.denom;
  const at = { step: "" };
  const name = `${eth.chain_id} ${eth.usdt} (LayerZero)`;
  try {
    if (!usdtL1) bad(`the router lists no USDT on ${l1}`);
    await lzTransfer(chains, eth, usdtL1, at);
    done.push(name);
  } catch (err) {
    console.error(`  FAIL     ${at.step}: ${err.message}`);
    failed.push(`${name} (${at.step})`);
  }
}
console.log(`\n${done.length} transfer(s) from ${l1} completed through the router with @initia/initia.js, ${failed.length} failed`);
if (failed.length) {
  for (const f of failed) console.log(`  failed: ${f}`);
  process.exit(1);
}
