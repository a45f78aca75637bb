package fleet_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/reach"
	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/indexer/profile"

	"github.com/jackc/pgx/v5"

	"github.com/rollgate/rollgate/internal/chain/evmrpc"
	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/chain/replay"
	"github.com/rollgate/rollgate/internal/indexer/api"
	"github.com/rollgate/rollgate/internal/indexer/fleet"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
)

// captured is one captured real chain with rollytics' sample of requests against it.
type captured struct {
	fixture, rollytics, vm string // the chain's fixture, the fixture of rollytics' answers on it, its VM
	id                     string // its chain id
	top                    int64  // the height rollytics' answers were taken at
	url                    string // the replay server, stopping at top
	richList               bool
}

// moving is a copy of a captured chain served again up to a tip that the test moves.
type moving struct {
	captured // url is the moving replay's
	tip      atomic.Int64
}

// serveMoving serves c's capture up to a tip starting at from, as chain id (c's own when
// empty).
func serveMoving(t testing.TB, c *captured, id string, from int64) *moving {
	t.Helper()
	m := &moving{captured: *c}
	m.tip.Store(from)
	srv, err := replay.New(testutil.Fixture(t, c.fixture), replay.MaxHeight(m.tip.Load), replay.HeightFallback(replay.NFTFacts))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	m.url = hs.URL
	if id != "" {
		m.id = id
	}
	return m
}

// advance moves each chain's tip a block on every period, none past its top, until stop
// closes.
func advance(stop <-chan struct{}, period time.Duration, chains ...*moving) {
	tk := time.NewTicker(period)
	defer tk.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tk.C:
			for _, c := range chains {
				if c.tip.Load() < c.top {
					c.tip.Add(1)
				}
			}
		}
	}
}

