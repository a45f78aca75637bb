// Package devnet runs a network of simulated chains in one process: by default an
// Initia-style L1 and one EVM, one Move and one Wasm rollup plus an external Cosmos chain,
// bridged (OPinit L1 ↔ every rollup, IBC L1 ↔ every other chain) with a relayer/executor,
// each chain on its own loopback ports speaking CometBFT RPC, Cosmos REST and (EVM)
// Ethereum JSON-RPC, producing blocks on a timer with seeded traffic. It writes
// endpoints.json and an initia-registry directory the router loads. It is what
// `rollgate devnet` and `rollgate up` start; tests use ManualBlocks and ProduceBlock.
//
// This package is the simulator's one façade: the product (internal/cli and every test of
// the indexer and the router) imports it and nothing below it, which Go's internal rule and
// internal/archtest enforce. What it offers:
//
//	Network   Start, Close, ProduceBlock(s), Chain(id)/Chains, Spec, Endpoints, registry and
//	          endpoints.json writers, RegistryHandler (the registry over HTTP for a wallet), Key/UserKey/TestAccounts/Address/Account, ExecutorURL,
//	          RelayerStats/RelayerPending, Faults (the injector in front of every server),
//	          OraclePairs/OraclePrice (the oracle's ground truth), FreezeOracle/ThawOracle,
//	          Ethereum (the LayerZero Ethereum chain) and LayerZero (its DVN/executor bot)
//	Chain     ID, Kind, RPC/REST/JSONRPC URLs, Height, Key(i), Broadcast; ground truth read
//	          from the chain itself: Block, Accounts, Balances, NFTs, NFTClassNames,
//	          NFTTraces, ICS721Collection (truth.go)
//	helpers   SeedKey, the Move object addresses, ICS-721 voucher names and escrows, EVM
//	          call data a client computes (clienthelp.go)
//
// The simulator behind it, bottom up (a layer imports only those below it), all under
// internal/:
//
//	devnet            this package: the network. Config/ChainSpec, Start, one VM per chain
//	                  kind (vms.go), bridge wiring (bridges.go), servers, registry writer
//	├── bridge        cross-chain wiring: which channels and bridges exist, registry traces
//	│   ├── ibc       ICS-20 transfers, packet-forward, ibc-hooks (a sim.Module)
//	│   ├── opinit    OPinit ophost (L1) and opchild (rollup), executor API (sim.Modules)
//	│   ├── relayer   the relayer and OPinit executor bots, over the engine or over HTTP
//	│   └── layerzero LayerZero v2: endpoints and USDT OFTs on the L1 (Move packages) and
//	│                 on Ethereum (pseudo-contracts), the DVN/executor bot
//	├── ethereum      the Ethereum chain (Config.LayerZero): blocks, txs, JSON-RPC
//	├── oracle        Skip Connect's x/oracle: L1 prices per block, mirrored on rollups
//	├── vm            the VMs, each a sim.Module plus a bank flavour, plugged by kind
//	│   ├── evm       minievm: ERC-20/721, receipts, traces, Ethereum JSON-RPC
//	│   ├── move      Move: fungible assets, NFTs, the Move-backed bank (also the L1's VM)
//	│   └── wasm      CosmWasm: CW721, tokenfactory
//	├── server        CometBFT RPC and Cosmos REST over one engine chain
//	├── gateway       the gRPC-gateway answer and error writer the REST routes share
//	├── engine        one chain: accounts, mempool/CheckTx, ante, deliver, blocks, commit
//	└── sim           the contract between the engine and its modules (Env, Query, events)
//
// Fault injection (internal/testutil/faults) is not the simulator's: the product's
// conformance tests and `rollgate bench` put it in front of captured-chain replays too.
package devnet
