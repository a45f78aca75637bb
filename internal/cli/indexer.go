package cli

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/chain/reach"
	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/indexer/api"
	"github.com/rollgate/rollgate/internal/indexer/fleet"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/indexer/profile"
	"github.com/rollgate/rollgate/internal/price"
	"github.com/rollgate/rollgate/internal/store"
)

// indexerConfig is everything `rollgate indexer` needs, in either of its modes: one chain, or
// with --chains many chains in one process (internal/indexer/fleet, indexer_multi.go). Both
// read one flag set; the defaults that differ between them are indexerModes'. `up` fills
// one per rollup.
type indexerConfig struct {
	Mode       string          // ingest, api or all (many chains: api or all)
	Listen     string          // host:port of the API (or, in ingest mode, of /healthz and /metrics)
	DB         string          // sqlite:<path> or postgres://... (many chains: sqlite:<dir>)
	RPC        string          // comma-separated CometBFT RPC URLs
	REST       string          // comma-separated Cosmos REST URLs
	JSONRPC    string          // comma-separated Ethereum JSON-RPC URLs (EVM chains)
	InternalTx string          // "true"/"false"/"" (auto: on for EVM chains), rollytics' INTERNAL_TX
	internalTx bool            // InternalTx resolved by validate
	profile    profile.Profile // the VM_TYPE's, set by validate
	Ingest     ingest.Config
	MaxConns   int // upstream requests in flight per client (many chains: per chain)
	CORS       corsFlags
	Streams    streamFlags
	Etherscan  etherscanFlags
	CacheMB    int // response cache bound in MiB (many chains: per chain); 0 disables
	BuildInfo  Build
	LogContext []any  // attributes added to every log line (e.g. the chain id under `up`)
	AccessLog  bool   // one info line per request
	Pprof      string // host:port serving /debug/pprof/; empty: off

	// RetainHeights > 0 keeps only the newest RetainHeights heights (store/prune.go).
	RetainHeights int64

	// MaxReplicaLag bounds how far a PostgreSQL hot standby under an API may replay behind
	// its primary and stay ready.
	MaxReplicaLag time.Duration

	// Many chains (--chains): the chain set and how the process shares it.
	Chains    string        // registry directory or JSON chains file; set: many chains
	Reload    time.Duration // how often Chains is read again
	PoolConns int           // PostgreSQL connections per chain
	Budget    int           // upstream requests in flight over every chain
	Hosts     string        // host=chain_id,…
	Leases    bool
	Lease     time.Duration
	Owner     string
	// Registry is the registry directory of the portfolio routes (Minity's shapes under
	// /minity); default --chains when it is a directory, none with a JSON chains file.
	Registry string
	// registryImplied: Registry is --chains, not asked for; a directory the router's registry
	// loader cannot read then disables the portfolio (a warning) instead of the start.
	registryImplied bool
	Prices          priceFlags
}

// The modes of `rollgate indexer`, in indexerModes' columns.
const (
	oneChain = iota
	manyChains
)

