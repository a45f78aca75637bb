package devnettest

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/errgroup"

	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/indexer/api"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/indexer/profile"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
)

// The fixed devnet every test here runs: the goldens hold for exactly this seed, genesis time
// and number of blocks.
const (
	seed     = 20261121
	produced = 60           // blocks produced after genesis
	tip      = produced + 1 // the genesis block is height 1
)

var genesis = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// rollup is one chain of the test network; kind names its golden directory.
type rollup struct {
	kind    string
	chainID string
}

// vm is the rollup's VM kind.
func (r rollup) vm() vmkind.Kind { return vmkind.Kind(r.kind) }

var rollups = []rollup{
	{vmkind.EVM.String(), "minievm-devnet-1"},
	{vmkind.Move.String(), "minimove-devnet-1"},
	{vmkind.Wasm.String(), "miniwasm-devnet-1"},
}

// netConfig is the network of the three rollups (no L1 and no bridges: the indexer reads one
// rollup at a time and the bridges are not under test), blocks stepped by hand. Each chain
// runs its kind's VM, as in the full devnet.
func netConfig() devnet.Config {
	var specs []devnet.ChainSpec
	for _, r := range rollups {
		specs = append(specs, devnet.ChainSpec{ChainID: r.chainID, Kind: devnet.Kind(r.kind)})
	}
	return devnet.Config{
		Chains:       specs,
		Seed:         seed,
		GenesisTime:  genesis,
		ManualBlocks: true,
	}
}

// startNet starts a network and closes it with the test.
func startNet(t testing.TB, cfg devnet.Config) *devnet.Network {
	t.Helper()
	n, err := devnet.Start(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

// backend is a store kind: its DSN for a fresh, empty store.
type backend struct {
	name string
	dsn  func(t testing.TB) string
}

var backends = []backend{
	{"sqlite", func(t testing.TB) string { return "sqlite:" + filepath.Join(t.TempDir(), "index.db") }},
	{"postgres", func(t testing.TB) string { return testutil.PostgresDSN(t) }},
}

// openStore opens a store and closes it with the test.
func openStore(t testing.TB, dsn string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// ingestChain runs the production pipeline with the production source (the project's CometBFT
// and REST clients over HTTP) from the chain's endpoints into w until height stop is written.
func ingestChain(ctx context.Context, ep devnet.ChainEndpoints, r rollup, w store.Writer, stop int64, opts ...httpx.Option) error {
	return ingestChainWith(ctx, ep, r, w, stop, nil, opts...)
}

// ingestChainWith is ingestChain with the pipeline's configuration adjusted by tune (nil: as is).
func ingestChainWith(ctx context.Context, ep devnet.ChainEndpoints, r rollup, w store.Writer, stop int64, tune func(*ingest.Config), opts ...httpx.Option) error {
	src, err := ingest.DialSource(ep.RPC, ep.REST, nil, opts...)
	if err != nil {
		return err
	}
	follower, err := withEVM(ep, r, src, w, stop, opts)
	if err != nil {
		return err
	}
	cfg := ingest.Config{
		ChainID: r.chainID, VMType: r.kind, AccountPrefix: "init", RichList: true,
		PollInterval: 10 * time.Millisecond, RetryMin: 5 * time.Millisecond, RetryMax: 100 * time.Millisecond,
		StopAtHeight: stop,
	}
	if tune != nil {
		tune(&cfg)
	}
	p, err := ingest.New(profile.Ingest(cfg, profile.Options{}), src, w, nil, nil)
	if err != nil {
		return err
	}
	if follower == nil {
		return p.Run(ctx)
	}
	var g errgroup.Group
	g.Go(func() error { return p.Run(ctx) })
	g.Go(func() error { return follower.Run(ctx) })
	return g.Wait()
}

// apiConfig is the API deployment of a rollup; version and commit are fixed so /status is
// stable.
func apiConfig(r rollup, rd profile.Reader) api.Config {
	return api.Config{ChainID: r.chainID, Features: profile.For(r.vm()).API(rd, profile.Options{InternalTxs: true}),
		AccountPrefix: "init", Version: "v0.0.0-devnettest", CommitHash: "0000000"}
}

// apiStore is a store the API of any rollup reads.
type apiStore interface {
	store.Reader
	profile.Reader
}

func newAPI(r rollup, rd apiStore) http.Handler {
	return api.New(apiConfig(r, rd), rd, nil, prometheus.NewRegistry())
}

// get answers one request in process.
func get(h http.Handler, path string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, "http://indexer.test"+path, nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func dump(t testing.TB, db *store.DB) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := db.Dump(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// timeout bounds one ingestion; the whole package runs in well under it.
const timeout = 60 * time.Second
