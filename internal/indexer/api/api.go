// Package api is the indexer's read-only HTTP API, wire-compatible with rollytics (see
// docs/contract/indexer.md for where it deliberately differs). Every route is one entry in
// routes.go; every handler has internal/httpapi's one signature and returns a body or an
// error, and httpapi's one wrap turns either into the response, so status codes, error bodies
// (internal/apierr), cache headers, CORS and metrics are decided in one place for both APIs.
package api

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/textclip"
)

// Config is what the API needs to know about the deployment.
type Config struct {
	ChainID string // reported by /status
	// Features are what the chain's VM profile adds to the core routes.
	Features      Features
	AccountPrefix string // bech32 prefix of account addresses; default "init"
	// Decimals is the registry's decimals of a denom of this chain, for the CSV export's
	// decimal amounts; nil or !ok: not known (the columns stay empty).
	Decimals   func(denom string) (decimals int, ok bool)
	Version    string // reported by /status; default "dev"
	CommitHash string // reported by /status; default "unknown"
	// PinnedMaxAge is the Cache-Control max-age of answers that can no longer change (a block
	// or tx by height/hash that exists); default 60 s.
	PinnedMaxAge time.Duration
	// ListMaxAge is the max-age of everything else that succeeded; default 1 s.
	ListMaxAge time.Duration
	// RequestTimeout bounds the store work of one request; default 10 s. Exceeding it is a 504.
	RequestTimeout time.Duration
	// CORS lets browser apps on other origins call the API (off by default).
	CORS httpapi.CORS
	// RichList says the rich list is kept, so /status shows rich_list_height even at 0 (a
	// list that could not start yet is behind, not absent).
	RichList bool
	// Ready, when set, is the ingestion's readiness for /readyz: nil when current, otherwise
	// why not (an error with a ReadyReason() string method gives details[0]).
	Ready func() error
	// Chain, when set, is the ingestion's view of the chain it follows (ingest.Pipeline): when
	// the node turns out to serve another chain, every open stream ends with an "error" event,
	// CHAIN_MISMATCH (ingestion halted) or CHAIN_RESET (the store was dropped to re-index).
	Chain ChainWatcher
	// MaxReplicaLag, when positive, makes /readyz unready (REPLICA_LAG) while the store's
	// PostgreSQL hot standby replays more than this far behind its primary (store.ReplicaState).
	MaxReplicaLag time.Duration
	// CacheBytes bounds the response cache: answers that cannot change (a block, a tx, the txs
	// of an indexed height, list pages whose key pins them: see store's final.go) are kept
	// until evicted, the others until the next indexed block.
	// Default 64 MiB; negative turns the cache off.
	CacheBytes int64
	// Streams tune the live streams (caps, heartbeat, per-client buffer); StreamPoll is how
	// often they read the indexed height (default 250 ms).
	Streams    httpapi.StreamOptions
	StreamPoll time.Duration
	// WriteThrough renders, under NewServing, the answers explorers poll into the response
	// cache as soon as a height is indexed (warm.go).
	WriteThrough bool
	// ChainPoll is how often an API replica (no Chain) reads the store's chain state under
	// NewServing (default 1 s).
	ChainPoll time.Duration

	// warmed, when set (tests), is told each height the write-through warmer has finished
	// with (first the one it started at), by ChainID: the tests compare answers only once the
	// warm step they check is over.
	warmed func(chainID string, height int64)
}

// Features is what a chain's VM profile (internal/indexer/profile) adds to the API: the
// routes, /status fields and OpenAPI paths of its ingest extensions, with the readers that
// serve them. The zero value is the core API.
type Features struct {
	// EVMTxs serves the EVM tx routes. nil: every path under them answers rollytics' 404 and
	// the OpenAPI document leaves them out.
	EVMTxs store.EVMReader
	// InternalTxs, with EVMTxs, serves the internal-tx routes and /status internal_tx_height
	// (rollytics' INTERNAL_TX).
	InternalTxs bool
	// RichList serves the rich list and /status rich_list_height. nil: every denom is an
	// empty list.
	RichList store.RichListReader
	// Etherscan serves the Etherscan-compatible API under /api (etherscan.go); nil: no /api
	// route and no /api path in the OpenAPI document.
	Etherscan *Etherscan
	// HexHolders names rich-list holders in 0x hex and resolves denoms to the ERC-20s the
	// list keeps them under (EVM chains); otherwise holders are bech32 and denoms as given.
	HexHolders bool
	// Transfers serves the transfer lists (transfers.go). nil: their paths answer 404 and
	// the OpenAPI document leaves them out.
	Transfers store.TransferReader
	// TransfersHex names the transfers' accounts in 0x hex (EVM chains); otherwise bech32.
	TransfersHex bool
	// TransferCoinObject, when set, is the object a bank denom's movements carry as their
	// contract (Move chains: the coin's metadata), so a denom filter finds the coin's moves
	// that bypassed x/bank too.
	TransferCoinObject func(denom string) []byte
}