// indexerModes is the one table of the defaults that differ between `rollgate indexer`'s modes
// and of the flags only one mode takes; every other flag has one default, in register. Many
// chains share one machine, so each gets a smaller share of the fetches, upstream requests and
// cache than a process for one chain.
var indexerModes = modeTable{
	modes: []string{"one chain", "--chains"},
	rows: []modeRow{
		{"concurrency", []string{"8", "4"}},
		{"max-requests", []string{"32", "16"}},
		{"response-cache-mb", []string{"64", "8"}},
		{"db", []string{"", "sqlite:.rollgate/chains"}},
		// One chain's identity and nodes; with --chains they are each chain's in the chains file.
		{"chain-id", []string{"", notTaken}},
		{"vm-type", []string{"", notTaken}},
		{"account-prefix", []string{"init", notTaken}},
		{"rpc-url", []string{"", notTaken}},
		{"rest-url", []string{"", notTaken}},
		{"json-rpc-url", []string{"", notTaken}},
		{"internal-tx", []string{"", notTaken}},
		{"start-height", []string{"", notTaken}},
		{"stop-height", []string{"", notTaken}},
		{"retain-heights", []string{"", notTaken}},
		{"pprof", []string{"", notTaken}},
		{"etherscan-abi-dir", []string{"", notTaken}},
		{"etherscan-native-denom", []string{"", notTaken}},
		// The fleet's: the chain set, its sharing, and Minity's portfolio over it.
		{"chains-reload", []string{notTaken, "30s"}},
		{"pool-conns", []string{notTaken, "4"}},
		{"upstream-budget", []string{notTaken, "64"}},
		{"chain-hosts", []string{notTaken, ""}},
		{"leases", []string{notTaken, "false"}},
		{"lease", []string{notTaken, "15s"}},
		{"lease-owner", []string{notTaken, ""}},
		{"registry", []string{notTaken, ""}},
		{"prices", []string{notTaken, "true"}},
		{"price-refresh", []string{notTaken, price.DefaultRefresh.String()}},
		{"price-max-age", []string{notTaken, price.DefaultMaxAge.String()}},
		{"price-mapping", []string{notTaken, ""}},
		{"price-oracle-rest", []string{notTaken, ""}},
		{"price-coingecko-url", []string{notTaken, ""}},
		{"price-coingecko-key", []string{notTaken, ""}},
		{"price-coingecko-key-header", []string{notTaken, price.DefaultKeyHeader}},
		{"price-chain-clock", []string{notTaken, "false"}},
		{"price-coingecko-refresh", []string{notTaken, price.DefaultGeckoRefresh.String()}},
	},
}

// many says whether the config is of many chains (--chains).
func (c *indexerConfig) many() bool { return c.Chains != "" }

