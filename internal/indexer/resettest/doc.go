// Package resettest runs the rollgate binary as real processes — `rollgate devnet` and
// `rollgate indexer` — and replaces a devnet under a running indexer by another chain with
// the same chain id and ports (a chain reset, a re-genesis, an RPC URL repointed at another
// network), to show that the new chain never mixes into the store: the indexer halts and says
// CHAIN_MISMATCH, or with --on-chain-mismatch reindex ends as a fresh run on the new chain.
// The tests build the binary once (go build) and bound every wait.
package resettest
