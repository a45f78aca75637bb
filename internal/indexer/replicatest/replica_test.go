package replicatest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/rollgate/rollgate/internal/chain/replay"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
)

// chainFlags name the busy capture's chain.
var chainFlags = []string{"--chain-id", "local-evm-1", "--vm-type", "evm"}

// topology is a writer on a PostgreSQL primary, a reference API on the primary, and two API
// replicas on a streaming hot standby of it, all following the replayed busy capture whose
// head the test moves (top).
type topology struct {
	primary, standby *testutil.PGServer
	pDSN, sDSN       string
	top              *atomic.Int64
	chainURL         string
	writer           *proc
	ref              string   // base URL of the API on the primary
	replicas         []string // base URLs of the API replicas on the standby
}

// topoOpts shape a topology.
type topoOpts struct {
	initial      int64    // the chain's height when the writer starts
	replicaFlags []string // extra flags of the API replicas
	// failover: commits wait for the standby (synchronous_standby_names = '*'), the writer's
	// DSN names both servers with target_session_attrs=read-write, and no API runs on the
	// primary (it is going to die).
	failover bool
}

func newTopology(t *testing.T, o topoOpts) *topology {
	t.Helper()
	dir := testutil.Fixture(t, testutil.Busy)
	top := new(atomic.Int64)
	top.Store(o.initial)
	// The fetch stage may ask an ERC-721 name() at a later height than the capture holds it
	// (heights are fetched concurrently): see replay.HeightFallback.
	srv, err := replay.New(dir, replay.MaxHeight(top.Load), replay.HeightFallback(replay.NFTFacts))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)

	start := time.Now()
	primary, standby := testutil.PGPair(t)
	t.Logf("PostgreSQL primary :%d and hot standby :%d built in %v", primary.Port, standby.Port, time.Since(start).Round(time.Millisecond))
	if o.failover {
		primary.Configure("synchronous_standby_names = '*'", "synchronous_commit = on")
	}
	primary.Exec("", "CREATE DATABASE rollgate")
	tp := &topology{primary: primary, standby: standby, pDSN: primary.DSN("rollgate"), sDSN: standby.DSN("rollgate"), top: top, chainURL: ts.URL}

	// The release order of the guide: migrate, then the writer, then the replicas (which
	// refuse a store without this binary's schema, so they wait until the standby has it).
	runCLI(t, "migrate", "migrate", "--db", tp.pDSN)
	waitStore(t, tp.sDSN)
	writerDSN := tp.pDSN
	if o.failover {
		writerDSN = fmt.Sprintf("postgres://postgres@127.0.0.1:%d,127.0.0.1:%d/rollgate?sslmode=disable&target_session_attrs=read-write",
			primary.Port, standby.Port)
	}
	wAddr := freeAddr(t)
	tp.writer = startCLI(t, "writer", append([]string{"indexer", "--mode", "ingest", "--db", writerDSN,
		"--rpc-url", ts.URL, "--rest-url", ts.URL, "--json-rpc-url", ts.URL, "--listen", wAddr}, chainFlags...)...)
	if !o.failover {
		refAddr := freeAddr(t)
		ref := startCLI(t, "api-primary", append([]string{"indexer", "--mode", "api", "--db", tp.pDSN, "--listen", refAddr}, chainFlags...)...)
		tp.ref = "http://" + refAddr
		waitHTTP(t, ref, tp.ref+"/healthz", 200, 2*time.Minute)
	}
	for i := range 2 {
		addr := freeAddr(t)
		p := startCLI(t, fmt.Sprintf("api-replica-%d", i+1), append(append([]string{"indexer", "--mode", "api", "--db", tp.sDSN, "--listen", addr}, chainFlags...), o.replicaFlags...)...)
		waitHTTP(t, p, "http://"+addr+"/healthz", 200, 2*time.Minute)
		tp.replicas = append(tp.replicas, "http://"+addr)
	}
	waitHTTP(t, tp.writer, "http://"+wAddr+"/healthz", 200, 2*time.Minute)
	return tp
}