func (c *indexerConfig) register(f *flags) {
	f.modes = &indexerModes
	f.mode = func() int {
		if c.many() {
			return manyChains
		}
		return oneChain
	}
	f.String(&c.Chains, "chains", "", "many chains in one process: a registry directory (initia-registry layout; its rollups) or a JSON chains file; each chain is served under /{chain_id}/", "ROLLGATE_CHAINS", "INDEXER_CHAINS")
	f.String(&c.Mode, "mode", "all", "ingest (write only; one chain), api (read only, scale out) or all", "ROLLGATE_MODE", "INDEXER_MODE")
	f.String(&c.Listen, "listen", "", "API listen address (default :$PORT, :8080)", "ROLLGATE_LISTEN", "LISTEN_ADDR")
	f.String(&c.DB, "db", "", "store DSN: sqlite:<path> or postgres://... (one chain, empty: sqlite:./.rollgate/<chain-id>.db); with --chains sqlite:<dir> (a file per chain) or postgres://... (a schema per chain)", "DB_DSN")
	f.String(&c.RPC, "rpc-url", "", "CometBFT RPC URLs, comma-separated", "RPC_URL")
	f.String(&c.REST, "rest-url", "", "Cosmos REST URLs, comma-separated", "REST_URL")
	f.String(&c.JSONRPC, "json-rpc-url", "", "Ethereum JSON-RPC URLs, comma-separated (EVM chains)", "JSON_RPC_URL")
	f.Bool(&c.Ingest.RichList, "rich-list", true, "keep the rich list current with every block (from genesis, or the chain state at --start-height; a chain of a JSON chains file may say otherwise)", "RICH_LIST")
	f.String(&c.InternalTx, "internal-tx", "", "index EVM internal txs from call traces (default true on evm chains, not allowed elsewhere)", "INTERNAL_TX")
	f.String(&c.Ingest.ChainID, "chain-id", "", "chain id (required)", "CHAIN_ID")
	f.String(&c.Ingest.VMType, "vm-type", "", "evm, move or wasm (required)", "VM_TYPE")
	f.String(&c.Ingest.AccountPrefix, "account-prefix", "", "bech32 account prefix", "ACCOUNT_ADDRESS_PREFIX")
	f.Int64(&c.Ingest.StartHeight, "start-height", 0, "first height of an empty store (0: from height 1)", "START_HEIGHT")
	f.String(&c.Ingest.OnChainMismatch, "on-chain-mismatch", ingest.OnMismatchHalt, "when the node serves another chain than the store holds (a reset under the same chain id, a repointed node, a fork): halt (write nothing more, /readyz 503 CHAIN_MISMATCH; with --chains that chain only) or reindex (drop the stored data and index the new chain from its first height)", "ROLLGATE_ON_CHAIN_MISMATCH")
	f.Int64(&c.Ingest.StopAtHeight, "stop-height", 0, "stop ingesting once this height is written and serve on what is stored (backfills, comparisons; 0: follow the chain)", "ROLLGATE_STOP_HEIGHT", "STOP_HEIGHT")
	f.Int(&c.Ingest.Concurrency, "concurrency", 0, "heights fetched at once (per chain)", "ROLLGATE_CONCURRENCY", "INGEST_CONCURRENCY")
	f.Int(&c.MaxConns, "max-requests", 0, "upstream requests in flight per endpoint kind (per chain)", "MAX_CONCURRENT_REQUESTS")
	f.Int64(&c.Ingest.ReadyMaxLag, "ready-max-lag", 20, "/readyz: most blocks behind the chain tip still ready", "ROLLGATE_READY_MAX_LAG", "READY_MAX_LAG")
	f.Duration(&c.Ingest.ReadyStaleAfter, "ready-stale-after", 30*time.Second, "/readyz: unready after the chain goes this long unanswered, or ingestion this long without a write while behind", "ROLLGATE_READY_STALE_AFTER", "READY_STALE_AFTER")
	f.Duration(&c.MaxReplicaLag, "ready-max-replica-lag", 30*time.Second, "/readyz: unready while the store's PostgreSQL hot standby replays more than this behind its primary (0: off)", "ROLLGATE_READY_MAX_REPLICA_LAG", "READY_MAX_REPLICA_LAG")
	f.Bool(&c.AccessLog, "access-log", false, "log one line per API request (method, path, status, bytes, duration)", "ROLLGATE_ACCESS_LOG", "ACCESS_LOG")
	f.String(&c.Pprof, "pprof", "", "host:port serving /debug/pprof/ (CPU and heap profiles); empty: off", "ROLLGATE_PPROF")
	f.Bool(&c.Ingest.LocalTxJSON, "local-tx-json", false, "render tx JSON from block bytes instead of asking REST for it", "ROLLGATE_LOCAL_TX_JSON", "LOCAL_TX_JSON")
	c.CORS.register(f)
	c.Etherscan.register(f)
	c.Streams.register(f)
	f.Int64(&c.RetainHeights, "retain-heights", 0, "keep the newest N heights, pruning older ones in the background; older heights answer as on a pruned node (0: keep all; on an api replica, answer as the pruning writer does)", "ROLLGATE_RETAIN_HEIGHTS", "RETAIN_HEIGHTS")
	f.Int(&c.CacheMB, "response-cache-mb", 0, "MiB of answers kept in memory (per chain): blocks and txs until evicted, lists until the next block (0: off)", "ROLLGATE_RESPONSE_CACHE_MB", "RESPONSE_CACHE_MB")
	f.Duration(&c.Reload, "chains-reload", 0, "how often --chains is read again: chains added start, removed ones stop (0: never)", "ROLLGATE_CHAINS_RELOAD", "INDEXER_CHAINS_RELOAD")
	f.Int(&c.PoolConns, "pool-conns", 0, "PostgreSQL connections per chain", "ROLLGATE_POOL_CONNS", "INDEXER_POOL_CONNS")
	f.Int(&c.Budget, "upstream-budget", 0, "upstream requests in flight over every chain, shared in turn (0: no shared bound)", "ROLLGATE_UPSTREAM_BUDGET", "INDEXER_UPSTREAM_BUDGET")
	f.String(&c.Hosts, "chain-hosts", "", "Host headers served as one chain's API at the root: host=chain_id, comma-separated", "ROLLGATE_CHAIN_HOSTS", "INDEXER_CHAIN_HOSTS")
	f.Bool(&c.Leases, "leases", false, "share the chains with other writer processes on the same PostgreSQL by leases (each chain one writer)", "ROLLGATE_LEASES", "INDEXER_LEASES")
	f.Duration(&c.Lease, "lease", 0, "with --leases: how long a lease lasts unrenewed (a dead writer's chains resume elsewhere within lease + lease/3)", "ROLLGATE_LEASE", "INDEXER_LEASE")
	f.String(&c.Owner, "lease-owner", "", "with --leases: this process's name in the lease table (default host-pid-random)", "ROLLGATE_LEASE_OWNER", "INDEXER_LEASE_OWNER")
	f.String(&c.Registry, "registry", "", "registry directory (initia-registry layout) of the portfolio routes under /minity: symbols, decimals, the L1 (default: --chains when it is a directory)", "ROLLGATE_REGISTRY", "INDEXER_REGISTRY")
	c.Prices.register(f)
}

