// lzroute.mjs ROUTER_URL [ETH_JSON_RPC] — asks a router (rollgate up) for LayerZero routes and
// their messages through Skip's own JavaScript client (@skip-go/client's route() and
// messages(), as wallets call them), both ways between the Ethereum chain and the L1 and from
// Ethereum to the minimove rollup (LayerZero, then the OPinit deposit composed on arrival: one
// tx), and checks what the client makes of the answers: the layerZeroTransfer operation (and
// the opInitTransfer after it in the same tx), an evmTx (value = the quoted fee, the ERC-20
// approval) from Ethereum, a cosmosTx with the Move OFT's MsgExecute from the L1.
// With ETH_JSON_RPC (the Ethereum chain's, endpoints.json `ethereum.json_rpc`) the Ethereum
// txs are also signed with Anvil's account 0 (viem, the client's own EVM dependency: approve,
// then the send), registered with the client's trackTransaction() and followed with its
// transactionStatus() to a terminal state, read through the helpers wallets render progress
// with. Exits 1 on the first answer the client reads differently or a transfer that does not
// end STATE_COMPLETED_SUCCESS.
import {
  getSimpleOverallStatus,
  getTransferEventsFromTxStatusResponse,
  messages,
  route,
  setClientOptions,
  trackTransaction,
  transactionStatus,
} from "@skip-go/client";
import { createPublicClient, createWalletClient, defineChain, encodeFunctionData, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";

const [apiUrl, ethRPC] = process.argv.slice(2);
if (!apiUrl) {
  console.error("usage: node lzroute.mjs ROUTER_URL [ETH_JSON_RPC]");
  process.exit(2);
}
setClientOptions?.({ apiUrl });

const eth = "31337";
const l1 = "initia-devnet-1";
const usdtEth = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const usdtL1 = "move/13646f5188844c54306f38be5d74e3ad8d02a6b9d538ce540b30e5845b27712d";
const ethAddr = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"; // Anvil account 0
const l1Addr = "init17w0adeg64ky0daxwd2ugyuneellmjgnxdtmpqz"; // the same key on the L1
// Anvil's account 0 key, which `rollgate up` prints (its USDT and ETH are the devnet's genesis).
const anvilKey = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const mmove = "minimove-devnet-1";
// The L1's USDT deposited to minimove over OPinit bridge 2 (l2/sha256("2/" + the L1 denom)).
const usdtMove = "l2/d28884f1608ac82ba9ac9c19b4ffe1eecd4a91cd6e7c05a29027ba52864a883f";
const TERMINAL = new Set(["STATE_COMPLETED_SUCCESS", "STATE_COMPLETED_ERROR", "STATE_ABANDONED"]);

const ethChain = defineChain({ id: 31337, name: "ethereum-devnet", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: [ethRPC ?? "http://127.0.0.1:8545"] } } });
const account = privateKeyToAccount(anvilKey);
const pub = ethRPC && createPublicClient({ chain: ethChain, transport: http(ethRPC) });
const wallet = ethRPC && createWalletClient({ account, chain: ethChain, transport: http(ethRPC) });
const erc20Approve = [{ type: "function", name: "approve", stateMutability: "nonpayable",
  inputs: [{ name: "spender", type: "address" }, { name: "amount", type: "uint256" }], outputs: [{ type: "bool" }] }];

// send signs the evmTx as a wallet does: each required approval, then the call; it returns the
// call's hash once mined.
async function send(e) {
  for (const a of e.requiredErc20Approvals ?? []) {
    const h = await wallet.sendTransaction({ to: a.tokenContract, gas: 100_000n,
      data: encodeFunctionData({ abi: erc20Approve, functionName: "approve", args: [a.spender, BigInt(a.amount)] }) });
    const r = await pub.waitForTransactionReceipt({ hash: h });
    if (r.status !== "success") throw new Error(`approve ${h}: ${r.status}`);
  }
  const data = e.data.startsWith("0x") ? e.data : `0x${e.data}`;
  const h = await wallet.sendTransaction({ to: e.to, data, value: BigInt(e.value ?? "0"), gas: 500_000n });
  const r = await pub.waitForTransactionReceipt({ hash: h });
  if (r.status !== "success") throw new Error(`send ${h}: ${r.status}`);
  return h;
}