func (c *Config) defaults() {
	if c.AccountPrefix == "" {
		c.AccountPrefix = "init"
	}
	if c.Version == "" {
		c.Version = "dev"
	}
	if c.CommitHash == "" {
		c.CommitHash = "unknown"
	}
	if c.PinnedMaxAge == 0 {
		c.PinnedMaxAge = 60 * time.Second
	}
	if c.ListMaxAge == 0 {
		c.ListMaxAge = time.Second
	}
	if c.RequestTimeout == 0 {
		c.RequestTimeout = 10 * time.Second
	}
	if c.CacheBytes == 0 {
		c.CacheBytes = 64 << 20
	}
}

type server struct {
	cfg   Config
	store store.Reader
	watch *store.HeightWatcher // one poller for every stream of the process
	feed  blockFeed            // the newest blocks, shared by the block streams
	cache *httpapi.Cache
	// cs is the store's chain state (nil for a store without it): its epoch goes into every
	// stream id (stream.go), and epoch is the one this server's cache and window hold.
	cs      chainStater
	epochMu sync.Mutex
	epoch   int64
	// dropped, once a stream asked for it (epochInterrupt), is closed when epoch moves.
	dropped chan struct{}
}

// notFound is the error for a path no route serves, in rollytics' (fiber's) wording.
func notFound(r *http.Request) error {
	return apierr.NotFoundf("Cannot %s %s", r.Method, clip(r.URL.Path))
}

// New returns the API handler. reg receives the API's metrics and is served at /metrics; nil
// means a private registry.
func New(cfg Config, reader store.Reader, logger *slog.Logger, reg *prometheus.Registry) http.Handler {
	_, h := newServer(context.Background(), cfg, reader, logger, reg)
	return h
}

// NewServing is New for a server that lives until ctx ends. Under it an API without Chain
// (an API replica, `--mode api`) reads the store's chain state every ChainPoll, so its
// /readyz (when Ready is nil) and its streams report the writer's CHAIN_MISMATCH and
// CHAIN_RESET; every API drops its response cache and shared stream window when the store is
// re-indexed; and, with WriteThrough and a response cache, the answers explorers poll are
// rendered into it as soon as a height is indexed (warm.go).
func NewServing(ctx context.Context, cfg Config, reader store.Reader, logger *slog.Logger, reg *prometheus.Registry) http.Handler {
	s, h := newServer(ctx, cfg, reader, logger, reg)
	if s.cfg.WriteThrough && s.cfg.CacheBytes > 0 {
		if logger == nil {
			logger = slog.New(slog.DiscardHandler)
		}
		go s.writeThrough(ctx, h, logger)
	}
	return h
}

// newServer builds the API; ctx is its lifetime (one that never ends, as Background: no
// background watch).
func newServer(ctx context.Context, cfg Config, reader store.Reader, logger *slog.Logger, reg *prometheus.Registry) (*server, http.Handler) {
	cfg.defaults()
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &server{cfg: cfg, store: reader, watch: store.NewHeightWatcher(reader, cfg.StreamPoll), cache: httpapi.NewCache(cfg.CacheBytes)}
	s.cs, _ = reader.(chainStater)
	s.feed.moved = s.epochMoved
	s.watchChain(ctx, logger)
	interrupt := s.epochInterrupt
	if s.cfg.Chain != nil {
		interrupt = chainInterrupt(s.cfg.Chain)
	}
	h := httpapi.New(httpapi.Options{
		Namespace:       "rollgate_indexer_api",
		Log:             logger,
		Registry:        reg,
		RequestTimeout:  cfg.RequestTimeout,
		MaxAge:          cfg.ListMaxAge,
		PinnedMaxAge:    cfg.PinnedMaxAge,
		MapError:        mapError,
		NotFound:        notFound,
		OpenAPI:         s.openAPI(),
		CORS:            cfg.CORS,
		Streams:         cfg.Streams,
		StreamInterrupt: interrupt,
		Cache:           s.cache,
		// Every cacheable answer is a function of the request and the indexed height: a cached
		// list is good until the next block.
		Version:    func(ctx context.Context) (int64, error) { return reader.IndexedHeight(ctx) },
		VersionNow: reader.IndexedHeightNow,
	}, s.retained(s.routes()))
	return s, h
}

// mapError turns the store's domain errors into API errors. Handlers map ErrNotFound with
// their own message; this catches one that forgot: still a 404, never a 500.
func mapError(err error) error {
	if e, ok := prunedError(err); ok {
		return e
	}
	if errors.Is(err, store.ErrNotFound) {
		return apierr.NotFoundf("not found")
	}
	// A database that is away (restarting, failing over) is a 503 the client retries (httpapi
	// adds Retry-After), not a 500: the store already retried the read on a fresh connection.
	if store.Unavailable(err) {
		return &apierr.Error{Code: apierr.Unavailable, Message: "store unavailable", Details: []string{"STORE_UNAVAILABLE"}, Cause: err}
	}
	return err
}

// clip keeps echoed input short.
func clip(s string) string { return textclip.Clip(s) }
