// The wallet flows, in order; each step fails loudly and names what it waited for.
// Usage: node flows.mjs <up-stdout-file> [<out-dir>] [<screenshot-dir>]
import { main, states } from "./drive.mjs"

const L1 = "initia-devnet-1"
const MOVE = "minimove-devnet-1"

// text is what the kit shows: the inner text of its shadow root(s).
const text = (page) => page.evaluate(() => {
  const out = []
  const walk = (r) => { for (const el of r.querySelectorAll("*")) if (el.shadowRoot) { out.push(el.shadowRoot.querySelector("div")?.innerText ?? ""); walk(el.shadowRoot) } }
  walk(document)
  return out.join("\n")
})
async function waitText(page, re, ms, what) {
  const end = Date.now() + ms
  for (;;) {
    const t = await text(page)
    if (re.test(t)) return t
    if (Date.now() > end) throw new Error(`no ${what} (${re}) within ${ms} ms; the kit shows: ${t.replace(/\s+/g, " ").slice(0, 400)}`)
    await page.waitForTimeout(1000)
  }
}
// l2Denom is the OPinit-bridged INIT on a rollup, from the router's asset list.
async function l2Denom(rg, chainId) {
  const r = await fetch(`${rg.routerApiUrl}/v2/fungible/assets?chain_ids=${chainId}`)
  const a = (await r.json()).chain_to_assets_map[chainId].assets
  return a.find((x) => x.symbol === "INIT" && x.denom.startsWith("l2/") && x.origin_chain_id === chainId).denom
}
async function completed(page, before, ms) {
  const end = Date.now() + ms
  for (;;) {
    const s = states().slice(before)
    const done = s.find((x) => x.state === "STATE_COMPLETED_SUCCESS")
    if (done) return done
    const bad = s.find((x) => /ERROR|ABANDONED/.test(x.state ?? ""))
    if (bad) throw new Error(`tracked to ${bad.state}`)
    if (Date.now() > end) throw new Error(`no STATE_COMPLETED_SUCCESS from /v2/tx/status within ${ms} ms (${s.length} answers: ${s.map((x) => x.state).join(",")})`)
    await page.waitForTimeout(1000)
  }
}

// btn is the visible button of that name: the kit mounts its drawer and its modal both, and
// the hidden one's buttons answer to the same names.
const btn = (page, opts) => page.getByRole("button", opts).filter({ visible: true }).first()

// initValue waits for the wallet view's INIT row on one chain with its dollar value: a lone
// row reads "INIT <chain> <amount> $<value>"; with INIT on more than one chain the rows fold
// into one "INIT" group that opens into "<chain> <amount> $<value>" lines.
async function initValue(page, chain) {
  const re = new RegExp(`${chain}\\s+[\\d,.]+\\s+\\$[\\d,.]+`)
  const t = await waitText(page, /INIT\s+(\S.*\s+)?[\d,.]+\s+\$[\d,.]+/, 60000, "an INIT row with a dollar value")
  if (!re.test(t)) await btn(page, { name: /^INIT/ }).click()
  return (await waitText(page, re, 30000, `INIT on ${chain} with a dollar value`)).match(re)[0].replace(/\s+/g, " ")
}

