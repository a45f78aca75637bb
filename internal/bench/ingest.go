package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/errgroup"

	"github.com/rollgate/rollgate/internal/chain/capture"
	"github.com/rollgate/rollgate/internal/chain/evmrpc"
	"github.com/rollgate/rollgate/internal/chain/replay"
	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/store"
)

// IngestConfig is what `rollgate bench ingest` measures.
type IngestConfig struct {
	DSN     string // store to write into
	Source  string // "busy": the capture replayed over loopback HTTP; "synthetic": its blocks repeated in process
	Fixture string // captured chain: its directory or its .tar.zst (testdata/fixtures/minievm-busy.tar.zst)
	// Txs is how many txs the synthetic source feeds (whole blocks, so a few more); the busy
	// source always feeds the whole capture.
	Txs int
	// Ingest is the pipeline's configuration. StopAtHeight is set here; an empty ChainID,
	// VMType or ProgressInterval becomes local-evm-1, evm and one minute.
	Ingest ingest.Config
	// ReportEvery prints a progress line every this many txs written (0: 100,000).
	ReportEvery int
	// WrapUpstream, when set, wraps the busy source's replay server (the CLI's --faults puts
	// a fault injector there); Faults is its failing share, for the report line.
	WrapUpstream func(http.Handler) http.Handler
	Faults       float64
	// EVM reads each block's receipts over the replayed chain's JSON-RPC, as an indexer of an
	// EVM chain does (EVM txs, ERC-721 and, with Ingest.RichList, ERC-20 balances); InternalTxs
	// also runs the internal-tx follower beside the pipeline. Busy source only.
	EVM, InternalTxs bool
	// Transfers adds the transfers index (ERC-20/721 logs merged with the bank events), as the
	// indexer's EVM profile runs it. Busy source only.
	Transfers bool
}

// IngestResult is what one run achieved.
type IngestResult struct {
	Backend              string
	Source               string
	FromHeight, ToHeight int64
	Blocks, Txs          int64
	Elapsed              time.Duration
	// InternalElapsed is when the internal-tx follower reached ToHeight (0: not run); the
	// run's Elapsed is the later of it and the block writer's.
	BlocksElapsed, InternalElapsed time.Duration
	RichList                       bool
	WriteCalls                     int
	WriteBusy                      time.Duration // time spent inside WriteBlocks
	StoreTxs                       int64         // txs in the store afterwards
	StoreBytes                     int64         // size of the store afterwards (-1 when unknown)
}

// BlocksPerSec is Blocks over Elapsed.
func (r IngestResult) BlocksPerSec() float64 { return rate(r.Blocks, r.Elapsed) }

// TxsPerSec is Txs over Elapsed.
func (r IngestResult) TxsPerSec() float64 { return rate(r.Txs, r.Elapsed) }

