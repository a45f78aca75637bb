// Package conformance holds the indexer's real-data tests: each captured chain is replayed,
// ingested by the real pipeline into a real store and served by the real API, and every core
// request rollytics answered for that chain is replayed and compared field for
// field, apart from the deliberate differences of docs/contract/indexer.md, each an explicit
// rule in the test. It also holds the crash-safety test (SIGKILLed ingestion must end with the
// same store as an uninterrupted run). The package has no non-test code.
package conformance