// sendTx is the hash of the rollup tx the router tracks in the latest status answer.
function lastSendTx(before) {
  const s = states().slice(before).reverse().find((x) => x.transfer_sequence?.[0]?.op_init_transfer?.txs?.send_tx)
  return s?.transfer_sequence[0].op_init_transfer.txs.send_tx.tx_hash
}
// claimable waits until the router reports the withdrawal of the last tracked tx claimable.
async function claimable(page, before, ms) {
  const end = Date.now() + ms
  for (;;) {
    const s = states().slice(before).reverse().find((x) => x.transfer_sequence?.[0]?.op_init_transfer?.withdrawal)
    const w = s?.transfer_sequence[0].op_init_transfer.withdrawal
    if (w?.state === "OPINIT_WITHDRAWAL_CLAIMABLE") return { tx: lastSendTx(before), w }
    if (Date.now() > end) throw new Error(`withdrawal not claimable within ${ms} ms (last: ${JSON.stringify(w ?? s?.state ?? null)})`)
    await page.waitForTimeout(1000)
  }
}
// routerState asks the router itself (from Node, not through the page) how a tx ended: the
// kit stops polling a withdrawal once it is claimed, so its completion is read here.
async function routerState(rg, chainId, tx, ms) {
  const end = Date.now() + ms
  for (;;) {
    const r = await fetch(`${rg.routerApiUrl}/v2/tx/status?tx_hash=${tx}&chain_id=${chainId}`)
    const st = (await r.json()).transfers?.[0]?.state
    if (st === "STATE_COMPLETED_SUCCESS") return st
    if (Date.now() > end) throw new Error(`router: ${tx} on ${chainId} is ${st} after ${ms} ms`)
    await new Promise((ok) => setTimeout(ok, 1000))
  }
}
const withdrawals = []
// bridgeHistory lists the kit's bridge history as "<chainId>:<txHash>" (its localStorage list
// `${NAMESPACE}:bridge:history` of {chainId, txHash}, src/data/constants.ts, history.ts).
const bridgeHistory = (page) => page.evaluate(() => {
  const k = Object.keys(localStorage).find((x) => x.endsWith(":bridge:history"))
  return k ? JSON.parse(localStorage.getItem(k)).map((h) => `${h.chainId}:${h.txHash}`) : []
})
// routerClaimable asks the router (from Node) to track a tx and waits for its withdrawal to
// be claimable.
async function routerClaimable(rg, chainId, tx, ms) {
  const tr = await fetch(`${rg.routerApiUrl}/v2/tx/track`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ tx_hash: tx, chain_id: chainId }) })
  if (!tr.ok) throw new Error(`router /v2/tx/track: ${tr.status} ${await tr.text()}`)
  const end = Date.now() + ms
  for (;;) {
    const r = await fetch(`${rg.routerApiUrl}/v2/tx/status?tx_hash=${tx}&chain_id=${chainId}`)
    const w = (await r.json()).transfers?.[0]?.transfer_sequence?.[0]?.op_init_transfer?.withdrawal
    if (w?.state === "OPINIT_WITHDRAWAL_CLAIMABLE") return w
    if (Date.now() > end) throw new Error(`router: ${tx} withdrawal is ${JSON.stringify(w ?? null)} after ${ms} ms`)
    await new Promise((ok) => setTimeout(ok, 1000))
  }
}
// dismissClaimPrompt closes the kit's "Ready to claim" prompt, which it opens over the
// drawer once a withdrawal is claimable; the claim step claims from the list.
async function dismissClaimPrompt(page) {
  await page.waitForTimeout(2000)
  if (!/Ready to claim/.test(await text(page))) return
  await page.keyboard.press("Escape")
  await page.waitForTimeout(1000)
}

// closeModal closes the kit's modal (Deposit, Withdraw pages) and waits for its overlay to go.
async function closeModal(page) {
  await btn(page, { name: "Close" }).click({ timeout: 3000 }).catch(() => page.keyboard.press("Escape"))
  await page.locator("[class*=_overlay_]").first().waitFor({ state: "detached", timeout: 10000 }).catch(() => page.keyboard.press("Escape"))
}

