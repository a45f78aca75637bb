package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/rollgate/rollgate/internal/bench"
	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/testutil/faults"
)

// runBench dispatches `rollgate bench ingest|api|route|stream`; the measuring lives in internal/bench.
func runBench(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(env.Stderr, "usage: rollgate bench ingest|api|route|stream [flags]\n\n"+
			"  ingest  run the ingestion pipeline into a store and print blocks/s and txs/s\n"+
			"  api     serve the indexer API from a (filled) store and print req/s, p50, p99 per endpoint\n"+
			"  route   time /v2/fungible/route over a generated registry and print p50, p99\n"+
			"  stream  connect subscribers to one API's stream while the capture is ingested at the chain's pace; print delivery p50, p99 and memory per subscriber")
		if len(args) == 0 {
			return usagef("a benchmark is required: ingest, api, route or stream")
		}
		return nil
	}
	switch args[0] {
	case "ingest":
		return benchIngest(ctx, env, args[1:])
	case "api":
		return benchAPI(ctx, env, args[1:])
	case "route":
		return benchRoute(ctx, env, args[1:])
	case "stream":
		return benchStream(ctx, env, args[1:])
	}
	return usagef("unknown benchmark %q: ingest, api, route or stream", args[0])
}

// profiled runs f under a CPU profile written to path, when path is set.
func profiled(path string, f func() error) (err error) {
	if path == "" {
		return f()
	}
	stop, err := bench.StartCPUProfile(path)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stop()) }()
	return f()
}

func benchIngest(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "bench ingest")
	var cfg bench.IngestConfig
	var lg logging
	var profile string
	f.String(&cfg.DSN, "db", "", "store DSN: sqlite:<path> or postgres://... (required)", "DB_DSN")
	f.String(&cfg.Source, "source", "synthetic", "busy (the capture replayed over loopback HTTP) or synthetic (its blocks repeated in process up to --txs)", "ROLLGATE_BENCH_INGEST_SOURCE", "BENCH_SOURCE")
	f.String(&cfg.Fixture, "fixture", "testdata/fixtures/minievm-busy.tar.zst", "captured chain: a directory, or the .tar.zst the repository ships (unpacked once under the temporary directory)", "ROLLGATE_BENCH_INGEST_FIXTURE", "BENCH_FIXTURE")
	f.Int(&cfg.Txs, "txs", 1_000_000, "txs to ingest with the synthetic source", "ROLLGATE_BENCH_INGEST_TXS", "BENCH_TXS")
	f.Int(&cfg.Ingest.Concurrency, "concurrency", 8, "heights fetched at once", "ROLLGATE_BENCH_INGEST_CONCURRENCY", "INGEST_CONCURRENCY")
	f.Int(&cfg.Ingest.MaxBatchBlocks, "batch-blocks", 0, "blocks per write transaction (0: the pipeline's default)")
	f.Int(&cfg.Ingest.MaxBatchTxs, "batch-txs", 0, "txs per write transaction (0: the pipeline's default)")
	f.Bool(&cfg.Ingest.LocalTxJSON, "local-tx-json", false, "render tx JSON from block bytes instead of REST", "ROLLGATE_BENCH_INGEST_LOCAL_TX_JSON", "LOCAL_TX_JSON")
	f.Int(&cfg.ReportEvery, "report-every", 100_000, "print a progress line every this many txs")
	f.Bool(&cfg.EVM, "evm", false, "busy source: read each block's EVM receipts over JSON-RPC, as an EVM chain's indexer does (EVM txs, ERC-721)")
	f.Bool(&cfg.Transfers, "transfers", false, "busy source: keep the transfers index with every block, as the indexer's EVM profile does")
	f.Bool(&cfg.InternalTxs, "internal-txs", false, "busy source with --evm: run the internal-tx follower beside the pipeline and report when it reached the top")
	f.Bool(&cfg.Ingest.RichList, "rich-list", false, "keep the rich list current with every block (from the capture's genesis)")
	f.Float64(&cfg.Faults, "faults", 0, "busy source: share of upstream calls that fail (500, 20 s hang, reset, truncated JSON)", "ROLLGATE_BENCH_INGEST_FAULTS", "BENCH_FAULTS")
	f.String(&profile, "cpuprofile", "", "write a CPU profile to this file")
	lg.register(f)
	if err := f.parse(args); err != nil {
		return err
	}
	if cfg.DSN == "" {
		return usagef("--db (DB_DSN) is required")
	}
	if cfg.Source != "busy" && cfg.Source != "synthetic" {
		return usagef("--source must be busy or synthetic, not %q", cfg.Source)
	}
	if (cfg.EVM || cfg.InternalTxs) && cfg.Source != "busy" {
		return usagef("--evm and --internal-txs need --source busy")
	}
	if cfg.InternalTxs && !cfg.EVM {
		return usagef("--internal-txs needs --evm (the follower traces the blocks whose receipts were read)")
	}
	if cfg.Faults < 0 || cfg.Faults >= 1 || (cfg.Faults > 0 && cfg.Source != "busy") {
		return usagef("--faults must be in [0, 1) and needs --source busy")
	}
	if cfg.Faults > 0 {
		inj := faults.New(faults.Config{Rate: cfg.Faults, Seed: 1, Hang: 20 * time.Second})
		cfg.WrapUpstream = inj.Wrap
	}
	log, err := lg.logger(env.Stderr)
	if err != nil {
		return err
	}
	return profiled(profile, func() error {
		_, err := bench.Ingest(ctx, cfg, env.Stdout, log)
		return err
	})
}