// usage heads the one flag list with the two forms of the command and how to read it.
func (c *indexerConfig) usage(_ *Env, f *flags) {
	f.Usage = func() {
		fmt.Fprint(f.Output(), `Usage: rollgate indexer [flags]                                  (one chain)
       rollgate indexer --chains <registry dir | chains.json> [flags]  (many chains in one process)

One flag set for both. A default in [default one chain: X; --chains: Y] differs by mode;
a flag marked [one chain only] or [--chains only] is a usage error in the other mode.
Every flag also reads the environment variable named in its help (docs/operations.md).

`)
		f.PrintDefaults()
	}
}

func (c *indexerConfig) validate(env *Env) error {
	if err := c.CORS.validate(); err != nil {
		return err
	}
	if err := c.Streams.validate(); err != nil {
		return err
	}
	switch c.Ingest.OnChainMismatch {
	case ingest.OnMismatchHalt, ingest.OnMismatchReindex:
	default:
		return usagef("--on-chain-mismatch (ROLLGATE_ON_CHAIN_MISMATCH) must be halt or reindex, not %q", c.Ingest.OnChainMismatch)
	}
	c.Listen = listenAddr(env, c.Listen, "8080")
	if c.many() {
		return c.validateMany(env)
	}
	return c.validateOne()
}

// validateOne checks the settings of one chain.
func (c *indexerConfig) validateOne() error {
	switch c.Mode {
	case "ingest", "api", "all":
	default:
		return usagef("--mode must be ingest, api or all, not %q", c.Mode)
	}
	if c.Ingest.ChainID == "" {
		return usagef("--chain-id (CHAIN_ID) is required (or --chains for many chains)")
	}
	prof, err := profile.Parse(c.Ingest.VMType)
	if err != nil {
		return usagef("--vm-type (VM_TYPE) must be evm, move or wasm, not %q", c.Ingest.VMType)
	}
	c.profile = prof
	if c.Mode != "api" && (c.RPC == "" || c.REST == "") {
		return usagef("--rpc-url (RPC_URL) and --rest-url (REST_URL) are required to ingest")
	}
	if c.Ingest.StopAtHeight < 0 {
		return usagef("--stop-height (ROLLGATE_STOP_HEIGHT) must be 0 (follow the chain) or a height, not %d", c.Ingest.StopAtHeight)
	}
	if c.RetainHeights < 0 {
		return usagef("--retain-heights (ROLLGATE_RETAIN_HEIGHTS) must be 0 (keep all) or more, not %d", c.RetainHeights)
	}
	if err := c.validateEVM(); err != nil {
		return err
	}
	if c.DB == "" {
		c.DB = "sqlite:" + filepath.Join(".rollgate", c.Ingest.ChainID+".db")
	}
	return c.Ingest.WithDefaults().Validate()
}

func runIndexer(ctx context.Context, env *Env, args []string) error {
	var cfg indexerConfig
	log, err := parseServer(env, "indexer", args, &cfg)
	if err != nil {
		return err
	}
	cfg.BuildInfo = env.Build
	if cfg.many() {
		return runIndexerMulti(ctx, cfg, log) // many chains: indexer_multi.go
	}
	return runServer(ctx, cfg.Listen,
		func(g *group, ln net.Listener) error { return startIndexer(g, cfg, ln, log) },
		func(url string) {
			log.Info("indexer started", "chain_id", cfg.Ingest.ChainID, "mode", cfg.Mode, "url", url)
		},
		func() { log.Info("indexer stopped", "chain_id", cfg.Ingest.ChainID) })
}

