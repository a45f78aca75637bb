package ingest

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the pipeline's Prometheus series, registered on the registry given to New.
type metrics struct {
	indexedHeight prometheus.Gauge
	chainHeight   prometheus.Gauge
	blocksWritten prometheus.Counter
	txsWritten    prometheus.Counter
	fetchErrors   *prometheus.CounterVec
	fetchRetries  prometheus.Counter
	writeRetries  prometheus.Counter
	batchBlocks   prometheus.Histogram
	batchTxs      prometheus.Histogram
	writeSeconds  prometheus.Histogram
	chainMismatch prometheus.Gauge // 1 while halted on a chain mismatch
	chainBehind   prometheus.Gauge // 1 while the node is behind the store
	chainResets   prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		indexedHeight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "rollgate_ingest_indexed_height", Help: "Last height written to the store.",
		}),
		chainHeight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "rollgate_ingest_chain_height", Help: "Latest chain height seen upstream.",
		}),
		blocksWritten: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "rollgate_ingest_blocks_written_total", Help: "Blocks written to the store.",
		}),
		txsWritten: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "rollgate_ingest_txs_written_total", Help: "Cosmos txs written to the store.",
		}),
		fetchErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rollgate_ingest_fetch_errors_total", Help: "Failed attempts to fetch a height, by kind (transport, invalid).",
		}, []string{"kind"}),
		fetchRetries: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "rollgate_ingest_fetch_retries_total", Help: "Heights fetched again after a failed attempt.",
		}),
		writeRetries: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "rollgate_ingest_write_retries_total", Help: "WriteBlocks calls retried after an error.",
		}),
		batchBlocks: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "rollgate_ingest_batch_blocks", Help: "Blocks per WriteBlocks call.",
			Buckets: []float64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000},
		}),
		batchTxs: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "rollgate_ingest_batch_txs", Help: "Txs per WriteBlocks call.",
			Buckets: []float64{0, 1, 10, 50, 100, 500, 1000, 2000, 5000, 10000},
		}),
		writeSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "rollgate_ingest_write_seconds", Help: "Duration of WriteBlocks calls.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 14),
		}),
		chainMismatch: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "rollgate_ingest_chain_mismatch", Help: "1 while ingestion is halted because the node serves another chain than the store holds (reset, repointed node, fork).",
		}),
		chainBehind: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "rollgate_ingest_upstream_behind", Help: "1 while the node's head is below the store's indexed height.",
		}),
		chainResets: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "rollgate_ingest_chain_resets_total", Help: "Stores dropped and re-indexed from the new chain after a chain mismatch (--on-chain-mismatch reindex).",
		}),
	}
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.indexedHeight, m.chainHeight, m.blocksWritten, m.txsWritten,
		m.fetchErrors, m.fetchRetries, m.writeRetries, m.batchBlocks, m.batchTxs, m.writeSeconds,
		m.chainMismatch, m.chainBehind, m.chainResets} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register ingest metrics: %w", err)
		}
	}
	return m, nil
}