const ok = await main([
  ["connect", async (page) => {
    await page.waitForFunction(() => document.querySelector("[data-testid=address]")?.textContent.startsWith("init1"), null, { timeout: 60000 })
    return await page.textContent("[data-testid=address]")
  }],
  ["wallet-l1", async (page, { shot }) => {
    await page.click("[data-testid=wallet]")
    const v = await initValue(page, "Initia Devnet")
    await shot("wallet-l1")
    return v
  }],
  ["deposit-bridge", async (page, { rg, shot }) => {
    const dst = await l2Denom(rg, MOVE)
    const before = states().length
    await page.evaluate((v) => window.kit.openBridge(v), { srcChainId: L1, srcDenom: "uinit", dstChainId: MOVE, dstDenom: dst, quantity: "1" })
    await btn(page, { name: "Preview route" }).click({ timeout: 30000 })
    await btn(page, { name: "Confirm", exact: true }).click({ timeout: 30000 })
    await btn(page, { name: "Approve" }).click({ timeout: 30000 })
    await waitText(page, /Transaction submitted/, 60000, "submission")
    await btn(page, { name: "Bridge/Swap history" }).dispatchEvent("click") // under the "submitted" toast
    const done = await completed(page, before, 120000)
    await page.waitForTimeout(1500)
    await shot("deposit-history")
    return `${done.state} ${done.transfer_sequence?.length ?? 0} hop(s)`
  }],
  ["wallet-rollup", async (page, { shot }) => {
    await page.evaluate(() => window.kit.openWallet())
    const v = await initValue(page, "Minimove Devnet")
    await shot("wallet-rollup")
    return v
  }],
  ["deposit-page", async (page, { rg, shot }) => {
    // The Deposit page (openDeposit): INIT into the rollup from the connected wallet.
    const denom = await l2Denom(rg, MOVE)
    const before = states().length
    await page.evaluate((v) => window.kit.openDeposit(v), { denoms: [denom], chainId: MOVE })
    await btn(page, { name: /Deposit via wallet/ }).click({ timeout: 30000 })
    await page.locator("input[aria-label=Amount]").fill("2")
    await btn(page, { name: "Deposit", exact: true }).click({ timeout: 60000 })
    await waitText(page, /Deposit complete/, 120000, "Deposit complete")
    const done = await completed(page, before, 30000)
    await shot("deposit-page")
    await closeModal(page)
    return `${done.state}; the kit says "Deposit complete"`
  }],
  ["withdraw-page", async (page, { rg, shot }) => {
    // The Withdraw page (openWithdraw): INIT out of the rollup to the L1. It asks the router
    // without is_op_withdraw; the router answers the OPinit withdrawal, the only way out.
    const denom = await l2Denom(rg, MOVE)
    const before = states().length
    await page.evaluate((v) => window.kit.openWithdraw(v), { denoms: [denom], chainId: MOVE })
    await page.locator("input[aria-label=Amount]").fill("1")
    await btn(page, { name: "Select chain" }).click({ timeout: 30000 })
    await btn(page, { name: /^INIT on Initia Devnet/ }).click({ timeout: 30000 })
    await btn(page, { name: "Withdraw", exact: true }).click({ timeout: 60000 })
    await waitText(page, /Withdrawing 1 INIT/, 60000, "the withdrawal under way")
    const c = await claimable(page, before, 120000)
    await shot("withdraw-page")
    await closeModal(page)
    withdrawals.push(c.tx)
    return `${c.tx} ${c.w.state} (bridge ${c.w.bridge_id}, sequence ${c.w.l2_sequence})`
  }],
  ["withdraw-bridge", async (page, { rg, shot }) => {
    // The Bridge page: the same way out, asked with the kit's Bridge form (is_op_withdraw).
    // The kit does not track an OP withdrawal it sends from there (pages/bridge/data/tx.ts:
    // "skip for OP withdrawals as they don't need tracking"): it keeps the tx in its bridge
    // history (localStorage "…:bridge:history") and reminds of the claim. The script reads
    // that tx from the history and asks the router to track it, as a dApp or explorer would.
    const src = await l2Denom(rg, MOVE)
    const seen = new Set(await bridgeHistory(page))
    await page.evaluate((v) => window.kit.openBridge(v), { srcChainId: MOVE, srcDenom: src, dstChainId: L1, dstDenom: "uinit", quantity: "1" })
    await dismissClaimPrompt(page)
    await btn(page, { name: "Preview route" }).click({ timeout: 30000 })
    await btn(page, { name: "Confirm", exact: true }).click({ timeout: 30000 })
    await btn(page, { name: "Approve" }).click({ timeout: 30000 })
    await waitText(page, /Transaction submitted/, 60000, "submission")
    let tx
    for (const end = Date.now() + 60000; !tx; await page.waitForTimeout(1000)) {
      tx = (await bridgeHistory(page)).find((h) => !seen.has(h) && h.startsWith(MOVE + ":"))?.slice(MOVE.length + 1)
      if (!tx && Date.now() > end) throw new Error("the withdrawal is not in the kit's bridge history")
    }
    await btn(page, { name: "Bridge/Swap history" }).dispatchEvent("click") // under the "submitted" toast
    const w = await routerClaimable(rg, MOVE, tx, 120000)
    await shot("withdraw-bridge")
    withdrawals.push(tx)
    return `${tx} ${w.state} (bridge ${w.bridge_id}, sequence ${w.l2_sequence}; tracked at the script's request)`
  }],
  ["claim", async (page, { rg, shot }) => {
    // The kit's "Withdrawal status" page lists the OP withdrawals (OPinit outputs with
    // pagination.reverse, the executor's withdrawals) and claims each on the L1.
    // The kit's "Ready to claim" prompt leads there ("View withdrawal status"); without
    // it, the Bridge page's "Withdrawal status" button does.
    await page.waitForTimeout(2000)
    if (/Ready to claim/.test(await text(page))) await btn(page, { name: "View withdrawal status" }).click({ timeout: 10000 })
    else {
      await page.evaluate(() => window.kit.openBridge({}))
      await btn(page, { name: "Withdrawal status" }).click({ timeout: 30000 })
    }
    await btn(page, { name: "Minimove Devnet" }).click({ timeout: 30000 }).catch(() => {})
    await waitText(page, /OP Bridge withdrawals[\s\S]*Claim/, 60000, "the listed withdrawals")
    await shot("op-withdrawals")
    const base = ((await text(page)).match(/Claimed/g) ?? []).length
    let claimed = 0
    for (let i = 0; i < withdrawals.length; i++) {
      await btn(page, { name: "Claim", exact: true }).click({ timeout: 30000 })
      await btn(page, { name: "Approve" }).click({ timeout: 30000 })
      const end = Date.now() + 60000
      while (((await text(page)).match(/Claimed/g) ?? []).length <= base + claimed) {
        if (Date.now() > end) throw new Error(`claim ${i + 1} not shown as Claimed`)
        await page.waitForTimeout(1000)
      }
      claimed++
    }
    await shot("op-claimed")
    const done = []
    for (const tx of withdrawals) done.push(await routerState(rg, MOVE, tx, 60000))
    return `${claimed} claimed; router: ${done.join(", ")}`
  }],
  ["send", async (page, { up, shot }) => {
    // The wallet's Send page: 1 INIT on the L1 to test account #1. The claim's toast also
    // says "Transaction is successful!", so it is closed first, the send's "pending" toast
    // is awaited before its success, and the recipient's balance is read from the L1.
    const to = "init1wzvhjux9rqfdcwspp37srdgwp5tac7wg9ql75y"
    const rest = up.endpoints.chains[L1].rest
    const bal = async () => BigInt((await (await fetch(`${rest}/cosmos/bank/v1beta1/balances/${to}/by_denom?denom=uinit`)).json()).balance.amount)
    const before = await bal()
    await page.keyboard.press("Escape")
    for (const end = Date.now() + 15000; /Transaction is successful!/.test(await text(page)) && Date.now() < end;) {
      await btn(page, { name: "Close" }).click({ timeout: 2000 }).catch(() => page.keyboard.press("Escape"))
      await page.waitForTimeout(500)
    }
    await page.evaluate(() => window.kit.openWallet())
    await btn(page, { name: "Send", exact: true }).click({ timeout: 30000 })
    await page.locator("input[aria-label=Amount]").fill("1")
    await page.getByPlaceholder("Address or username").fill(to)
    await btn(page, { name: "Confirm", exact: true }).click({ timeout: 30000 })
    await btn(page, { name: "Approve" }).click({ timeout: 30000 })
    await waitText(page, /Transaction is pending|Transaction is successful!/, 30000, "the send's toast")
    // The pending toast can sit over the claim's faded success toast, whose text still matches:
    // wait for the pending one to go, then read the chain until the block with the send is in.
    for (const end = Date.now() + 60000; /Transaction is pending/.test(await text(page)) && Date.now() < end;) await page.waitForTimeout(500)
    await waitText(page, /Transaction is successful!/, 60000, "the kit's confirmation")
    let after = await bal()
    for (const end = Date.now() + 15000; after === before && Date.now() < end; after = await bal()) await page.waitForTimeout(500)
    if (after - before !== 1000000n) throw new Error(`recipient's uinit moved by ${after - before}, want 1000000`)
    await shot("send")
    return `"Transaction is successful!"; ${to} +${after - before} uinit on ${L1}`
  }],
])
process.exit(ok ? 0 : 1)
