//go:build rollgatebench

package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/track"
	"github.com/rollgate/rollgate/internal/testutil"
)

// TestBenchTxStatus measures GET /v2/tx/status over HTTP with 16 concurrent clients for 5 s,
// on a store holding 2,000 completed two-hop transfers (SQLite and PostgreSQL). On demand only
// (the build tag keeps it out of the suite, which would otherwise count a skip):
// go test -tags rollgatebench ./internal/router/api -run TestBenchTxStatus -v
func TestBenchTxStatus(t *testing.T) {
	reg, err := registry.Load("../registry/testdata/devnet")
	if err != nil {
		t.Fatal(err)
	}
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			dsn := "sqlite:" + filepath.Join(t.TempDir(), "track.db")
			if backend == "postgres" {
				dsn = testutil.PostgresDSN(t)
			}
			ctx := context.Background()
			st, err := track.OpenStore(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			const n = 2000
			hashes := make([]string, n)
			now := time.Now()
			var ups []track.Update
			for i := range hashes {
				hashes[i] = track.TxHash([]byte(fmt.Sprint(i)))
				if _, err := st.Register(ctx, "minimove-devnet-1", hashes[i], "bench", now, time.Hour, []byte(`{}`)); err != nil {
					t.Fatal(err)
				}
				ups = append(ups, track.Update{ChainID: "minimove-devnet-1", TxHash: hashes[i], State: track.StateCompletedSuccess, Terminal: true, Doc: sampleStatus(hashes[i])})
			}
			if _, err := st.Apply(ctx, "bench", ups, now); err != nil {
				t.Fatal(err)
			}
			live := registry.NewLive(reg)
			srv := httptest.NewServer(New(Config{Tracker: track.New(st, live, track.Config{})}, live, nil, prometheus.NewRegistry()))
			defer srv.Close()
			cl := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
			var mu sync.Mutex
			var lat []time.Duration
			end := time.Now().Add(5 * time.Second)
			var wg sync.WaitGroup
			for c := 0; c < 16; c++ {
				wg.Add(1)
				go func(c int) {
					defer wg.Done()
					var mine []time.Duration
					for i := c; time.Now().Before(end); i += 16 {
						s := time.Now()
						resp, err := cl.Get(srv.URL + "/v2/tx/status?chain_id=minimove-devnet-1&tx_hash=" + hashes[i%n])
						if err != nil {
							t.Error(err)
							return
						}
						_, _ = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						if resp.StatusCode != 200 {
							t.Errorf("status %d", resp.StatusCode)
							return
						}
						mine = append(mine, time.Since(s))
					}
					mu.Lock()
					lat = append(lat, mine...)
					mu.Unlock()
				}(c)
			}
			wg.Wait()
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			t.Logf("%s: %d requests in 5 s = %.0f req/s; p50 %s, p99 %s", backend, len(lat), float64(len(lat))/5,
				lat[len(lat)/2].Round(time.Microsecond), lat[len(lat)*99/100].Round(time.Microsecond))
		})
	}
}

// sampleStatus is a completed two-hop IBC transfer's status, the size a real one has.
func sampleStatus(hash string) []byte {
	tx := func(chain string) *track.ChainTx {
		return &track.ChainTx{ChainID: chain, TxHash: hash, ExplorerLink: "http://127.0.0.1:26621/cosmos/tx/v1beta1/txs/" + hash, OnChainAt: "2026-01-01T00:00:04Z"}
	}
	hop := func(from, to string) track.TransferEvent {
		return track.TransferEvent{IBCTransfer: &track.IBCTransferInfo{FromChainID: from, ToChainID: to, SrcChainID: from, DstChainID: to, State: track.TransferSuccess,
			PacketTxs: track.Packet{SendTx: tx(from), ReceiveTx: tx(to), AcknowledgeTx: tx(from)}}}
	}
	amount := "450000"
	seq := []track.TransferEvent{hop("minimove-devnet-1", "initia-devnet-1"), hop("initia-devnet-1", "miniwasm-devnet-1")}
	rel := &track.AssetRelease{ChainID: "miniwasm-devnet-1", Denom: "ibc/0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF", Amount: &amount, Released: true}
	b, _ := json.Marshal(track.StatusResponse{Transfers: []track.TransferStatus{{State: track.StateCompletedSuccess, TransferSequence: seq, TransferAssetRelease: rel}},
		State: track.StateCompletedSuccess, Status: track.StatusCompleted, TransferAssetRelease: rel, TransferSequence: seq})
	return b
}
