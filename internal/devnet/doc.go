// Package devnet runs a network of simulated chains in one process: by default an
// Initia-style L1 and one EVM, one Move and one Wasm rollup plus an external Cosmos chain,
// bridged (OPinit L1 ↔ every rollup, IBC L1 ↔ every other chain) with a relayer/executor,
// each chain on its own loopback ports speaking CometBFT RPC, Cosmos REST and (EVM)
// Ethereum JSON-RPC, producing blocks on a timer with seeded traffic. It writes
// endpoints.json and an initia-registry directory the router loads. It is what
// `rollgate devnet` and `rollgate up` start; tests use ManualBlocks and ProduceBlock.
//
// The devnet in layers, bottom up (a layer imports only those below it):
//
//	devnet            this package: the network. Config/ChainSpec, Start, one VM per chain
//	                  kind (vms.go), bridge wiring (bridges.go), servers, registry writer
//	├── bridge        cross-chain wiring: which channels and bridges exist, registry traces
//	│   ├── ibc       ICS-20 transfers, packet-forward, ibc-hooks (a sim.Module)
//	│   ├── opinit    OPinit ophost (L1) and opchild (rollup), executor API (sim.Modules)
//	│   └── relayer   the relayer and OPinit executor bots, over the engine or over HTTP
//	├── vm            the VMs, each a sim.Module plus a bank flavour, plugged by kind
//	│   ├── evm       minievm: ERC-20/721, receipts, traces, Ethereum JSON-RPC
//	│   ├── move      Move: fungible assets, NFTs, the Move-backed bank (also the L1's VM)
//	│   └── wasm      CosmWasm: CW721, tokenfactory
//	├── server        CometBFT RPC and Cosmos REST over one engine chain
//	├── gateway       the gRPC-gateway answer and error writer the REST routes share
//	├── faults        fault injection in front of every server
//	├── engine        one chain: accounts, mempool/CheckTx, ante, deliver, blocks, commit
//	└── sim           the contract between the engine and its modules (Env, Query, events)
package devnet