// Ingest runs the real ingestion pipeline from the configured source into the store and prints
// the figures to out (progress lines while it runs, then a summary).
func Ingest(ctx context.Context, cfg IngestConfig, out io.Writer, log *slog.Logger) (IngestResult, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	res := IngestResult{Backend: backend(cfg.DSN), Source: cfg.Source, StoreBytes: -1}
	db, indexed, err := openIndexed(ctx, cfg.DSN, log)
	if err != nil {
		return res, err
	}
	defer db.Close()
	res.FromHeight = indexed + 1

	icfg := cfg.Ingest
	if icfg.ChainID == "" {
		icfg.ChainID = "local-evm-1"
	}
	if icfg.VMType == "" {
		icfg.VMType = vmkind.EVM.String()
	}
	if icfg.ProgressInterval == 0 {
		icfg.ProgressInterval = time.Minute
	}

	fixture, err := capture.Dir(cfg.Fixture)
	if err != nil {
		return res, fmt.Errorf("--fixture: %w", err)
	}
	if (cfg.EVM || cfg.InternalTxs) && cfg.Source != "busy" {
		return res, fmt.Errorf("EVM receipts and internal txs need the busy source")
	}
	if cfg.InternalTxs && !cfg.EVM {
		return res, fmt.Errorf("internal txs need the EVM receipts on")
	}
	var src ingest.Source
	var evmSrc ingest.EVMSource
	switch cfg.Source {
	case "busy":
		if indexed > 0 {
			return res, fmt.Errorf("%w (indexed height %d): the busy source replays the capture from height 1, use a fresh store", errStoreNotEmpty, indexed)
		}
		srv, err := replay.New(fixture)
		if err != nil {
			return res, err
		}
		top := srv.CapturedMaxHeight()
		// The captured /status may predate the last captured blocks.
		// The capture holds each ERC-721 name() at the height the capturing indexer asked it;
		// the pipeline asks it wherever a fetcher first meets the contract, and a miss would be
		// retried with backoff (up to ~2.5 s of stall per run, at random).
		srv, err = replay.New(fixture, replay.MaxHeight(func() int64 { return top }), replay.CacheSize(4096),
			replay.HeightFallback(replay.NFTFacts))
		if err != nil {
			return res, err
		}
		var h http.Handler = srv
		if cfg.WrapUpstream != nil {
			h = cfg.WrapUpstream(srv)
		}
		url, stop, err := serveLoopback(h)
		if err != nil {
			return res, err
		}
		defer stop()
		cs, err := ingest.DialSource(url, url, nil)
		if err != nil {
			return res, err
		}
		if cfg.EVM {
			rpc, err := evmrpc.New(url)
			if err != nil {
				return res, err
			}
			evmSrc = ingest.NewEVMSource(rpc)
			cs.WithEVM(evmSrc)
		}
		src = cs
		icfg.StopAtHeight = top
		fmt.Fprintf(out, "ingest: %s, busy source (%s replayed over loopback HTTP, heights 1..%d, faults %.0f%%)\n", res.Backend, cfg.Fixture, top, 100*cfg.Faults)
	case "synthetic":
		if cfg.Txs <= 0 {
			return res, fmt.Errorf("--txs must be positive")
		}
		t0 := time.Now()
		s, err := LoadSyntheticSource(ctx, fixture, 0, log)
		if err != nil {
			return res, err
		}
		stopAt, n := indexed, 0
		for n < cfg.Txs {
			stopAt++
			n += s.TxsAt(stopAt)
		}
		s.head = stopAt
		if indexed > 0 {
			top, err := db.BlockHash(ctx, indexed)
			if err != nil {
				return res, fmt.Errorf("stored block %d: %w", indexed, err)
			}
			s.ContinueFrom(indexed, top)
		}
		src = s
		icfg.StopAtHeight = stopAt
		fmt.Fprintf(out, "ingest: %s, synthetic source (the %d non-empty blocks / %d txs of %s repeated, unique hashes; loaded in %v), heights %d..%d\n",
			res.Backend, s.Len(), s.TxsPerCycle(), cfg.Fixture, time.Since(t0).Truncate(time.Millisecond), indexed+1, stopAt)
	default:
		return res, fmt.Errorf("unknown source %q (busy or synthetic)", cfg.Source)
	}
	// The bench measures subsets of an EVM chain's extensions, so it picks them itself rather
	// than through the profile: only the replayed chain answers NFT queries, genesis and
	// balances, the receipts need --evm, and so does the EVM rich list (its corrections).
	// The internal-tx follower runs apart, below, to time it on its own.
	if cfg.Source == "busy" {
		if icfg.RichList && cfg.EVM {
			icfg.Extensions = append(icfg.Extensions, ingest.RichList(ingest.EVMRichList()))
		}
		icfg.Extensions = append(icfg.Extensions, ingest.NFTs(ingest.EVMNFTs()))
		if cfg.Transfers {
			icfg.Extensions = append(icfg.Extensions, ingest.Transfers(ingest.EVMTransfers()))
		}
		if cfg.EVM {
			icfg.Extensions = append(icfg.Extensions, ingest.EVMTxs())
		}
	}
	icfg = icfg.WithDefaults()
	fmt.Fprintf(out, "pipeline: concurrency %d, window %d, batches of at most %d blocks / %d txs, local tx json %v, EVM receipts %v, internal txs %v, rich list %v\n",
		icfg.Concurrency, icfg.Window, icfg.MaxBatchBlocks, icfg.MaxBatchTxs, icfg.LocalTxJSON, cfg.EVM, cfg.InternalTxs, icfg.RichList)
	res.RichList = icfg.RichList

	every := cfg.ReportEvery
	if every <= 0 {
		every = 100_000
	}
	tw := &timedWriter{DB: db, out: out, every: int64(every)}
	p, err := ingest.New(icfg, src, tw, log, prometheus.NewRegistry())
	if err != nil {
		return res, err
	}
	var follower *ingest.InternalFollower
	if cfg.InternalTxs {
		follower = ingest.NewInternalFollower(ingest.InternalConfig{StopAtHeight: icfg.StopAtHeight}, evmSrc, db, log)
	}
	start := time.Now()
	tw.start, tw.lastT = start, start
	var g errgroup.Group
	g.Go(func() error {
		if err := p.Run(ctx); err != nil {
			return fmt.Errorf("ingest: %w", err)
		}
		res.BlocksElapsed = time.Since(start)
		return nil
	})
	if follower != nil {
		g.Go(func() error {
			if err := follower.Run(ctx); err != nil {
				return fmt.Errorf("internal txs: %w", err)
			}
			res.InternalElapsed = time.Since(start)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return res, err
	}
	res.Elapsed = max(res.BlocksElapsed, res.InternalElapsed)
	if err := ctx.Err(); err != nil {
		return res, err // Run returns nil when cancelled: do not report a partial run as a result
	}
	res.ToHeight = icfg.StopAtHeight
	res.Blocks, res.Txs, res.WriteCalls, res.WriteBusy = tw.blocks, tw.txs, tw.calls, tw.busy

	if res.StoreTxs, err = countTxs(ctx, db); err != nil {
		return res, err
	}
	res.StoreBytes = storeSize(ctx, cfg.DSN)
	printIngest(out, res)
	return res, nil
}

func printIngest(out io.Writer, r IngestResult) {
	fmt.Fprintf(out, "heights       %d..%d\n", r.FromHeight, r.ToHeight)
	fmt.Fprintf(out, "blocks        %d\n", r.Blocks)
	fmt.Fprintf(out, "txs           %d\n", r.Txs)
	fmt.Fprintf(out, "time          %v\n", r.Elapsed.Truncate(time.Millisecond))
	if r.InternalElapsed > 0 || r.RichList {
		// The rich list is written in each block's own transaction, so rich_list_height
		// reaches the top with height; the internal-tx follower trails on its own.
		fmt.Fprintf(out, "height        %d after %v (rich list %v)\n", r.ToHeight, r.BlocksElapsed.Truncate(time.Millisecond), r.RichList)
		if r.InternalElapsed > 0 {
			fmt.Fprintf(out, "internal txs  %d after %v\n", r.ToHeight, r.InternalElapsed.Truncate(time.Millisecond))
		}
	}
	fmt.Fprintf(out, "blocks/s      %s\n", floor1(r.BlocksPerSec()))
	fmt.Fprintf(out, "txs/s         %s\n", floor1(r.TxsPerSec()))
	mean := time.Duration(0)
	if r.WriteCalls > 0 {
		mean = r.WriteBusy / time.Duration(r.WriteCalls)
	}
	busy := 0.0
	if r.Elapsed > 0 {
		busy = 100 * r.WriteBusy.Seconds() / r.Elapsed.Seconds()
	}
	fmt.Fprintf(out, "writer busy   %s%% of the time (%d WriteBlocks calls, mean %v)\n", floor1(busy), r.WriteCalls, mean.Truncate(time.Microsecond))
	fmt.Fprintf(out, "store txs     %d\n", r.StoreTxs)
	fmt.Fprintf(out, "store size    %s\n", bytesString(r.StoreBytes))
}

// timedWriter measures the store's share of the run and prints a line every `every` txs, so
// a writer that slows down as the store grows shows up.
type timedWriter struct {
	*store.DB // the whole store, so every extension finds its side of it
	out       io.Writer
	every     int64

	mu                 sync.Mutex
	start, lastT       time.Time
	blocks, txs, lastN int64
	calls              int
	busy               time.Duration
}

func (w *timedWriter) WriteBlocks(ctx context.Context, bundles []store.BlockBundle) error {
	t0 := time.Now()
	err := w.DB.WriteBlocks(ctx, bundles)
	d := time.Since(t0)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls++
	w.busy += d
	w.blocks += int64(len(bundles))
	for _, b := range bundles {
		w.txs += int64(len(b.Txs))
	}
	if w.txs-w.lastN >= w.every {
		now := time.Now()
		fmt.Fprintf(w.out, "  %9d txs  %8v  %s txs/s since the previous line (last batch: %d blocks, %v)\n",
			w.txs, now.Sub(w.start).Truncate(time.Millisecond), floor1(rate(w.txs-w.lastN, now.Sub(w.lastT))),
			len(bundles), d.Truncate(time.Millisecond))
		w.lastN, w.lastT = w.txs, now
	}
	return nil
}
