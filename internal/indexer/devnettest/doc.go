// Package devnettest tests the indexer end to end against the devnet: for a fixed devnet seed
// the evm, move and wasm rollups are ingested over real HTTP (ingest.DialSource on the devnet's
// CometBFT RPC and REST URLs) into SQLite and PostgreSQL, and every core endpoint of the API is
// compared byte for byte with golden files under testdata/<kind>/ (testdata/any/ for the answers,
// mostly errors, that every VM gives alike); and ingestion under the
// devnet's fault mode must store exactly what a fault-free run stores while the API, hammered
// concurrently, never answers 5xx. The package holds tests only.
package devnettest
