package devnettest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	stdlog "log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/indexer/api"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/indexer/profile"
	"github.com/rollgate/rollgate/internal/testutil"
)

// gate stands in front of a devnet rollup's RPC and REST as a provider might: /genesis
// refused the way CometBFT refuses a genesis above 16 MB (naming /genesis_chunked), and, until
// opened, /genesis_chunked failing and the balance and account queries forbidden. Opened,
// /genesis_chunked serves the devnet's genesis in small chunks (CometBFT's shape: chunk and
// total as strings, data base64).
type gate struct {
	genesis   atomic.Bool // /genesis answers
	chunked   atomic.Bool // /genesis_chunked answers
	balances  atomic.Bool // REST balances and accounts answer
	refusals  atomic.Int64
	rpc, rest *httptest.Server
}

func newGate(t *testing.T, rpcURL, restURL string) *gate {
	g := &gate{}
	rpcUp, _ := url.Parse(rpcURL)
	restUp, _ := url.Parse(restURL)
	rpcProxy := httputil.NewSingleHostReverseProxy(rpcUp)
	restProxy := httputil.NewSingleHostReverseProxy(restUp)
	// Hedged reads cancel their slower twin: not worth a line.
	rpcProxy.ErrorLog = stdlog.New(io.Discard, "", 0)
	restProxy.ErrorLog = rpcProxy.ErrorLog
	g.rpc = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/genesis":
			if !g.genesis.Load() {
				g.refuse(w, http.StatusInternalServerError, rpcError("genesis response is large, please use the genesis_chunked API instead"))
				return
			}
		case "/genesis_chunked":
			if !g.chunked.Load() {
				g.refuse(w, http.StatusInternalServerError, rpcError("genesis chunks are not initialized"))
				return
			}
			g.serveChunk(w, r, rpcURL)
			return
		}
		rpcProxy.ServeHTTP(w, r)
	}))
	g.rest = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.balances.Load() && (strings.HasPrefix(r.URL.Path, "/cosmos/bank/v1beta1/balances") || strings.HasPrefix(r.URL.Path, "/cosmos/auth/v1beta1/accounts")) {
			g.refuse(w, http.StatusForbidden, `{"code":7,"message":"forbidden by the provider","details":[]}`)
			return
		}
		restProxy.ServeHTTP(w, r)
	}))
	t.Cleanup(g.rpc.Close)
	t.Cleanup(g.rest.Close)
	return g
}

func rpcError(data string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":-1,"error":{"code":-32603,"message":"Internal error","data":%q}}`, data)
}

