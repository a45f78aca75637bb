package api

import (
	"context"
	_ "embed"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/store"
)

// FleetChain is one chain of a multi-chain indexer (internal/indexer/fleet) as the fleet's
// own routes see it.
type FleetChain struct {
	ID     string `json:"chain_id"`
	VMType string `json:"vm_type"`
	// AccountPrefix is the chain's bech32 account prefix.
	AccountPrefix string `json:"account_prefix"`
	Base          string `json:"base"` // the path prefix serving the chain's API ("/{chain_id}")
	// Ready is the chain's own /readyz (CheckReady): its store answers and its ingestion is
	// current. Set by FleetConfig.Readiness only.
	Ready bool `json:"ready"`
	// State is ready, not_ready (serving what it holds; Reason says why it is not current)
	// or starting (its store not open yet: its API answers 503 CHAIN_STARTING).
	State string `json:"state"`
	// Reason is the machine reason of a chain that is not ready (its /readyz details[0]:
	// UPSTREAM_UNREACHABLE, LAGGING, …; CHAIN_STARTING, STORE_UNAVAILABLE while starting),
	// Message the same for a person.
	Reason  string       `json:"reason,omitempty"`
	Message string       `json:"message,omitempty"`
	Height  int64        `json:"indexed_height"` // the store's top height; 0 while starting
	Reader  store.Reader `json:"-"`              // nil while starting: the chain serves once set
	// Features are the chain's VM profile parts (its EVM reader, rich list), as its own API
	// has them; the zero value searches the core tables only.
	Features Features `json:"-"`
}

// Chain states of FleetChain.State.
const (
	ChainReady    = "ready"
	ChainNotReady = "not_ready"
	ChainStarting = "starting"
)

// FleetConfig configures the fleet's own routes.
type FleetConfig struct {
	CORS httpapi.CORS
	// Chains lists the chains as they are now, sorted by id: Reader set once a chain serves
	// (no readiness: cheap, for routing and the cross-rollup views).
	Chains func() []FleetChain
	// Readiness lists them with each chain's readiness (Ready, State, Reason, Height), as
	// /chains and /readyz report it; nil: Chains.
	Readiness func(ctx context.Context) []FleetChain
	// Metrics, when set, is what /metrics serves (the fleet's registry and every chain's,
	// labelled chain_id); nil serves the registry NewFleet is given.
	Metrics prometheus.Gatherer
	// Portfolio, when set, serves the portfolio across the chains in Minity's shapes under
	// MinityPrefix (minity.go).
	Portfolio *PortfolioConfig
	// StreamPoll is how often the cross-rollup streams read each chain's indexed height
	// (default 250 ms); Streams tune them as a chain's API's (caps, heartbeat, buffer).
	StreamPoll time.Duration
	Streams    httpapi.StreamOptions
}

// fleetDoc is the OpenAPI description of the fleet's routes marked InSpec (the cross-rollup
// views); TestFleetSwaggerCoversRoutes keeps the two in step.
//
//go:embed openapi_fleet.json
var fleetDoc []byte

type fleetServer struct {
	cfg FleetConfig

	evmMu    sync.Mutex
	evmCache map[string]evmDenomMap // chain id → rich-list contract → registry denom

	watchMu  sync.Mutex
	watchers map[store.Reader]*store.HeightWatcher // by chain store, for the /all/ streams
}

// NewFleet returns the handler of what a multi-chain indexer serves beside its chains' own
// APIs: the chain list (GET /chains), /healthz, /readyz for the process, and JSON answers for the paths no chain
// serves: a 503 under a chain that is still starting, a 404 elsewhere.
func NewFleet(cfg FleetConfig, logger *slog.Logger, reg *prometheus.Registry) http.Handler {
	s := &fleetServer{cfg: cfg}
	return httpapi.New(httpapi.Options{
		Namespace: "rollgate_indexer_fleet",
		Log:       logger,
		Registry:  reg,
		Gatherer:  cfg.Metrics,
		MapError:  mapError,
		NotFound:  notFound,
		CORS:      cfg.CORS,
		OpenAPI:   fleetDoc,
		Streams:   cfg.Streams,
	}, s.routes())
}

func (s *fleetServer) routes() []httpapi.Route {
	return append(s.minityRoutes(), []httpapi.Route{
		{Pattern: "GET /chains", Handler: s.chains, NoStore: true, InSpec: true},
		{Pattern: "GET /healthz", Handler: func(*http.Request) (any, error) { return map[string]any{"status": "ok"}, nil }, NoStore: true},
		{Pattern: "GET /readyz", Handler: s.readyz, NoStore: true},
		{Pattern: "GET /all/indexer/tx/v1/txs/by_account/{account}", Handler: s.txsByAccountAll, InSpec: true},
		{Pattern: "GET /all/indexer/nft/v1/tokens/by_account/{account}", Handler: s.nftTokensByAccountAll, InSpec: true},
		{Pattern: "GET /all/indexer/richlist/v1/by_account/{account}", Handler: s.balancesByAccountAll, InSpec: true},
		{Pattern: "GET /all/indexer/search/v1", Handler: s.searchAll, InSpec: true},
		{Pattern: "GET /all/indexer/tx/v1/txs/stream", Stream: s.txsStreamAll, InSpec: true},
		{Pattern: "GET /all/indexer/transfer/v1/transfers/stream", Stream: s.transfersStreamAll, InSpec: true},
		{Pattern: "GET /{chain_id}/{rest...}", Handler: s.starting, NoStore: true},
	}...)
}

func (s *fleetServer) chains(r *http.Request) (any, error) {
	return map[string]any{"chains": s.readiness(r.Context())}, nil
}

func (s *fleetServer) readiness(ctx context.Context) []FleetChain {
	var cs []FleetChain
	if s.cfg.Readiness != nil {
		cs = s.cfg.Readiness(ctx)
	} else {
		cs = s.cfg.Chains()
	}
	if cs == nil {
		cs = []FleetChain{}
	}
	return cs
}

// readyz is the process's readiness: ready (200) while it serves some chain, whatever the
// others' state; the body lists every chain's state and reason, as /chains does. A chain
// that is not current is that chain's business (its /{chain_id}/readyz is 503): the process
// still serves it and every other chain, so a balancer must not take it out of rotation.
// 503 NO_CHAIN_SERVING while no chain's store is open (starting, or none configured).
func (s *fleetServer) readyz(r *http.Request) (any, error) {
	cs := s.readiness(r.Context())
	ready, serving := 0, 0
	for _, c := range cs {
		if c.State != ChainStarting {
			serving++
		}
		if c.Ready {
			ready++
		}
	}
	if serving == 0 {
		msg := "not ready: no chain configured"
		if len(cs) > 0 {
			msg = fmt.Sprintf("not ready: none of the %d chains is serving yet", len(cs))
		}
		return nil, &apierr.Error{Code: apierr.Unavailable, Message: msg, Details: []string{"NO_CHAIN_SERVING"}, Expected: true}
	}
	return map[string]any{"status": "ready", "chains_ready": ready, "chains_serving": serving, "chains": cs}, nil
}

// starting answers under a chain the fleet knows but does not serve yet (its store opening):
// a 503 the client retries; under an unknown chain, the 404 of any unknown path.
func (s *fleetServer) starting(r *http.Request) (any, error) {
	id := r.PathValue("chain_id")
	for _, c := range s.cfg.Chains() {
		if c.ID == id {
			return nil, &apierr.Error{Code: apierr.Unavailable, Message: "chain " + clip(id) + " is starting", Details: []string{"CHAIN_STARTING"}, Expected: true}
		}
	}
	return nil, notFound(r)
}
