// Package replicatest proves the scale-out topology on PostgreSQL's own streaming replication:
// one writer (`rollgate indexer --mode ingest`) on a primary, API replicas (`--mode api`) on a
// hot standby built by the test with pg_basebackup. The processes are this test binary
// re-executed as the rollgate CLI (cli.Main), so they run exactly the code the binary runs.
package replicatest