func (g *gate) refuse(w http.ResponseWriter, status int, body string) {
	g.refusals.Add(1)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// serveChunk answers /genesis_chunked?chunk=n from the upstream's /genesis, cut in 4 KiB pieces.
func (g *gate) serveChunk(w http.ResponseWriter, r *http.Request, upstream string) {
	resp, err := http.Get(upstream + "/genesis")
	if err != nil {
		g.refuse(w, http.StatusBadGateway, rpcError(err.Error()))
		return
	}
	defer resp.Body.Close()
	var env struct {
		Result struct {
			Genesis json.RawMessage `json:"genesis"`
		} `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		g.refuse(w, http.StatusBadGateway, rpcError(err.Error()))
		return
	}
	const size = 4096
	doc := env.Result.Genesis
	total := (len(doc) + size - 1) / size
	n, err := strconv.Atoi(strings.Trim(r.URL.Query().Get("chunk"), `"`))
	if err != nil || n < 0 || n >= total {
		g.refuse(w, http.StatusInternalServerError, rpcError(fmt.Sprintf("there are %d chunks, %q is invalid", total, r.URL.Query().Get("chunk"))))
		return
	}
	piece := doc[n*size : min(len(doc), (n+1)*size)]
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":-1,"result":{"chunk":"%d","total":"%d","data":"%s"}}`, n, total, base64.StdEncoding.EncodeToString(piece))
}

// TestRichListBehindCatchesUp is the rich list as an extension that cannot start: pointed at
// a node whose /genesis fails and whose balance queries are forbidden, the indexer still
// ingests every block to the top; the rich list stays at 0, says so in /status and in /readyz
// (503, RICH_LIST_BEHIND) and in one log line however often it retries; once a genesis (whole,
// or only through /genesis_chunked) or the chain's balances can be had, it starts, catches up
// and equals the chain's own balance table.
func TestRichListBehindCatchesUp(t *testing.T) {
	n := startNet(t, netConfig())
	if err := n.ProduceBlocks(t.Context(), produced); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		open    func(g *gate)
		started string // the log line saying where the list started from
	}{
		{"genesis-later", func(g *gate) { g.genesis.Store(true) }, "rich list started from genesis"},
		{"genesis-chunked-only", func(g *gate) { g.chunked.Store(true) }, "rich list started from genesis"},
		{"no-genesis-balances-later", func(g *gate) { g.balances.Store(true) }, "rich list started from the chain's balances"},
	}
	for _, r := range rollups {
		for i, tc := range cases {
			// PostgreSQL, where the follower and the block writer are two sessions, for the
			// first case; SQLite for all.
			bes := backends[:1]
			if i == 0 {
				bes = backends
			}
			for _, be := range bes {
				t.Run(r.kind+"/"+tc.name+"/"+be.name, func(t *testing.T) {
					ep := n.Endpoints()[r.chainID]
					g := newGate(t, ep.RPC, ep.REST)
					db := openStore(t, be.dsn(t))
					src, err := ingest.DialSource(g.rpc.URL, g.rest.URL, nil)
					if err != nil {
						t.Fatal(err)
					}
					if _, err := withEVM(ep, r, src, nil, 0, nil); err != nil {
						t.Fatal(err)
					}
					var logs testutil.SyncBuffer
					log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
					p, err := ingest.New(profile.Ingest(ingest.Config{ChainID: r.chainID, VMType: r.kind, AccountPrefix: "init", RichList: true,
						PollInterval: 10 * time.Millisecond, RetryMin: 5 * time.Millisecond, RetryMax: 100 * time.Millisecond,
						ExtensionWait: 100 * time.Millisecond, ExtensionAttemptTimeout: 2 * time.Second, ReadyMaxLag: 2,
						ReadyStaleAfter: time.Minute}, profile.Options{}), src, db, log, nil)
					if err != nil {
						t.Fatal(err)
					}
					cfg := apiConfig(r, db)
					cfg.RichList, cfg.Ready = true, p.Ready
					h := api.New(cfg, db, nil, prometheus.NewRegistry())
					ctx, cancel := context.WithTimeout(context.Background(), timeout)
					defer cancel()
					done := make(chan error, 1)
					go func() { done <- p.Run(ctx) }()

					// Core ingestion reaches the top while the rich list cannot start.
					waitFor(t, "blocks at the top", func() bool {
						hgt, err := db.IndexedHeight(ctx)
						return err == nil && hgt == tip
					})
					waitFor(t, "several refused attempts", func() bool { return g.refusals.Load() >= 6 })
					if rh, err := db.RichListHeight(ctx); err != nil || rh != 0 {
						t.Fatalf("rich_list_height %d (%v) with neither genesis nor balances, want 0", rh, err)
					}
					var st struct {
						Height         int64  `json:"height"`
						RichListHeight *int64 `json:"rich_list_height"`
					}
					statusOf(t, h, &st)
					if st.RichListHeight == nil || *st.RichListHeight != 0 {
						t.Fatalf("/status rich_list_height %v, want 0 shown", st.RichListHeight)
					}
					// The pipeline's own view of its height follows the store's commit by a moment.
					rec := get(h, "/readyz")
					waitFor(t, "/readyz naming the rich list", func() bool {
						rec = get(h, "/readyz")
						return rec.Code == http.StatusServiceUnavailable && strings.Contains(rec.Body.String(), ingest.NotReadyRichList)
					})
					if c := strings.Count(logs.String(), "rich list behind"); c != 1 {
						t.Fatalf("%d 'rich list behind' lines after %d refusals, want 1:\n%s", c, g.refusals.Load(), logs.String())
					}
					t.Logf("at the top with the rich list behind: %d refusals; /readyz: %s", g.refusals.Load(), strings.TrimSpace(rec.Body.String()))

					// The genesis (or the balances) become available: the list starts and catches up.
					tc.open(g)
					waitFor(t, "rich list at the top", func() bool {
						rh, err := db.RichListHeight(ctx)
						return err == nil && rh == tip
					})
					waitFor(t, "/readyz ready", func() bool { return get(h, "/readyz").Code == http.StatusOK })
					statusOf(t, h, &st)
					if st.RichListHeight == nil || *st.RichListHeight != tip {
						t.Fatalf("/status rich_list_height %v, want %d", st.RichListHeight, tip)
					}
					// The "caught up" line follows the state /readyz reads by a moment (it is
					// written after the follower's lock is released), so it is waited for.
					for _, line := range []string{tc.started, "rich list caught up"} {
						deadline := time.Now().Add(10 * time.Second)
						for !strings.Contains(logs.String(), line) {
							if time.Now().After(deadline) {
								t.Fatalf("no %q line:\n%s", line, logs.String())
							}
							time.Sleep(10 * time.Millisecond)
						}
					}
					dc, _ := n.Chain(r.chainID)
					checkRichList(t, db, dc, ep, tip)
					cancel()
					if err := <-done; err != nil {
						t.Fatalf("Run: %v", err)
					}
				})
			}
		}
	}
}

func statusOf(t *testing.T, h http.Handler, v any) {
	t.Helper()
	rec := get(h, "/status")
	if rec.Code != http.StatusOK {
		t.Fatalf("/status %d %s", rec.Code, rec.Body)
	}
	if err := json.Unmarshal(rec.Body.Bytes(), v); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls cond for up to 30 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
