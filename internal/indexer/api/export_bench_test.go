package api

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
)

var exportRows = flag.Int("export-rows", 1_000_000, "transfers of the account BenchmarkExportTransfers exports")

// transferStore writes n transfers of one account (alternately out to and in from 50 others),
// 1000 per block in one tx, into a SQLite store.
func transferStore(b *testing.B, n int) (store.Store, []byte) {
	b.Helper()
	db, err := store.Open(context.Background(), "sqlite:"+filepath.Join(b.TempDir(), "t.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	acc := bytes.Repeat([]byte{0xaa}, 20)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const perBlock = 1000
	var batch []store.BlockBundle
	for h := 1; (h-1)*perBlock < n; h++ {
		bb := store.BlockBundle{Block: store.Block{ChainID: "bench-1", Height: int64(h), Hash: []byte(fmt.Sprint(h)), Time: t0.Add(time.Duration(h) * time.Second),
			TotalFee: []byte("[]")}}
		bb.Txs = []store.Tx{{Hash: bytes.Repeat([]byte{byte(h), byte(h >> 8), byte(h >> 16), 1}, 8), Height: int64(h), JSON: []byte(`{}`)}}
		rows := make(store.TransferRows, 0, perBlock)
		for i := 0; i < perBlock && (h-1)*perBlock+i < n; i++ {
			other := bytes.Repeat([]byte{byte(i % 50)}, 20)
			t := store.Transfer{MsgIndex: 0, Kind: store.TransferSend, From: acc, To: other, Denom: "uinit", Amount: fmt.Sprint(1000 + i)}
			if i%2 == 1 {
				t.From, t.To = other, acc
			}
			rows = append(rows, t)
		}
		bb.Extensions = []store.ExtensionRows{rows}
		batch = append(batch, bb)
		if len(batch) == 50 {
			if err := db.WriteBlocks(context.Background(), batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if err := db.WriteBlocks(context.Background(), batch); err != nil {
		b.Fatal(err)
	}
	return db, acc
}

// BenchmarkExportTransfers streams the CSV export of an account with -export-rows transfers
// and reports the peak heap in use while it streams (sampled every millisecond): the export
// holds one page, whatever the account's history.
//
//	go test ./internal/indexer/api -run '^$' -bench BenchmarkExportTransfers -benchtime 1x
func BenchmarkExportTransfers(b *testing.B) {
	db, acc := transferStore(b, *exportRows)
	h := New(Config{ChainID: "bench-1", Features: Features{Transfers: db}}, db, nil, nil)
	path := "/indexer/transfer/v1/transfers/by_account/0x" + fmt.Sprintf("%x", acc) + "?format=csv"
	stop := testutil.HeapPeak()
	b.ResetTimer()
	var written int64
	for i := 0; i < b.N; i++ {
		w := &countingWriter{}
		req := httptest.NewRequest(http.MethodGet, "http://idx.test"+path, nil)
		h.ServeHTTP(w, req)
		if w.code != 200 {
			b.Fatalf("status %d", w.code)
		}
		written = w.n
	}
	b.StopTimer()
	before, peak := stop()
	b.ReportMetric(float64(written)/1e6, "MB-body")
	b.ReportMetric(float64(peak)/1e6, "MB-peak-heap")
	b.ReportMetric(float64(before)/1e6, "MB-heap-before")
}

// countingWriter is a ResponseWriter that keeps nothing of the body.
type countingWriter struct {
	h    http.Header
	code int
	n    int64
}

func (w *countingWriter) Header() http.Header {
	if w.h == nil {
		w.h = http.Header{}
	}
	return w.h
}
func (w *countingWriter) WriteHeader(c int) { w.code = c }
func (w *countingWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = 200
	}
	w.n += int64(len(p))
	return io.Discard.Write(p)
}

var transferRows = flag.Int("transfer-rows", 200_000, "transfers of the account BenchmarkTransfersByAccount pages")

// BenchmarkTransfersByAccount answers the hot path of the transfer lists on one account with
// -transfer-rows transfers: its first page (both directions, counted from the per-account
// counts), one direction, a page 90% deep by cursor, and the first page uncounted; each
// reports its p50 and p99.
//
//	go test ./internal/indexer/api -run '^$' -bench BenchmarkTransfersByAccount -benchtime 2000x -transfer-rows 1000000
func BenchmarkTransfersByAccount(b *testing.B) {
	n := *transferRows
	db, acc := transferStore(b, n)
	h := New(Config{ChainID: "bench-1", Features: Features{Transfers: db}, CacheBytes: -1}, db, nil, nil)
	base := "/indexer/transfer/v1/transfers/by_account/0x" + fmt.Sprintf("%x", acc)
	// The cursor of the row 90% deep from the newest.
	deep, err := db.(store.TransferReader).Transfers(context.Background(), store.TransferFilter{Account: acc}, store.Page{Limit: 1, Desc: true, Offset: int64(n) * 9 / 10})
	if err != nil || len(deep.Transfers) != 1 {
		b.Fatal(err, len(deep.Transfers))
	}
	for _, c := range []struct{ name, query string }{
		{"first_page", "?pagination.limit=100"},
		{"first_page_in", "?direction=in&pagination.limit=100"},
		{"deep_cursor", "?pagination.limit=100&pagination.key=" + b64(fmt.Sprintf(`{"sequence":%d}`, deep.Transfers[0].ID))},
		{"first_page_count_false", "?pagination.limit=100&pagination.count_total=false"},
	} {
		b.Run(c.name, func(b *testing.B) {
			took := make([]time.Duration, 0, b.N)
			for i := 0; i < b.N; i++ {
				start := time.Now()
				rec := do(h, base+c.query)
				took = append(took, time.Since(start))
				if rec.Code != 200 {
					b.Fatalf("%d %s", rec.Code, rec.Body)
				}
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}