func benchAPI(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "bench api")
	var cfg bench.APIConfig
	var lg logging
	var profile, targets string
	f.String(&cfg.DSN, "db", "", "store DSN: sqlite:<path> or postgres://... (required)", "DB_DSN")
	f.Int(&cfg.Txs, "txs", 1_000_000, "store size to measure on: fewer stored txs are topped up with synthetic ones", "ROLLGATE_BENCH_API_TXS", "BENCH_TXS")
	f.Int(&cfg.Concurrency, "concurrency", 16, "concurrent clients", "ROLLGATE_BENCH_API_CONCURRENCY", "BENCH_CONCURRENCY")
	f.Duration(&cfg.Duration, "duration", 5*time.Second, "load time per endpoint", "ROLLGATE_BENCH_API_DURATION", "BENCH_DURATION")
	f.String(&cfg.Account, "account", "", "account of the by_account targets (default: the sender of the newest tx)")
	f.Bool(&cfg.Analyze, "analyze", true, "run ANALYZE on a PostgreSQL store first (a bulk-loaded database has no planner statistics until autovacuum runs)")
	f.String(&cfg.AccountPrefix, "account-prefix", "init", "bech32 account prefix", "ACCOUNT_ADDRESS_PREFIX")
	f.Int(&cfg.CacheMB, "response-cache-mb", 0, "the API's response cache in MiB (0: off, every request reaches the store)")
	f.Int(&cfg.NFTTokens, "nft-tokens", 0, "also measure the NFT routes, on a store topped up to this many NFTs (0: skip them)")
	f.Int(&cfg.NFTCollections, "nft-collections", 1000, "collections of the synthetic NFTs (one holds 95 % of them)")
	f.Int(&cfg.RichListHolders, "richlist-holders", 0, "also measure the rich list (first page, offset 900,000), on a synthetic denom topped up to this many holders (0: skip it)")
	f.Int(&cfg.EVMTxs, "evm-txs", 0, "also measure the EVM tx and internal tx routes, on a store topped up to this many synthetic EVM txs (0: skip them)")
	f.Int(&cfg.Transfers, "transfers", 0, "also measure the transfer lists (first page, direction, 900,000 deep, by denom), on one synthetic account topped up to this many transfers (0: skip them)")
	f.String(&targets, "targets", "", "measure only the endpoints whose name matches this regular expression (default: all)")
	f.String(&profile, "cpuprofile", "", "write a CPU profile to this file")
	lg.register(f)
	if err := f.parse(args); err != nil {
		return err
	}
	if cfg.DSN == "" {
		return usagef("--db (DB_DSN) is required")
	}
	if targets != "" {
		re, err := regexp.Compile(targets)
		if err != nil {
			return usagef("--targets: %v", err)
		}
		cfg.Targets = re
	}
	if cfg.Concurrency < 1 || cfg.Duration <= 0 {
		return usagef("--concurrency and --duration must be positive")
	}
	log, err := lg.logger(env.Stderr)
	if err != nil {
		return err
	}
	return profiled(profile, func() error {
		_, err := bench.API(ctx, cfg, env.Stdout, log)
		return err
	})
}

