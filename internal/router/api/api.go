// Package api is the router's HTTP API, wire-compatible with the Skip Go API v2 and Initia's
// router (InterwovenKit): route computation, op hooks, message generation, and the
// discovery endpoints (chains, assets, bridges, balances).
//
// One routes table (routes.go) maps patterns to handlers of internal/httpapi's one signature;
// every handler decodes JSON leniently (unknown fields ignored, body size bounded) and
// returns a value or an error. The route engine and the message builder return domain
// errors; mapError here is the one place they become HTTP errors (internal/apierr), so every
// bad input is a 4xx JSON body with a machine reason and no handler leaks a 5xx for client
// mistakes. The Skip wire types are in types.go.
package api

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/price"
	"github.com/rollgate/rollgate/internal/router/msgs"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/route"
	"github.com/rollgate/rollgate/internal/textclip"
)

// Reasons specific to the HTTP layer.
const (
	ReasonInvalidJSON   = "INVALID_JSON"
	ReasonBodyTooLarge  = "BODY_TOO_LARGE"
	ReasonHookNotNeeded = "OP_HOOK_NOT_REQUIRED"
	// ReasonHookAmountRequired: /op-hook without amount_in for a route whose hook continues
	// over IBC (the wrap hook needs no amount).
	ReasonHookAmountRequired = "OP_HOOK_AMOUNT_REQUIRED"
	// ReasonHookChainUnavailable: the hook chain's REST gateway did not say the bridged coin's
	// ERC-20.
	ReasonHookChainUnavailable = "OP_HOOK_CHAIN_UNAVAILABLE"
	ReasonMissingAddress       = "MISSING_ADDRESS"
	// ReasonChainUnavailable: the chain's RPC did not answer (/v2/tx/submit's broadcast).
	ReasonChainUnavailable = "CHAIN_UNAVAILABLE"
)

// BalanceSource reads an account's balances on a chain (base-unit decimal strings by denom).
// registry.RESTBalances implements it over Cosmos REST.
type BalanceSource interface {
	Balances(ctx context.Context, c *registry.Chain, address string) (map[string]string, error)
}

// Config configures the API.
type Config struct {
	// Route holds the route engine's estimates (durations, fees, defaults).
	Route route.Config
	// IBCTimeout is the default relative timeout of generated IBC transfers (5 min when 0).
	IBCTimeout time.Duration
	// MaxBodyBytes bounds request bodies (1 MiB when 0).
	MaxBodyBytes int64
	// Now is the clock for timeouts (time.Now when nil); tests pin it.
	Now func() time.Time
	// Balances serves /v2/info/balances; nil answers each chain with an error entry.
	Balances BalanceSource
	// CORS lets browser apps on other origins call the API (off by default).
	CORS httpapi.CORS
	// Tracker serves /v2/tx/track, /v2/tx/status and /v2/tx/submit; nil answers them with 404
	// TRACKING_DISABLED.
	Tracker Tracker
	// NFTOwners tells /nft who holds a token (nil: each chain's REST, msgs.RESTNFTOwners).
	NFTOwners msgs.NFTOwners
	// LZQuotes quotes LayerZero fees for /msgs from the source chain (msgs.ChainLZQuoter);
	// nil builds sends with the configured Route.LayerZeroFee.
	LZQuotes msgs.LZQuoter
	// Contracts resolves the bridged coin's ERC-20 for /op-hook (nil: RESTContracts).
	Contracts ContractSource
	// StatusStreamPoll is how often /v2/tx/status/stream reads the status (default 1 s).
	StatusStreamPoll time.Duration
	// Streams tune the status streams (caps, heartbeat, per-client buffer).
	Streams httpapi.StreamOptions
	// Prices gives answers their dollar values and serves the priced asset lists; nil leaves
	// every USD field out.
	Prices *price.Service
}

type server struct {
	cfg  Config
	live *registry.Live
	log  *slog.Logger

	mu    sync.Mutex
	graph *route.Graph
}

//go:embed swagger.json
var swaggerDoc []byte

// New returns the router API handler over the live registry. Metrics are registered on prom
// (nil: a private registry) and served at /metrics.
func New(cfg Config, live *registry.Live, log *slog.Logger, prom *prometheus.Registry) http.Handler {
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = 1 << 20
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.NFTOwners == nil {
		cfg.NFTOwners = &msgs.RESTNFTOwners{}
	}
	if cfg.Contracts == nil {
		cfg.Contracts = &RESTContracts{}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &server{cfg: cfg, live: live, log: log}
	return httpapi.New(httpapi.Options{
		Namespace: "rollgate_router_api",
		Log:       log,
		Registry:  prom,
		MapError:  mapError,
		NotFound: func(r *http.Request) error {
			return apierr.NotFoundf("no route for %s %s", r.Method, textclip.Clip(r.URL.Path)).WithDetails("NOT_FOUND")
		},
		OpenAPI: swaggerDoc,
		CORS:    cfg.CORS,
		Streams: cfg.Streams,
	}, s.routes())
}

// mapError is the one place the router's domain errors become HTTP errors: a request the
// route engine or the message builder refuses is a 400, one naming an unknown chain or asset
// a 404, each with its machine reason; anything else is left to apierr (a 5xx).
func mapError(err error) error {
	var re *route.Error
	if !errors.As(err, &re) {
		return err
	}
	code := apierr.InvalidArgument
	if re.Kind == route.Unknown {
		code = apierr.NotFound
	}
	return &apierr.Error{Code: code, Message: re.Message, Details: []string{re.Reason}, Info: re.Info}
}

// current returns the graph of the current registry snapshot, rebuilding it when the
// registry was refreshed.
func (s *server) current() *route.Graph {
	reg := s.live.Current()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.graph == nil || s.graph.Registry() != reg {
		s.graph = route.Build(reg, s.cfg.Route)
	}
	return s.graph
}

func (s *server) builder(g *route.Graph) msgs.Builder {
	return msgs.Builder{Reg: g.Registry(), Now: s.cfg.Now, IBCTimeout: s.cfg.IBCTimeout, LayerZeroFee: s.cfg.Route.LayerZeroFee,
		LZQuotes: s.cfg.LZQuotes}
}

// decode reads a JSON body of at most MaxBodyBytes. A body that announces a larger
// Content-Length is refused before a byte of it is read; one without a length (chunked) is
// cut at the limit.
func (s *server) decode(r *http.Request, v any) error {
	if r.ContentLength > s.cfg.MaxBodyBytes {
		return apierr.TooLarge(s.cfg.MaxBodyBytes).WithDetails(ReasonBodyTooLarge)
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, s.cfg.MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return apierr.TooLarge(s.cfg.MaxBodyBytes).WithDetails(ReasonBodyTooLarge)
		}
		return apierr.BadRequest("cannot read request body").WithDetails(ReasonInvalidJSON)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return apierr.BadRequest("invalid JSON body: %v", err).WithDetails(ReasonInvalidJSON)
	}
	return nil
}