// capturedChains serves the three captured chains (one per VM kind), each stopping at the
// height of rollytics' sample, as internal/indexer/conformance does.
func capturedChains(t testing.TB) []*captured {
	cs := []*captured{
		{fixture: "minievm", rollytics: "rollytics", vm: "evm", richList: true},
		// The Move capture has no /genesis, where the rich list starts from.
		{fixture: "minimove", rollytics: "rollytics-move", vm: "move"},
		{fixture: "miniwasm", rollytics: "rollytics-wasm", vm: "wasm", richList: true},
	}
	for _, c := range cs {
		var st struct {
			ChainID string `json:"chain_id"`
			Height  int64  `json:"height"`
		}
		b, err := os.ReadFile(filepath.Join(testutil.Fixture(t, c.rollytics), "responses", "status.body"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		c.id, c.top = st.ChainID, st.Height
		top := c.top
		srv, err := replay.New(testutil.Fixture(t, c.fixture), replay.MaxHeight(func() int64 { return top }),
			replay.HeightFallback(replay.NFTFacts))
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(srv)
		t.Cleanup(hs.Close)
		c.url = hs.URL
	}
	return cs
}

func (c *captured) spec() fleet.Chain {
	rl := c.richList
	s := fleet.Chain{ID: c.id, VMType: c.vm, RPC: c.url, REST: c.url, RichList: &rl}
	if vmkind.Kind(c.vm) == vmkind.EVM {
		s.JSONRPC = c.url
	}
	return s
}

func writeChains(t testing.TB, path string, chains ...fleet.Chain) {
	t.Helper()
	b, err := json.Marshal(map[string]any{"chains": chains})
	if err != nil {
		t.Fatal(err)
	}
	// Rename, so a reload never reads half a file.
	if err := os.WriteFile(path+".tmp", b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
}

func fastIngest() ingest.Config {
	return ingest.Config{RichList: true, PollInterval: 10 * time.Millisecond, RetryMin: 5 * time.Millisecond, RetryMax: 50 * time.Millisecond}
}

// fleetServer is a fleet served as `rollgate indexer --chains` serves it (httpapi.Serve).
type fleetServer struct{ URL string }

// startFleet runs a fleet over the chains file until the test ends and serves it with the
// production transport: fasthttp writes each chain's cached answers and streams
// (fleet.Dispatch), the fleet's handler the rest.
func startFleet(t *testing.T, cfg fleet.Config) (*fleet.Fleet, *fleetServer) {
	t.Helper()
	if cfg.RestartMin == 0 {
		cfg.RestartMin, cfg.RestartMax = 20*time.Millisecond, 200*time.Millisecond
	}
	f, err := fleet.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	srvCtx, stopSrv := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- httpapi.Serve(srvCtx, ln, f, nil) }()
	t.Cleanup(func() {
		stopSrv()
		if err := <-served; !errors.Is(err, context.Canceled) {
			t.Errorf("serve: %v", err)
		}
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("fleet: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("fleet did not stop within 30 s")
		}
	})
	return f, &fleetServer{URL: "http://" + ln.Addr().String()}
}

func get(t testing.TB, u, host string) (int, string, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	return testutil.Do(t, req)
}

// waitHeight waits until the chain's /status at base reports height top (and, on chains that
// serve internal txs, internal txs there too).
func waitHeight(t testing.TB, base string, top int64, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	// /status leaves internal_tx_height out while it is 0 (the follower yields while blocks
	// catch up), so whether the chain keeps internal txs is asked of its routes.
	internal := false
	for time.Now().Before(deadline) {
		st, _, _ := get(t, base+"/indexer/tx/v1/evm-internal-txs?pagination.limit=1", "")
		if st == http.StatusOK || st == http.StatusNotFound {
			internal = st == http.StatusOK
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	var last string
	for time.Now().Before(deadline) {
		st, _, b := get(t, base+"/status", "")
		last = fmt.Sprintf("%d %s", st, b)
		if st == http.StatusOK {
			var s struct {
				Height     int64  `json:"height"`
				InternalTx *int64 `json:"internal_tx_height"`
				RichList   *int64 `json:"rich_list_height"`
			}
			if json.Unmarshal(b, &s) == nil && s.Height == top && (s.InternalTx == nil && !internal || s.InternalTx != nil && *s.InternalTx == top) &&
				(s.RichList == nil || *s.RichList == top) {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s did not reach height %d within %s; last /status: %s", base, top, within, last)
}

// single is the single-chain deployment of c the fleet must equal.
func single(t *testing.T, c *captured, dsn string) *httptest.Server {
	t.Helper()
	return singleServer(t, singleSpec{id: c.id, vm: c.vm, rpc: c.url, rest: c.url, jsonRPC: c.url,
		top: c.top, richList: c.richList, within: 3 * time.Minute}, dsn)
}

// singleSpec is one chain's single-chain deployment: where it is served and what the API says
// of its build.
type singleSpec struct {
	id, vm             string
	rpc, rest, jsonRPC string
	top                int64
	richList           bool
	version, commit    string
	within             time.Duration // to ingest up to top
}

// singleServer ingests s's chain to its top into the store at dsn and serves it: its own
// store, pipeline, internal-tx follower and API, as `rollgate indexer` wires them for one chain.
func singleServer(t *testing.T, s singleSpec, dsn string) *httptest.Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), s.within)
	defer cancel()
	db, err := store.Open(ctx, dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	src, err := ingest.DialSource(s.rpc, s.rest, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := fastIngest()
	cfg.ChainID, cfg.VMType, cfg.AccountPrefix, cfg.RichList, cfg.StopAtHeight = s.id, s.vm, "init", s.richList, s.top
	evm := vmkind.Kind(s.vm) == vmkind.EVM
	if evm {
		rpc, err := evmrpc.New(s.jsonRPC)
		if err != nil {
			t.Fatal(err)
		}
		src.WithEVM(ingest.NewEVMSource(rpc))
	}
	p, err := ingest.New(profile.Ingest(cfg, profile.Options{}), src, db, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if evm {
		f := ingest.NewInternalFollower(ingest.InternalConfig{PollInterval: 10 * time.Millisecond,
			RetryMin: 5 * time.Millisecond, RetryMax: 50 * time.Millisecond, StopAtHeight: s.top}, src.EVM(), db, nil)
		if err := f.Run(ctx); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(api.New(api.Config{ChainID: s.id,
		Features:      profile.For(vmkind.Kind(s.vm)).API(db, profile.Options{RichList: s.richList, InternalTxs: true}),
		AccountPrefix: "init", Version: s.version, CommitHash: s.commit, RichList: s.richList}, db, nil, nil))
	t.Cleanup(srv.Close)
	return srv
}

// rollyticsRecord is one line of a rollytics*/index.jsonl: a request rollytics answered.
type rollyticsRecord struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Status int    `json:"status"`
}

func rollyticsRequests(t *testing.T, fixture string) []rollyticsRecord {
	t.Helper()
	return testutil.ReadJSONL[rollyticsRecord](t, filepath.Join(testutil.Fixture(t, fixture), "index.jsonl"))
}

// TestFleetByteIdentical: the three captured chains (EVM, Move, Wasm) in one fleet, on SQLite
// (a file per chain) and PostgreSQL (a schema per chain of one database); every request of
// rollytics' sample, sent to each chain's prefixed base URL and by its Host header, answers the
// same status, Content-Type and bytes as the single-chain deployment of that chain.
func TestFleetByteIdentical(t *testing.T) {
	backends := []struct {
		name     string
		fleetDB  func(t *testing.T) string
		singleDB func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return "sqlite:" + t.TempDir() },
			func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "single.db") }},
		{"postgres", func(t *testing.T) string { return testutil.PostgresDSN(t) }, func(t *testing.T) string { return testutil.PostgresDSN(t) }},
	}
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			chains := capturedChains(t)
			var specs []fleet.Chain
			for _, c := range chains {
				s := c.spec()
				s.Hosts = []string{c.vm + ".example.test"}
				specs = append(specs, s)
			}
			file := filepath.Join(t.TempDir(), "chains.json")
			writeChains(t, file, specs...)
			fleetDB := be.fleetDB(t)
			_, srv := startFleet(t, fleet.Config{Chains: file, DB: fleetDB, Reload: -1, Ingest: fastIngest(), MaxConns: 8, Budget: 16})
			for _, c := range chains {
				ref := single(t, c, be.singleDB(t))
				base := srv.URL + "/" + c.id
				waitHeight(t, base, c.top, 3*time.Minute)
				compared := 0
				for _, rec := range rollyticsRequests(t, c.rollytics) {
					ws, wct, want := get(t, ref.URL+rec.Path, "")
					// Twice each: the second answer of a cacheable route is written from the
					// chain's cache by the transport itself.
					for _, via := range []struct{ url, host string }{{base + rec.Path, ""}, {base + rec.Path, ""},
						{srv.URL + rec.Path, c.vm + ".example.test"}, {srv.URL + rec.Path, c.vm + ".example.test"}} {
						gs, gct, got := get(t, via.url, via.host)
						if gs != ws || gct != wct || !bytes.Equal(got, want) {
							t.Errorf("%s %s (host %q): %d %s %.300s\nsingle-chain: %d %s %.300s", c.id, rec.Path, via.host, gs, gct, got, ws, wct, want)
						}
					}
					compared++
				}
				t.Logf("%s: %d requests byte-identical through the prefix and the Host header", c.id, compared)
				if compared < 20 {
					t.Fatalf("%s: only %d requests compared", c.id, compared)
				}
			}
			if be.name == "postgres" {
				checkSchemas(t, fleetDB, chains)
			}
			// The fleet's own routes: the chain list and a JSON 404 under no chain.
			st, _, b := get(t, srv.URL+"/chains", "")
			if st != http.StatusOK || strings.Count(string(b), `"ready":true`) != 3 {
				t.Errorf("/chains: %d %s", st, b)
			}
			if st, ct, b := get(t, srv.URL+"/no-such-chain/status", ""); st != http.StatusNotFound || !strings.HasPrefix(ct, "application/json") {
				t.Errorf("unknown chain: %d %s %s", st, ct, b)
			}
		})
	}
}

