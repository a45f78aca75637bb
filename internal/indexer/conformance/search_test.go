package conformance

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/replay"
	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/indexer/api"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/indexer/profile"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
	"github.com/rollgate/rollgate/internal/testutil/searchtest"
)

// capturedChain is one captured chain ingested into a store.
type capturedChain struct {
	id  string
	vm  vmkind.Kind
	db  *store.DB
	url string         // the replay server answering as the chain (CometBFT, REST, JSON-RPC)
	srv *replay.Server // its misses
}

// capturedFixtures are the captured real chains, one per VM.
var capturedFixtures = []struct {
	fixture string
	vm      vmkind.Kind
}{{"minievm", vmkind.EVM}, {"minimove", vmkind.Move}, {"miniwasm", vmkind.Wasm}}

// storeBackends are the two stores a captured chain is ingested into: a fresh SQLite file and
// a fresh PostgreSQL database.
var storeBackends = testutil.Backends("index.db")

// ingestCaptured replays a captured chain up to its last height into the store at dsn (the
// rich list on where the capture has a genesis to start it from).
func ingestCaptured(t *testing.T, fixture string, vm vmkind.Kind, dsn string) capturedChain {
	t.Helper()
	srv, err := replay.New(testutil.Fixture(t, fixture), replay.HeightFallback(replay.NFTFacts))
	if err != nil {
		t.Fatal(err)
	}
	chain := httptest.NewServer(srv)
	t.Cleanup(chain.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	db, err := store.Open(ctx, dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	src, err := chainSource(chain.URL)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Result struct {
			NodeInfo struct {
				Network string `json:"network"`
			} `json:"node_info"`
			SyncInfo struct {
				Height string `json:"latest_block_height"`
			} `json:"sync_info"`
		} `json:"result"`
	}
	getJSONURL(t, chain.URL+"/status", &st)
	top, err := strconv.ParseInt(st.Result.SyncInfo.Height, 10, 64)
	if err != nil {
		t.Fatalf("capture status height %q: %v", st.Result.SyncInfo.Height, err)
	}
	p, err := ingest.New(profile.Ingest(ingest.Config{
		ChainID: st.Result.NodeInfo.Network, VMType: vm.String(), AccountPrefix: "init", RichList: vm != vmkind.Move,
		PollInterval: 10 * time.Millisecond, RetryMin: 5 * time.Millisecond, RetryMax: 50 * time.Millisecond,
		StopAtHeight: top,
	}, profile.Options{}), src, db, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Run(ctx); err != nil {
		t.Fatalf("ingest %s: %v", fixture, err)
	}
	return capturedChain{id: st.Result.NodeInfo.Network, vm: vm, db: db, url: chain.URL, srv: srv}
}

func getJSONURL(t *testing.T, u string, v any) {
	t.Helper()
	status, _, body := testutil.Get(t, u)
	if status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", u, status, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
}

// TestSearchCaptured: on each captured real chain, in SQLite and PostgreSQL, one input of each
// kind gives the right hit first (type, id and a route that answers 200), and a string that
// matches nothing answers 200 with an empty list.
func TestSearchCaptured(t *testing.T) {
	for _, be := range storeBackends {
		t.Run(be.Name, func(t *testing.T) {
			var fleet []api.FleetChain
			var firstTx = map[string]string{}
			for _, ch := range capturedFixtures {
				c := ingestCaptured(t, ch.fixture, ch.vm, be.DSN(t))
				feat := profile.For(ch.vm).API(c.db, profile.Options{})
				srv := httptest.NewServer(api.New(api.Config{ChainID: c.id, Features: feat, AccountPrefix: "init"}, c.db, nil, nil))
				t.Cleanup(srv.Close)
				denom := map[vmkind.Kind]string{vmkind.EVM: "GAS", vmkind.Wasm: "umin"}[ch.vm] // the capture's fee denom; Move has no genesis to start the rich list
				cases := searchtest.Cases(t, c.db, c.id, ch.vm, denom)
				firstTx[c.id] = cases[0].Q
				fleet = append(fleet, api.FleetChain{ID: c.id, VMType: ch.vm.String(), AccountPrefix: "init", Base: "/" + c.id, Ready: true, Reader: c.db, Features: feat})
				t.Run(ch.fixture, func(t *testing.T) { searchtest.Run(t, srv.URL, c.id, cases) })
			}
			// Across the fleet: each chain's first tx is found on that chain, under its base.
			fs := httptest.NewServer(api.NewFleet(api.FleetConfig{Chains: func() []api.FleetChain { return fleet }}, nil, nil))
			t.Cleanup(fs.Close)
			searchtest.RunAll(t, fs.URL, firstTx)
		})
	}
}
