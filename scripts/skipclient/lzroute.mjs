// lzroute.mjs ROUTER_URL — asks a router (rollgate up) for LayerZero routes and their messages
// through Skip's own JavaScript client (@skip-go/client's route() and messages(), as wallets
// call them), both ways between the Ethereum chain and the L1, and checks what the client
// makes of the answers: one layerZeroTransfer operation, an evmTx (value = the quoted fee,
// the ERC-20 approval) from Ethereum, a cosmosTx with the Move OFT's MsgExecute from the L1.
// Exits 1 on the first answer the client reads differently. Statuses are check.mjs's part.
import { messages, route, setClientOptions } from "@skip-go/client";

const apiUrl = process.argv[2];
if (!apiUrl) {
  console.error("usage: node lzroute.mjs ROUTER_URL");
  process.exit(2);
}
setClientOptions?.({ apiUrl });

const eth = "31337";
const l1 = "initia-devnet-1";
const usdtEth = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const usdtL1 = "move/13646f5188844c54306f38be5d74e3ad8d02a6b9d538ce540b30e5845b27712d";
const ethAddr = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"; // Anvil account 0
const l1Addr = "init17w0adeg64ky0daxwd2ugyuneellmjgnxdtmpqz"; // the same key on the L1

const failures = [];
for (const c of [
  { name: "ethereum_to_l1", src: eth, srcDenom: usdtEth, dst: l1, dstDenom: usdtL1, addrs: [ethAddr, l1Addr] },
  { name: "l1_to_ethereum", src: l1, srcDenom: usdtL1, dst: eth, dstDenom: usdtEth, addrs: [l1Addr, ethAddr] },
]) {
  const fail = (msg) => failures.push(`${c.name}: ${msg}`);
  const rt = await route({ amountIn: "1000000", sourceAssetChainId: c.src, sourceAssetDenom: c.srcDenom,
    destAssetChainId: c.dst, destAssetDenom: c.dstDenom, apiUrl });
  if (!rt) {
    fail("no route");
    continue;
  }
  const lz = rt.operations?.[0]?.layerZeroTransfer;
  if (rt.operations?.length !== 1 || !lz || lz.fromChainId !== c.src || lz.toChainId !== c.dst) {
    fail(`operations read as ${JSON.stringify(rt.operations)}`);
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
    console.log(`${c.name}: route ${rt.amountIn} → ${rt.amountOut}, evmTx to ${e.to} value ${e.value} (quoted fee), ` +
      `approval ${e.requiredErc20Approvals[0].amount} of ${e.requiredErc20Approvals[0].tokenContract}`);
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