// TestFleetChainDownOthersAdvance: beside a live chain, one chain's node refuses connections
// and another's hangs on every request; the live chain still reaches its top, with an upstream
// budget small enough that the hanging chain would starve it if it could hold the whole of it.
func TestFleetChainDownOthersAdvance(t *testing.T) {
	chains := capturedChains(t)
	live := chains[1] // minimove
	hang := make(chan struct{})
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hanging.Close)
	t.Cleanup(func() { close(hang) })
	refused := httptest.NewServer(http.NotFoundHandler())
	refusedURL := refused.URL
	refused.Close()
	file := filepath.Join(t.TempDir(), "chains.json")
	writeChains(t, file, live.spec(),
		fleet.Chain{ID: "hangs-1", VMType: "wasm", RPC: hanging.URL, REST: hanging.URL},
		fleet.Chain{ID: "down-1", VMType: "move", RPC: refusedURL, REST: refusedURL})
	_, srv := startFleet(t, fleet.Config{Chains: file, DB: "sqlite:" + t.TempDir(), Reload: -1, Ingest: fastIngest(),
		MaxConns: 3, Budget: 4, HTTP: []httpx.Option{httpx.WithTimeout(time.Minute)}})
	waitHeight(t, srv.URL+"/"+live.id, live.top, 3*time.Minute)
	for _, id := range []string{"hangs-1", "down-1"} {
		st, _, b := get(t, srv.URL+"/"+id+"/status", "")
		if st != http.StatusOK || !strings.Contains(string(b), `"height":0`) {
			t.Errorf("%s /status: %d %s", id, st, b)
		}
		if st, _, b := get(t, srv.URL+"/"+id+"/readyz", ""); st != http.StatusServiceUnavailable {
			t.Errorf("%s /readyz: %d %s, want 503", id, st, b)
		}
	}
	// The process is ready (it serves every chain's data), and says which chain is not
	// current and why; /chains says the same (not "store open").
	want := map[string]string{live.id: "ready/", "hangs-1": "not_ready/UPSTREAM_UNREACHABLE", "down-1": "not_ready/UPSTREAM_UNREACHABLE"}
	for _, path := range []string{"/readyz", "/chains"} {
		st, _, b := get(t, srv.URL+path, "")
		if st != http.StatusOK {
			t.Fatalf("%s: %d %s", path, st, b)
		}
		var body struct {
			Chains []struct {
				ID                     string `json:"chain_id"`
				State, Reason, Message string
				Ready                  bool
			} `json:"chains"`
		}
		if err := json.Unmarshal(b, &body); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, c := range body.Chains {
			got[c.ID] = c.State + "/" + c.Reason
			if c.Ready != (c.State == "ready") || (c.State != "ready" && c.Message == "") {
				t.Errorf("%s: %s ready=%v state %s message %q", path, c.ID, c.Ready, c.State, c.Message)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: chains %v, want %v\n%s", path, got, want, b)
		}
	}
	// No redirect of the fleet's own path with a trailing slash (it used to answer 307 to
	// itself): a JSON answer.
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Get(srv.URL + "/readyz/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 == 3 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Errorf("/readyz/: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

// TestFleetReadyzNoChainServing: while no chain's store opens the process is not ready
// (503 NO_CHAIN_SERVING), and /chains says why for each chain.
func TestFleetReadyzNoChainServing(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "chains.json")
	writeChains(t, file, fleet.Chain{ID: "a-1", VMType: "move", RPC: "http://127.0.0.1:1", REST: "http://127.0.0.1:1"})
	_, srv := startFleet(t, fleet.Config{Chains: file, DB: "sqlite:" + notDir, Reload: -1, Ingest: fastIngest()})
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, ct, b := get(t, srv.URL+"/readyz", "")
		_, _, chains := get(t, srv.URL+"/chains", "")
		if st == http.StatusServiceUnavailable && strings.HasPrefix(ct, "application/json") && strings.Contains(string(b), `"NO_CHAIN_SERVING"`) &&
			strings.Contains(string(chains), `"state":"starting","reason":"STORE_UNAVAILABLE"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz: %d %s\n/chains: %s", st, b, chains)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestFleetReload: the chains file is re-read on the interval; a chain added starts being
// indexed without a restart, a removed one stops being served.
func TestFleetReload(t *testing.T) {
	chains := capturedChains(t)
	a, b := chains[1], chains[2] // minimove, miniwasm
	file := filepath.Join(t.TempDir(), "chains.json")
	writeChains(t, file, a.spec())
	f, srv := startFleet(t, fleet.Config{Chains: file, DB: "sqlite:" + t.TempDir(), Reload: 50 * time.Millisecond, Ingest: fastIngest()})
	waitHeight(t, srv.URL+"/"+a.id, a.top, 3*time.Minute)
	if st, _, _ := get(t, srv.URL+"/"+b.id+"/status", ""); st != http.StatusNotFound {
		t.Fatalf("%s served before it was added: %d", b.id, st)
	}
	writeChains(t, file, a.spec(), b.spec())
	waitHeight(t, srv.URL+"/"+b.id, b.top, 3*time.Minute)
	writeChains(t, file, b.spec())
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, _, _ := get(t, srv.URL+"/"+a.id+"/status", "")
		if st == http.StatusNotFound {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still served (%d) after its removal", a.id, st)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if ids := f.ChainIDs(); len(ids) != 1 || ids[0] != b.id {
		t.Fatalf("chains after the removal: %v", ids)
	}
	// A broken edit keeps the running set.
	if err := os.WriteFile(file, []byte(`{"chains": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if st, _, _ := get(t, srv.URL+"/"+b.id+"/status", ""); st != http.StatusOK {
		t.Fatalf("%s stopped after an unreadable chains file: %d", b.id, st)
	}
}

// checkSchemas: each chain's tables are in its own schema of the one database, none in public.
func checkSchemas(t *testing.T, dsn string, chains []*captured) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, c := range chains {
		schema := "chain_" + strings.ReplaceAll(c.id, "-", "_")
		var heights int64
		q := "SELECT count(*) FROM " + pgx.Identifier{schema, "schema_version"}.Sanitize()
		if err := conn.QueryRow(ctx, q).Scan(&heights); err != nil || heights == 0 {
			t.Errorf("schema %s: %d migrations, %v", schema, heights, err)
		}
	}
	var public int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").Scan(&public); err != nil || public != 0 {
		t.Errorf("%d tables in public (%v), want none", public, err)
	}
}

// TestFleetBadBlockIsolated: one chain's node serves a block whose txs cannot be built (its
// REST tx list comes back empty from height 10 on, so ingestion fails there again and again);
// its pipeline is restarted with backoff on its own, its API keeps serving what it has, and
// the chain beside it reaches its top.
func TestFleetBadBlockIsolated(t *testing.T) {
	chains := capturedChains(t)
	good, bad := chains[1], chains[2] // minimove, miniwasm
	u, _ := url.Parse(bad.url)
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.ErrorLog = log.New(io.Discard, "", 0) // requests cut off by a pipeline's restart
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h, ok := strings.CutPrefix(r.URL.Path, "/cosmos/tx/v1beta1/txs/block/"); ok {
			if n, err := strconv.Atoi(h); err == nil && n >= 10 {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"txs":[],"block":null,"pagination":{"next_key":null,"total":"0"}}`))
				return
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(broken.Close)
	b := bad.spec()
	b.RPC, b.REST = broken.URL, broken.URL
	file := filepath.Join(t.TempDir(), "chains.json")
	writeChains(t, file, good.spec(), b)
	var logs testutil.SyncBuffer
	_, srv := startFleet(t, fleet.Config{Chains: file, DB: "sqlite:" + t.TempDir(), Reload: -1, Ingest: fastIngest(),
		Log: slog.New(slog.NewTextHandler(&logs, nil))})
	waitHeight(t, srv.URL+"/"+good.id, good.top, 3*time.Minute)
	deadline := time.Now().Add(time.Minute)
	for strings.Count(logs.String(), `msg="chain ingestion failed; restarting it" chain_id=`+bad.id) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("%s's pipeline not restarted twice within a minute; logs:\n%s", bad.id, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	st, _, body := get(t, srv.URL+"/"+bad.id+"/status", "")
	var s struct{ Height int64 }
	if st != http.StatusOK || json.Unmarshal(body, &s) != nil || s.Height >= bad.top {
		t.Fatalf("%s /status: %d %s, want its API serving a height below its top %d", bad.id, st, body, bad.top)
	}
	if strings.Contains(logs.String(), "chain_id="+good.id+" err=") {
		t.Errorf("%s logged an error:\n%s", good.id, logs.String())
	}
	t.Logf("%s at its top %d while %s fails at height %d and is restarted", good.id, good.top, bad.id, s.Height+1)
}

// TestLoadInitiaRegistry reads the real initia-registry snapshot the router's tests keep: a
// checkout (mainnets/ and testnets/) and one network's directory both load, every rollup with
// its VM from metadata.minitia.type, the L1s left out. The counts are the snapshot's files'.
func TestLoadInitiaRegistry(t *testing.T) {
	root := filepath.Join("..", "..", "router", "registry", "testdata", "initia-registry")
	for _, tc := range []struct {
		dir  string
		want map[string]int
	}{
		{root, map[string]int{"evm": 4, "move": 4, "wasm": 3}},
		{filepath.Join(root, "mainnets"), map[string]int{"evm": 3, "move": 3, "wasm": 1}},
		{filepath.Join(root, "testnets"), map[string]int{"evm": 1, "move": 1, "wasm": 2}},
	} {
		chains, err := fleet.Load(tc.dir)
		if err != nil {
			t.Fatalf("%s: %v", tc.dir, err)
		}
		got := map[string]int{}
		for _, c := range chains {
			got[c.VMType]++
			if c.RPC == "" || c.REST == "" || c.AccountPrefix == "" {
				t.Errorf("%s: %s without rpc, rest or prefix: %+v", tc.dir, c.ID, c)
			}
		}
		if !maps.Equal(got, tc.want) {
			t.Errorf("%s: rollups by VM %v, want %v", tc.dir, got, tc.want)
		}
	}
}

// TestFleetChainAwayOnceBackOnce: a chain whose node does not answer at first is logged once
// as unreachable, with no progress line while nothing is written, and once as back when its
// node starts; then it reaches its top.
func TestFleetChainAwayOnceBackOnce(t *testing.T) {
	c := capturedChains(t)[1] // minimove: RPC and REST only
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there until the node "starts"
	spec := c.spec()
	spec.RPC, spec.REST = "http://"+addr, "http://"+addr
	file := filepath.Join(t.TempDir(), "chains.json")
	writeChains(t, file, spec)
	var logs testutil.SyncBuffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	_, srv := startFleet(t, fleet.Config{Chains: file, DB: "sqlite:" + t.TempDir(), Reload: -1, Ingest: fastIngest(), Log: log,
		Reach: reach.Options{Grace: 300 * time.Millisecond}})
	count := func(msg string) int { return strings.Count(logs.String(), `msg="`+msg+`"`) }
	for deadline := time.Now().Add(10 * time.Second); count("upstream unreachable") == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no outage logged:\n%s", logs.String())
		}
	}
	time.Sleep(2 * time.Second) // away a while: nothing more to say
	if n, p := count("upstream unreachable"), count("ingest progress"); n != 1 || p != 0 {
		t.Fatalf("%d outage lines and %d progress lines while away:\n%s", n, p, logs.String())
	}
	rp, err := replay.New(testutil.Fixture(t, c.fixture), replay.MaxHeight(func() int64 { return c.top }), replay.HeightFallback(replay.NFTFacts))
	if err != nil {
		t.Fatal(err)
	}
	node := httptest.NewUnstartedServer(rp)
	if node.Listener, err = net.Listen("tcp", addr); err != nil {
		t.Fatal(err)
	}
	node.Start()
	t.Cleanup(node.Close)
	waitHeight(t, srv.URL+"/"+c.id, c.top, 3*time.Minute)
	for deadline := time.Now().Add(10 * time.Second); count("upstream reachable again") == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the return was not logged:\n%s", logs.String())
		}
	}
	if n, b := count("upstream unreachable"), count("upstream reachable again"); n != 1 || b != 1 {
		t.Errorf("%d outage and %d return lines, want one each:\n%s", n, b, logs.String())
	}
}
