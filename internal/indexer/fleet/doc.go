// Package fleet runs many chains' indexers in one process: per chain one ingest
// pipeline, one store and one API, exactly the single-chain pieces (internal/indexer/ingest,
// internal/store, internal/indexer/api), behind one handler that routes `/{chain_id}/...` and,
// where configured, a Host header to the chain's own API with the prefix removed, so each
// chain's base URL serves the single-chain API byte for byte.
//
// The set of chains comes from a registry directory in the initia-registry layout (every
// rollup: `metadata.minitia.type`) or a JSON file (spec.go), re-read on an interval: a chain
// added starts, a removed one stops, a changed one restarts. Chains are isolated: each has its
// own goroutines, upstream clients, store pool and metrics registry, and a chain whose node is
// down, or whose pipeline fails, is retried on its own while the others go on. Their upstream
// requests share one budget (httpx.Limiter.Sub): each chain holds at most its cap of it.
// The fleet's /metrics is one scrape for the process: its own registry and every chain's,
// each chain's series labelled chain_id (metrics.go).
//
// Stores: with a PostgreSQL DSN every chain lives in its own schema of that database
// (search_path set on the chain's pool, migrations applied there); with "sqlite:<dir>" every
// chain has its own file <dir>/<chain_id>.db.
package fleet
