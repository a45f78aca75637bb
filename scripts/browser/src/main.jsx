// A dApp page mounting InterwovenKit against `rollgate up`. The driver (drive.mjs) sets
// window.__ROLLGATE__ before the page loads: the `INTERWOVENKIT {...}` line `up` prints
// (defaultChainId, registryUrl, routerApiUrl, minityUrl) and the test mnemonic `up` prints.
//
// Provider set-up as the kit's README shows it (package README.md, "Configure Providers");
// the config fields are the kit's Config (dist/index.d.ts, from src/data/config.ts), and the
// test wallet is the kit's own createTestWalletConnector: an in-memory EIP-1193 wallet that
// signs with the mnemonic's m/44'/60'/0'/0/0 key, the account `up` funds as #0.
import { StrictMode, useEffect, useState } from "react"
import { createRoot } from "react-dom/client"
import { createConfig, http, WagmiProvider, useConnect } from "wagmi"
import { mainnet } from "wagmi/chains"
import { QueryClient, QueryClientProvider } from "@tanstack/react-query"
import {
  createTestWalletConnector,
  injectStyles,
  InterwovenKitProvider,
  TESTNET,
  useInterwovenKit,
  usePortfolio,
} from "@initia/interwovenkit-react"
import InterwovenKitStyles from "@initia/interwovenkit-react/styles.js"

const rg = window.__ROLLGATE__ ?? {}
const testWallet = createTestWalletConnector({
  mnemonic: rg.mnemonic,
  // The EVM rollup's JSON-RPC by its EVM chain id, for the calls the wallet forwards.
  rpcUrls: rg.evmRpcUrls ?? {},
})
const wagmiConfig = createConfig({
  connectors: [testWallet],
  chains: [mainnet],
  // No EVM call of the page goes to mainnet; the transport is what wagmi requires per chain.
  transports: { [mainnet.id]: http(rg.routerApiUrl) },
})
const queryClient = new QueryClient()

function Page() {
  const kit = useInterwovenKit()
  const portfolio = usePortfolio()
  const { connect, connectors } = useConnect()
  // The driver calls the kit's own entry points (openBridge, openDeposit, openWithdraw,
  // requestTxBlock) as a dApp's buttons would.
  useEffect(() => {
    window.kit = kit
    window.portfolio = portfolio
    window.connectTestWallet = () => connect({ connector: connectors[0] })
  })
  const [last, setLast] = useState("")
  useEffect(() => {
    window.setLast = setLast
  }, [])
  return (
    <main style={{ fontFamily: "sans-serif", padding: 16 }}>
      <h1 style={{ fontSize: 18 }}>rollgate up × InterwovenKit</h1>
      <p data-testid="address">{kit.address || "not connected"}</p>
      <p data-testid="total">portfolio total: {portfolio.isLoading ? "loading" : portfolio.totalValue}</p>
      <p data-testid="last">{last}</p>
      {!kit.address && <button data-testid="connect" onClick={kit.openConnect}>Connect</button>}
      {kit.address && <button data-testid="wallet" onClick={kit.openWallet}>Wallet</button>}
    </main>
  )
}

function App() {
  useEffect(() => {
    // The kit renders in a shadow root; its styles go there.
    injectStyles(InterwovenKitStyles)
  }, [])
  return (
    <QueryClientProvider client={queryClient}>
      <WagmiProvider config={wagmiConfig}>
        <InterwovenKitProvider
          {...TESTNET}
          defaultChainId={rg.defaultChainId}
          registryUrl={rg.registryUrl}
          routerApiUrl={rg.routerApiUrl}
          minityUrl={rg.minityUrl}
          disableAnalytics
        >
          <Page />
        </InterwovenKitProvider>
      </WagmiProvider>
    </QueryClientProvider>
  )
}

createRoot(document.getElementById("root")).render(
  <StrictMode>
    <App />
  </StrictMode>,
)