// waitStore waits until a reader can open the store at dsn (the schema reached the standby).
func waitStore(t *testing.T, dsn string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		db, err := store.OpenReader(context.Background(), dsn, slog.New(slog.DiscardHandler))
		if err == nil {
			db.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the store never became readable at %s: %v", dsn, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// lagMeter watches the indexed height on the primary and on the standby through the store
// (a reader on each) and records when each height first shows on each side.
type lagMeter struct {
	mu                 sync.Mutex
	onPrimary, onSby   map[int64]time.Time
	maxBlocks          int64 // most blocks the standby was behind while measuring
	samples            int
	measuring          atomic.Bool
	primaryH, standbyH atomic.Int64
}

func startLagMeter(t *testing.T, ctx context.Context, pDSN, sDSN string) *lagMeter {
	t.Helper()
	open := func(dsn string) *store.DB {
		db, err := store.OpenReader(ctx, dsn, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	pdb, sdb := open(pDSN), open(sDSN)
	m := &lagMeter{onPrimary: map[int64]time.Time{}, onSby: map[int64]time.Time{}}
	go func() {
		var lastP, lastS int64
		for ctx.Err() == nil {
			hp, errP := pdb.IndexedHeight(ctx)
			hs, errS := sdb.IndexedHeight(ctx)
			now := time.Now()
			m.mu.Lock()
			if errP == nil {
				for h := lastP + 1; h <= hp; h++ {
					m.onPrimary[h] = now
				}
				lastP = max(lastP, hp)
				m.primaryH.Store(lastP)
			}
			if errS == nil {
				for h := lastS + 1; h <= hs; h++ {
					m.onSby[h] = now
				}
				lastS = max(lastS, hs)
				m.standbyH.Store(lastS)
			}
			if errP == nil && errS == nil && m.measuring.Load() {
				m.samples++
				m.maxBlocks = max(m.maxBlocks, hp-hs)
			}
			m.mu.Unlock()
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return m
}

// report summarises the lag of heights (from, to]: milliseconds between a height's commit
// showing on the primary and on the standby.
func (m *lagMeter) report(from, to int64) (string, time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ds []time.Duration
	for h := from + 1; h <= to; h++ {
		p, ok1 := m.onPrimary[h]
		s, ok2 := m.onSby[h]
		if ok1 && ok2 {
			ds = append(ds, max(0, s.Sub(p)))
		}
	}
	if len(ds) == 0 {
		return "no height measured", 0
	}
	slices.Sort(ds)
	q := func(f float64) time.Duration {
		return ds[min(len(ds)-1, int(f*float64(len(ds))))].Round(time.Millisecond)
	}
	return fmt.Sprintf("%d heights: median %v, p95 %v, max %v; at most %d blocks behind over %d samples",
		len(ds), q(0.5), q(0.95), ds[len(ds)-1].Round(time.Millisecond), m.maxBlocks, m.samples), ds[len(ds)-1]
}

// waitHeight waits until both sides of the meter reach h.
func (m *lagMeter) waitHeight(t *testing.T, h int64, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for m.primaryH.Load() < h || m.standbyH.Load() < h {
		if time.Now().After(deadline) {
			t.Fatalf("height %d not reached in %v: primary at %d, standby at %d", h, timeout, m.primaryH.Load(), m.standbyH.Load())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pace moves the chain head one block every interval until it reaches to.
func pace(ctx context.Context, top *atomic.Int64, to int64, interval time.Duration) {
	for top.Load() < to && ctx.Err() == nil {
		time.Sleep(interval)
		top.Add(1)
	}
}

// envInt reads a positive integer knob, for longer local runs.
func envInt(t *testing.T, name string, def int64) int64 {
	if s := os.Getenv(name); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v <= 0 {
			t.Fatalf("%s=%q: want a positive integer", name, s)
		}
		return v
	}
	return def
}

// TestReplicasOnHotStandby runs the writer on a PostgreSQL primary and two API replicas on a
// streaming hot standby while the busy capture is ingested: first a catch-up of the first
// blocks, then the chain at 2 blocks/s. Throughout, every answer a replica gives is one of a
// single height: its /status height bounds its lists, a page of blocks is contiguous and each
// block in it, the block at its height, the txs of that height and a tx by hash are byte for
// byte the primary's answers; pinned answers revalidate with If-None-Match. Once ingestion
// stops, every list equals the primary's, and so do the events a client of both SSE streams
// on a replica received from the first item on, live and across a cut of a few blocks resumed
// with Last-Event-ID (no gap, no duplicate). The replication lag is measured and logged. Then WAL
// replay is paused on the standby and the replicas must turn unready (REPLICA_LAG), and ready
// again once it resumes.
func TestReplicasOnHotStandby(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two PostgreSQL clusters and runs four rollgate processes")
	}
	initial := envInt(t, "ROLLGATE_REPLICA_INITIAL", 60)
	paced := envInt(t, "ROLLGATE_REPLICA_PACED", 30)
	tp := newTopology(t, topoOpts{initial: initial, replicaFlags: []string{"--ready-max-replica-lag", "2s"}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lag := startLagMeter(t, ctx, tp.pDSN, tp.sDSN)
	final := initial + paced
	// A client of both streams on the first replica: from the first item, live while the
	// writer catches up and then at 2 blocks/s, away for a few blocks of the catch-up (the
	// capture's txs are in its first 66 blocks), back with Last-Event-ID (see checkTape).
	tapes := []*streamTape{
		{t: t, url: tp.replicas[0] + "/indexer/block/v1/blocks/stream", event: "block"},
		{t: t, url: tp.replicas[0] + "/indexer/tx/v1/txs/stream", event: "tx"},
	}
	for _, tape := range tapes {
		tape.open("from=0")
		defer tape.cut()
	}
	// The last block the client saw before the cut; the standby's height at the cut and at the resume.
	var cutAt, cutH, resumedAt int64
	var streamDone sync.WaitGroup
	streamDone.Add(1)
	go func() {
		defer streamDone.Done()
		away := func(h int64) {
			for lag.standbyH.Load() < h && ctx.Err() == nil && !t.Failed() {
				time.Sleep(20 * time.Millisecond)
			}
		}
		// Cut once the client holds block initial/2 (the standby may be past it already) and
		// a tx, so that both resume with Last-Event-ID.
		deadline := time.Now().Add(3 * time.Minute)
		for ctx.Err() == nil && !t.Failed() {
			b, _ := tapes[0].snapshot()
			x, _ := tapes[1].snapshot()
			if len(b) > 0 && len(x) > 0 {
				if h, _ := strconv.ParseInt(b[len(b)-1].ID, 10, 64); h >= initial/2 {
					break
				}
			}
			if time.Now().After(deadline) {
				t.Errorf("the stream client never held block %d and a tx: %d block and %d tx events", initial/2, len(b), len(x))
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		for _, tape := range tapes {
			tape.cut()
		}
		cutH = lag.standbyH.Load()
		evs, _ := tapes[0].snapshot()
		if len(evs) > 0 {
			cutAt, _ = strconv.ParseInt(evs[len(evs)-1].ID, 10, 64)
		}
		away(cutAt + 5)
		// Stay away until a tx was committed after the cut too (the capture has few), so the
		// resume replays txs as well as blocks, while leaving a few blocks to stream live.
		for lag.standbyH.Load() < final-3 && newestTxHeight(t, tp.replicas[0]) <= cutAt && !t.Failed() {
			time.Sleep(100 * time.Millisecond)
		}
		resumedAt = lag.standbyH.Load()
		for _, tape := range tapes {
			tape.open("")
		}
	}()
	lag.waitHeight(t, initial, 3*time.Minute)

	lag.measuring.Store(true)
	paceDone := make(chan struct{})
	go func() { pace(ctx, tp.top, final, 500*time.Millisecond); close(paceDone) }()
	var wg sync.WaitGroup
	var checks atomic.Int64
	for _, r := range tp.replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-paceDone:
					return
				default:
				}
				if checkAtOneHeight(t, r, tp.ref) {
					checks.Add(1)
				}
				if t.Failed() {
					return
				}
			}
		}()
	}
	wg.Wait()
	streamDone.Wait()
	lag.waitHeight(t, final, 2*time.Minute)
	lag.measuring.Store(false)
	summary, _ := lag.report(initial, final)
	t.Logf("replication lag at 2 blocks/s (primary commit to standby visibility): %s", summary)
	t.Logf("%d consistent-height checks passed while ingesting", checks.Load())
	// What each process holds open, for pool sizing: the writer and the API on the primary,
	// the two replicas and this test's meter (one reader each) on the standby.
	t.Logf("sessions on the rollgate database: primary %d (writer, one API, meter), standby %d (two API replicas, meter)",
		sessions(t, tp.primary), sessions(t, tp.standby))
	if checks.Load() == 0 {
		t.Fatal("no replica check completed while ingesting")
	}
	if t.Failed() {
		return
	}

	// Ingestion stopped at final: every replica answers every list as the primary does.
	for _, r := range tp.replicas {
		compareLists(t, r, tp.ref, final)
	}

	// The stream client, once the replica reached final, has received exactly the list items.
	wantTxs := len(listAll(t, tp.replicas[0], "/indexer/tx/v1/txs", "txs"))
	deadline := time.Now().Add(time.Minute)
	for {
		b, _ := tapes[0].snapshot()
		x, _ := tapes[1].snapshot()
		if (len(b) > 0 && b[len(b)-1].ID == strconv.FormatInt(final, 10) && len(x) >= wantTxs) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	nb := checkTape(t, tapes[0], tp.replicas[0], tp.ref, "/indexer/block/v1/blocks", "blocks")
	nx := checkTape(t, tapes[1], tp.replicas[0], tp.ref, "/indexer/tx/v1/txs", "txs")
	xs, _ := tapes[1].snapshot()
	away := 0 // tx events of the blocks committed while the client was away
	for _, ev := range xs {
		var tx struct {
			Height string `json:"height"`
		}
		_ = json.Unmarshal(ev.Data, &tx)
		if h, _ := strconv.ParseInt(tx.Height, 10, 64); h > cutAt && h <= resumedAt {
			away++
		}
	}
	if nb > 0 && nx > 0 {
		t.Logf("streams on the replica: %d block and %d tx events, equal to the list routes; cut after block %d (standby at %d), resumed with Last-Event-ID at standby height %d (%d tx events from the blocks missed)",
			nb, nx, cutAt, cutH, resumedAt, away)
	}
	if resumedAt <= cutAt || away == 0 {
		t.Errorf("the stream client missed no block or no tx while away (cut after %d, resumed at %d, %d txs in between)", cutAt, resumedAt, away)
	}
	for _, tape := range tapes {
		tape.cut()
	}

	// A standby whose replay is paused falls behind; its replicas turn unready, then ready
	// again once replay resumes.
	tp.standby.Exec("", "SELECT pg_wal_replay_pause()")
	go pace(ctx, tp.top, final+20, 500*time.Millisecond)
	for _, r := range tp.replicas {
		a := waitHTTP(t, nil, r+"/readyz", http.StatusServiceUnavailable, 2*time.Minute)
		if !bytes.Contains(a.body, []byte(`"REPLICA_LAG"`)) || a.header.Get("Retry-After") == "" {
			t.Errorf("%s/readyz while replay is paused: %s (Retry-After %q), want REPLICA_LAG with Retry-After", r, a.body, a.header.Get("Retry-After"))
		}
		t.Logf("paused replay: %s/readyz → 503 %s", r, strings.TrimSpace(string(a.body)))
	}
	tp.standby.Exec("", "SELECT pg_wal_replay_resume()")
	for _, r := range tp.replicas {
		waitHTTP(t, nil, r+"/readyz", http.StatusOK, 2*time.Minute)
	}
}

// newestTxHeight is the height of the newest tx replica r lists (0 when none).
func newestTxHeight(t *testing.T, r string) int64 {
	a, ok := get200(t, r+"/indexer/tx/v1/txs?pagination.limit=1")
	if !ok {
		return 0
	}
	var page struct {
		Txs []struct {
			Height string `json:"height"`
		} `json:"txs"`
	}
	if err := json.Unmarshal(a.body, &page); err != nil || len(page.Txs) == 0 {
		return 0
	}
	h, _ := strconv.ParseInt(page.Txs[0].Height, 10, 64)
	return h
}

type blockJSON struct {
	Height string `json:"height"`
}

// checkAtOneHeight makes one round of checks against replica r and reference ref (the primary,
// which is never behind the standby); it reports whether the round was complete.
func checkAtOneHeight(t *testing.T, r, ref string) bool {
	ctx := context.Background()
	h1, ok := statusHeight(t, r)
	if !ok || h1 == 0 {
		return false
	}
	list, ok := get200(t, r+"/indexer/block/v1/blocks?pagination.limit=10")
	if !ok {
		return false
	}
	h2, ok := statusHeight(t, r)
	if !ok {
		return false
	}
	var page struct {
		Blocks     []json.RawMessage `json:"blocks"`
		Pagination struct {
			Total string `json:"total"`
		} `json:"pagination"`
	}
	if err := json.Unmarshal(list.body, &page); err != nil || len(page.Blocks) == 0 {
		t.Errorf("%s blocks page: %v: %.300s", r, err, list.body)
		return false
	}
	var heights []int64
	for _, b := range page.Blocks {
		var bj blockJSON
		_ = json.Unmarshal(b, &bj)
		h, _ := strconv.ParseInt(bj.Height, 10, 64)
		heights = append(heights, h)
	}
	// One height: the page's newest block lies between the /status heights read around it,
	// the page is contiguous, and its total counts exactly the blocks up to its newest one.
	if heights[0] < h1 || heights[0] > h2 {
		t.Errorf("%s: blocks page starts at %d, outside /status heights %d..%d around it", r, heights[0], h1, h2)
	}
	for i := 1; i < len(heights); i++ {
		if heights[i] != heights[i-1]-1 {
			t.Errorf("%s: blocks page not contiguous: %v", r, heights)
			break
		}
	}
	if page.Pagination.Total != strconv.FormatInt(heights[0], 10) {
		t.Errorf("%s: blocks page of newest height %d says total %s", r, heights[0], page.Pagination.Total)
	}
	for i, b := range page.Blocks {
		want, ok := get200(t, fmt.Sprintf("%s/indexer/block/v1/blocks/%d", ref, heights[i]))
		if !ok {
			return false
		}
		var w struct {
			Block json.RawMessage `json:"block"`
		}
		_ = json.Unmarshal(want.body, &w)
		if !bytes.Equal(b, w.Block) {
			t.Errorf("%s: block %d in the list differs from the primary's:\n  replica %.300s\n  primary %.300s", r, heights[i], b, w.Block)
		}
	}

	// The pinned answers at the replica's height equal the primary's and revalidate.
	h := h2
	for _, path := range []string{
		fmt.Sprintf("/indexer/block/v1/blocks/%d", h),
		fmt.Sprintf("/indexer/tx/v1/txs/by_height/%d", h),
	} {
		got, ok1 := get200(t, r+path)
		want, ok2 := get200(t, ref+path)
		if !ok1 || !ok2 {
			return false
		}
		if !bytes.Equal(got.body, want.body) {
			t.Errorf("%s%s differs from the primary's:\n  replica %.300s\n  primary %.300s", r, path, got.body, want.body)
		}
		etag := got.header.Get("ETag")
		if etag == "" {
			t.Errorf("%s%s: pinned answer without ETag (Cache-Control %q)", r, path, got.header.Get("Cache-Control"))
			continue
		}
		a, err := get(ctx, r+path, "If-None-Match", etag)
		if err != nil || a.status != http.StatusNotModified {
			t.Errorf("%s%s If-None-Match %s: %d %v, want 304", r, path, etag, a.status, err)
		}
		if strings.Contains(path, "by_height") {
			var txs struct {
				Txs []struct {
					TxHash string `json:"txhash"`
				} `json:"txs"`
			}
			_ = json.Unmarshal(got.body, &txs)
			if len(txs.Txs) > 0 {
				p := "/indexer/tx/v1/txs/" + txs.Txs[len(txs.Txs)-1].TxHash
				got, ok1 := get200(t, r+p)
				want, ok2 := get200(t, ref+p)
				if ok1 && ok2 && !bytes.Equal(got.body, want.body) {
					t.Errorf("%s%s differs from the primary's", r, p)
				}
			}
		}
	}
	return true
}

func statusHeight(t *testing.T, base string) (int64, bool) {
	a, ok := get200(t, base+"/status")
	if !ok {
		return 0, false
	}
	var st struct {
		Height int64 `json:"height"`
	}
	if err := json.Unmarshal(a.body, &st); err != nil {
		t.Errorf("%s/status: %v: %s", base, err, a.body)
		return 0, false
	}
	return st.Height, true
}

// get200 GETs url and reports an error unless it answers 200 (a replica on a live standby has
// no reason for anything else).
func get200(t *testing.T, url string) (answer, bool) {
	a, err := get(context.Background(), url)
	if err != nil {
		t.Errorf("GET %s: %v", url, err)
		return a, false
	}
	if a.status != http.StatusOK {
		t.Errorf("GET %s: %d %.300s", url, a.status, a.body)
		return a, false
	}
	return a, true
}

// compareLists requires replica r to answer the list routes exactly as ref once both are at
// height final.
func compareLists(t *testing.T, r, ref string, final int64) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		// The height first, then every extension's height with it: the standby replays the
		// internal-tx follower's last commit a moment after the block's.
		h, _ := statusHeight(t, r)
		got, ok1 := get200(t, r+"/status")
		want, ok2 := get200(t, ref+"/status")
		if h == final && ok1 && ok2 && bytes.Equal(got.body, want.body) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s stays at height %d (status %s), want %d (status %s)", r, h, got.body, final, want.body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	paths := []string{
		"/status",
		"/indexer/block/v1/blocks?pagination.limit=100",
		"/indexer/block/v1/blocks?pagination.limit=100&pagination.reverse=false",
		"/indexer/block/v1/avg_blocktime",
		"/indexer/tx/v1/txs?pagination.limit=100",
		"/indexer/tx/v1/txs?pagination.limit=100&pagination.reverse=false",
		"/indexer/tx/v1/txs?pagination.limit=50&pagination.offset=100",
	}
	for _, p := range paths {
		got, ok1 := get200(t, r+p)
		want, ok2 := get200(t, ref+p)
		if ok1 && ok2 && !bytes.Equal(got.body, want.body) {
			t.Errorf("%s%s differs from the primary's once ingestion stopped:\n  replica %.300s\n  primary %.300s", r, p, got.body, want.body)
		}
	}
}

// sessions counts the client sessions on the rollgate database of server s.
func sessions(t *testing.T, s *testutil.PGServer) int64 {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, s.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var n int64
	if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE datname = 'rollgate'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
