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

// initValue waits for the wallet view's INIT row on one chain with its dollar value: a lone
// row reads "INIT <chain> <amount> $<value>"; with INIT on more than one chain the rows fold
// into one "INIT" group that opens into "<chain> <amount> $<value>" lines.
async function initValue(page, chain) {
  const re = new RegExp(`${chain}\\s+[\\d,.]+\\s+\\$[\\d,.]+`)
  const t = await waitText(page, /INIT\s+(\S.*\s+)?[\d,.]+\s+\$[\d,.]+/, 60000, "an INIT row with a dollar value")
  if (!re.test(t)) await page.getByRole("button", { name: /^INIT/ }).first().click()
  return (await waitText(page, re, 30000, `INIT on ${chain} with a dollar value`)).match(re)[0].replace(/\s+/g, " ")
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
    await page.getByRole("button", { name: "Preview route" }).click({ timeout: 30000 })
    await page.getByRole("button", { name: "Confirm", exact: true }).click({ timeout: 30000 })
    await page.getByRole("button", { name: "Approve" }).click({ timeout: 30000 })
    await waitText(page, /Transaction submitted/, 60000, "submission")
    await page.getByRole("button", { name: "Bridge/Swap history" }).click({ timeout: 30000 }).catch(() => {})
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
])
process.exit(ok ? 0 : 1)