// startIndexer opens the store and adds the ingestion pipeline and/or the API server to g.
// The store is g's: it closes once the group has stopped, so no write is cut off by a closing
// database. On an error the caller aborts g, which stops what was already started.
func startIndexer(g *group, cfg indexerConfig, ln net.Listener, log *slog.Logger) error {
	log = log.With(cfg.LogContext...)
	if cfg.Pprof != "" {
		if err := servePprof(g, cfg.Pprof); err != nil {
			return fmt.Errorf("pprof: %w", err)
		}
	}
	// An API replica only reads: it neither creates nor migrates the store (the writer or
	// `rollgate migrate` does), so replicas can start beside a writer of another version.
	open := store.OpenReader
	if cfg.Mode != "api" {
		open = store.Open
		if path, ok := strings.CutPrefix(cfg.DB, "sqlite:"); ok && path != ":memory:" {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
		}
	}
	db, err := open(g.ctx, cfg.DB, log)
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	g.Own(db.Close)
	if cfg.RetainHeights > 0 {
		db.SetRetention(cfg.RetainHeights)
		if cfg.Mode != "api" {
			g.Go(func(ctx context.Context) error {
				return ingest.RunPruner(ctx, db, cfg.RetainHeights, pruneInterval, log)
			})
		}
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))

	var ready func() error
	var chain api.ChainWatcher
	if cfg.Mode != "api" {
		// One watch over the chain's URLs: an outage is one line, its end another (package reach).
		opts := []httpx.Option{httpx.WithLogger(log), httpx.WithConcurrency(cfg.MaxConns), httpx.WithMaxAttempts(0),
			httpx.WithWatch(reach.New(log, reach.Options{})), httpx.WithOutageBackoff(fleet.OutageBackoff)}
		src, err := ingest.DialSource(cfg.RPC, cfg.REST, reg, opts...)
		if err != nil {
			return err
		}
		if err := dialEVM(cfg, src, opts); err != nil {
			return err
		}
		p, err := ingest.New(profile.Ingest(cfg.Ingest, cfg.profileOptions()), src, db, log, reg)
		if err != nil {
			return err
		}
		// Core readiness first, then the extensions' in the profile's order (p.Ready).
		ready, chain = p.Ready, p
		g.Go(func(ctx context.Context) error {
			err := p.Run(ctx)
			if err == nil && ctx.Err() == nil && cfg.Ingest.StopAtHeight > 0 {
				log.Info("stop height written; serving what is stored", "height", cfg.Ingest.StopAtHeight)
				<-ctx.Done()
			}
			return err
		})
	}

	var handler http.Handler
	if cfg.Mode == "ingest" {
		handler = api.NewIngestOnly(ready, log, reg)
	} else {
		po, err := cfg.apiProfileOptions(log)
		if err != nil {
			return err
		}
		// With the response cache on, each new height's polled answers are rendered into it
		// (api's warm.go) until shutdown.
		handler = api.NewServing(g.ctx, api.Config{
			ChainID:       cfg.Ingest.ChainID,
			Features:      cfg.profile.API(db, po),
			AccountPrefix: cfg.Ingest.AccountPrefix,
			Version:       cfg.BuildInfo.Version,
			CommitHash:    cfg.BuildInfo.Commit,
			CORS:          cfg.CORS.config(),
			CacheBytes:    cacheBytes(cfg.CacheMB),
			WriteThrough:  true,
			RichList:      cfg.Ingest.RichList,
			Ready:         ready,
			Chain:         chain,
			MaxReplicaLag: cfg.MaxReplicaLag,
			Streams:       cfg.Streams.options(),
		}, db, log, reg)
	}
	if cfg.AccessLog {
		handler = accessLog(handler, log)
	}
	g.Go(func(ctx context.Context) error { return httpapi.Serve(ctx, ln, handler, log) })
	return nil
}

func runMigrate(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "migrate")
	var dsn string
	f.String(&dsn, "db", "", "store DSN: sqlite:<path> or postgres://... (required)", "DB_DSN")
	if err := f.parse(args); err != nil {
		return err
	}
	if dsn == "" {
		return usagef("--db (DB_DSN) is required")
	}
	if err := store.Migrate(ctx, dsn); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, "migrations applied")
	return nil
}

// cacheBytes turns --response-cache-mb into api.Config.CacheBytes (negative: off).
// pruneInterval is how often the writer prunes: at the devnet's 2 blocks a second, 20 heights.
var pruneInterval = 10 * time.Second

func cacheBytes(mb int) int64 {
	if mb <= 0 {
		return -1
	}
	return int64(mb) << 20
}