func benchRoute(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "bench route")
	var cfg bench.RouteConfig
	var seed int64
	var profile string
	f.Int(&cfg.Chains, "chains", 100, "chains in the generated registry")
	f.Int(&cfg.Assets, "assets", 2000, "assets in the generated registry")
	f.Int(&cfg.Requests, "requests", 10_000, "route requests to time")
	f.Int64(&seed, "seed", 1, "registry and request generator seed")
	f.Bool(&cfg.Prices, "prices", true, "also time a router with USD prices whose refresh runs during the timing, interleaved with the one without")
	f.String(&profile, "cpuprofile", "", "write a CPU profile to this file")
	if err := f.parse(args); err != nil {
		return err
	}
	if cfg.Chains < 2 || cfg.Assets < 1 || cfg.Requests < 1 || seed < 0 {
		return usagef("--chains must be at least 2, --assets and --requests positive, --seed nonnegative")
	}
	cfg.Seed = uint64(seed)
	return profiled(profile, func() error {
		_, err := bench.Route(ctx, cfg, env.Stdout)
		return err
	})
}

func benchStream(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "bench stream")
	var cfg bench.StreamConfig
	var lg logging
	var profile, clientsOf, source string
	var interval time.Duration
	f.String(&cfg.DSN, "db", "", "store DSN: sqlite:<path> or postgres://... (default: a new SQLite file in a temporary directory)", "DB_DSN")
	f.String(&source, "source", "capture", "capture (the busy capture at its block times) or devnet (an in-process devnet's EVM rollup, followed at its --interval)", "ROLLGATE_BENCH_STREAM_SOURCE", "BENCH_SOURCE")
	f.Duration(&interval, "interval", 500*time.Millisecond, "devnet block interval (--source devnet)")
	f.String(&cfg.Fixture, "fixture", "testdata/fixtures/minievm-busy.tar.zst", "captured chain whose blocks are ingested (repeated, unique hashes)", "ROLLGATE_BENCH_STREAM_FIXTURE", "BENCH_FIXTURE")
	f.Int(&cfg.Subs, "subs", 1000, "subscribers", "ROLLGATE_BENCH_STREAM_SUBS", "BENCH_SUBS")
	f.Int(&cfg.Blocks, "blocks", 30, "blocks measured after every subscriber is connected")
	f.Float64(&cfg.Speed, "speed", 1, "pace of the replay: 1 is the captured chain's block times, 2 twice as fast")
	f.String(&cfg.Path, "path", "/indexer/block/v1/blocks/stream", "stream route (with its query) the subscribers open")
	f.Bool(&cfg.ClientsInProcess, "clients-in-process", false, "run the subscribers in this process (the memory figure then counts them too)")
	f.String(&clientsOf, "clients-of", "", "internal: run as the subscriber process of this stream URL")
	f.String(&profile, "cpuprofile", "", "write a CPU profile to this file")
	lg.register(f)
	if err := f.parse(args); err != nil {
		return err
	}
	if cfg.Subs < 1 || cfg.Blocks < 1 || cfg.Speed <= 0 {
		return usagef("--subs, --blocks and --speed must be positive")
	}
	if clientsOf != "" {
		return bench.StreamClients(ctx, clientsOf, cfg.Subs, os.Stdin, env.Stdout) // a child process: its own stdin
	}
	if source != "capture" && source != "devnet" {
		return usagef("--source must be capture or devnet, not %q", source)
	}
	if interval < 10*time.Millisecond {
		return usagef("--interval must be at least 10ms")
	}
	dir, err := os.MkdirTemp("", "rollgate-bench-stream-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if cfg.DSN == "" {
		cfg.DSN = "sqlite:" + filepath.Join(dir, "stream.db")
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cfg.Exe = exe
	cfg.ClientArgs = func(url string, subs int) []string {
		return []string{"bench", "stream", "--clients-of", url, "--subs", strconv.Itoa(subs)}
	}
	log, err := lg.logger(env.Stderr)
	if err != nil {
		return err
	}
	if source == "devnet" {
		// The devnet's EVM rollup (and the L1 it settles on), as `rollgate up` runs it.
		dcfg := devnet.DefaultConfig()
		if dcfg.Chains, err = devnet.ParseChains("initia-devnet-1:l1,minievm-devnet-1:evm"); err != nil {
			return err
		}
		dcfg.BlockInterval, dcfg.PortBase, dcfg.DataDir = interval, 0, filepath.Join(dir, "devnet")
		netw, err := devnet.Start(ctx, dcfg, log.With("component", "devnet"))
		if err != nil {
			return err
		}
		defer netw.Close()
		e := netw.Endpoints()["minievm-devnet-1"]
		cfg.RPC, cfg.REST, cfg.ChainID, cfg.VMType = e.RPC, e.REST, "minievm-devnet-1", "evm"
	}
	return profiled(profile, func() error {
		_, err := bench.Stream(ctx, cfg, env.Stdout, log)
		return err
	})
}
