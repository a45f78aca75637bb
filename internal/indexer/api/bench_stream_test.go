package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/httpapi/sse"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/store/storetest"
)

// BenchmarkBlockStream connects ROLLGATE_BENCH_SUBS subscribers (default 1000) to the block
// stream of one API process over real HTTP, then writes one block per iteration and waits
// until every subscriber has it. It reports the p50/p99 delivery latency from the commit
// (WriteBlocks returning) to a client's receipt, and the heap per subscriber — client and
// server side together, as both run in this process, so an upper bound of the server's.
//
//	go test -run '^$' -bench BlockStream -benchtime 50x ./internal/indexer/api/
func BenchmarkBlockStream(b *testing.B) {
	subs := 1000
	if v, err := strconv.Atoi(os.Getenv("ROLLGATE_BENCH_SUBS")); err == nil && v > 0 {
		subs = v
	}
	ctx := context.Background()
	db, err := store.Open(ctx, "sqlite:"+filepath.Join(b.TempDir(), "s.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	opts := storetest.Options{TxsPerBlock: 10, BatchBlocks: 1}
	if err := storetest.Fill(ctx, db, 10, opts); err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(New(Config{Streams: httpapi.StreamOptions{MaxSubscribers: subs, MaxPerIP: subs}}, db, nil, nil))
	defer srv.Close()
	tr := &http.Transport{MaxConnsPerHost: 0, MaxIdleConnsPerHost: subs}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	recv := make([][]time.Time, subs) // per subscriber, receipt time by block index
	var ready, got sync.WaitGroup
	var bodies []func() error
	var mu sync.Mutex
	ready.Add(subs)
	for i := range subs {
		resp, err := hc.Get(srv.URL + "/indexer/block/v1/blocks/stream") //nolint:bodyclose // closed through bodies at the end
		if err != nil {
			b.Fatal(err)
		}
		mu.Lock()
		bodies = append(bodies, resp.Body.Close)
		mu.Unlock()
		go func() {
			rd := sse.NewReader(resp.Body)
			ready.Done()
			for {
				if _, err := rd.Next(); err != nil {
					return
				}
				recv[i] = append(recv[i], time.Now())
				got.Done()
			}
		}()
	}
	ready.Wait()
	time.Sleep(500 * time.Millisecond) // every stream is waiting at the tip
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)

	var lat []time.Duration
	b.ResetTimer()
	for n := range b.N {
		got.Add(subs)
		if err := storetest.Fill(ctx, db, 10, opts); err != nil {
			b.Fatal(err)
		}
		committed := time.Now()
		got.Wait()
		for i := range subs {
			lat = append(lat, recv[i][n].Sub(committed))
		}
	}
	b.StopTimer()
	for _, c := range bodies {
		_ = c()
	}
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.5), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/float64(subs)/1024, "KiB/sub")
	b.ReportMetric(float64(subs), "subs")
}