// follow registers the tx with the client and reads its status until terminal.
async function follow(name, chainId, txHash) {
  await trackTransaction({ chainId, txHash, apiUrl });
  const started = Date.now();
  for (;;) {
    const st = await transactionStatus({ chainId, txHash, apiUrl });
    if (TERMINAL.has(st.state)) {
      const events = getTransferEventsFromTxStatusResponse([st]);
      const overall = getSimpleOverallStatus(st.state);
      console.log(`${name}: tracked ${txHash} → ${st.state} (${overall}); ` +
        events.map((ev) => `${ev.fromChainId} → ${ev.toChainId} ${ev.state}`).join("; "));
      return st;
    }
    if (Date.now() - started > 120_000) throw new Error(`${txHash}: no terminal state after 120 s (${st.state})`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

const failures = [];
for (const c of [
  { name: "ethereum_to_l1", src: eth, srcDenom: usdtEth, dst: l1, dstDenom: usdtL1, addrs: [ethAddr, l1Addr] },
  { name: "l1_to_ethereum", src: l1, srcDenom: usdtL1, dst: eth, dstDenom: usdtEth, addrs: [l1Addr, ethAddr] },
  { name: "ethereum_to_minimove", src: eth, srcDenom: usdtEth, dst: mmove, dstDenom: usdtMove, addrs: [ethAddr, l1Addr, l1Addr], deposit: true },
]) {
  const fail = (msg) => failures.push(`${c.name}: ${msg}`);
  const rt = await route({ amountIn: "1000000", sourceAssetChainId: c.src, sourceAssetDenom: c.srcDenom,
    destAssetChainId: c.dst, destAssetDenom: c.dstDenom, apiUrl });
  if (!rt) {
    fail("no route");
    continue;
  }
  const lz = rt.operations?.[0]?.layerZeroTransfer;
  const dep = rt.operations?.[1]?.opInitTransfer;
  const shape = c.deposit
    ? rt.operations?.length === 2 && lz?.toChainId === l1 && dep?.toChainId === c.dst && rt.txsRequired === 1 && rt.operations[1].txIndex === 0
    : rt.operations?.length === 1 && lz?.toChainId === c.dst;
  if (!shape || lz.fromChainId !== c.src) {
    fail(`operations read as ${JSON.stringify(rt.operations)} (txs_required ${rt.txsRequired})`);
    continue;
  }
  const m = await messages({ sourceAssetChainId: c.src, sourceAssetDenom: c.srcDenom, destAssetChainId: c.dst,
    destAssetDenom: c.dstDenom, amountIn: rt.amountIn, amountOut: rt.amountOut, addressList: c.addrs,
    operations: rt.operations, slippageTolerancePercent: "1", apiUrl });
  const tx = m?.txs?.[0];
  if (c.src === eth) {
    const e = tx?.evmTx;
    if (!e || e.to?.toLowerCase() !== lz.sourceOftContractAddress?.toLowerCase() || BigInt(e.value ?? "0") <= 0n ||
      e.requiredErc20Approvals?.length !== 1) {
      fail(`evm tx read as ${JSON.stringify(tx)}`);
      continue;
    }
    console.log(`${c.name}: route ${rt.amountIn} → ${rt.amountOut} in ${rt.txsRequired} tx, ` +
      `operations [${rt.operations.map((o) => Object.keys(o).find((k) => o[k] && typeof o[k] === "object")).join(", ")}], ` +
      `evmTx to ${e.to} value ${e.value} (quoted fee), approval ${e.requiredErc20Approvals[0].amount} of ${e.requiredErc20Approvals[0].tokenContract}`);
    if (m.txs.length !== 1) {
      fail(`${m.txs.length} txs`);
      continue;
    }
    if (wallet) {
      try {
        const st = await follow(c.name, eth, await send(e));
        if (st.state !== "STATE_COMPLETED_SUCCESS") fail(`ended ${st.state}: ${JSON.stringify(st.error ?? null)}`);
      } catch (err) {
        fail(err.message);
      }
    }
  } else {
    const cm = tx?.cosmosTx?.msgs?.[0];
    if (cm?.msgTypeUrl !== "/initia.move.v1.MsgExecute" || !JSON.parse(cm.msg).function_name?.startsWith("send_withdraw")) {
      fail(`cosmos tx read as ${JSON.stringify(tx)}`);
      continue;
    }
    const fee = m.estimatedFees?.[0];
    console.log(`${c.name}: route ${rt.amountIn} → ${rt.amountOut}, cosmosTx ${cm.msgTypeUrl} ${JSON.parse(cm.msg).function_name}, ` +
      `fee ${fee?.amount} ${fee?.originAsset?.denom}`);
  }
}
for (const f of failures) console.error(f);
console.log(`${failures.length} failures`);
process.exit(failures.length ? 1 : 0);
