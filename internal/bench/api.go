package bench

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/indexer/api"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/indexer/profile"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/store/storetest"
)

// APIConfig is what `rollgate bench api` measures.
type APIConfig struct {
	DSN string
	// Txs is the store size to measure on: a store holding fewer txs is first topped up with
	// storetest.Fill.
	Txs         int
	Concurrency int           // concurrent clients (default 16)
	Duration    time.Duration // per endpoint (default 5 s)
	// Account is the bech32 account of the by_account targets; empty picks the sender of the
	// newest tx.
	Account       string
	AccountPrefix string // default "init"
	// Analyze runs ANALYZE on a PostgreSQL store before measuring. A bulk-loaded database has
	// no planner statistics until autovacuum's analyze gets to it (never, where autovacuum is
	// off), and without them the planner guesses thousands of rows per tx hash.
	Analyze bool
	// CacheMB is the API's response cache in MiB; 0 measures without it (every request reaches
	// the store, as the earliest figures in docs/benchmarks/archive-2026.md did).
	CacheMB int
	// NFTTokens and NFTCollections, when NFTTokens > 0, make sure the store holds that many
	// NFTs (storetest.FillNFTs tops it up) and add the NFT routes to the targets.
	NFTTokens      int
	NFTCollections int
	// RichListHolders, when > 0, makes sure one synthetic denom has that many holders
	// (storetest.FillRichList) and adds its first page and a page 900,000 deep.
	RichListHolders int
	// EVMTxs, when > 0, makes sure the store holds that many EVM txs, each with an internal tx
	// (storetest.FillEVM), and adds the EVM tx and internal tx routes.
	EVMTxs int
	// Transfers, when > 0, makes sure one synthetic account has that many transfers
	// (storetest.FillTransfers) and adds the transfer lists.
	Transfers int
	// Targets, when set, keeps only the endpoints whose name it matches.
	Targets *regexp.Regexp
}

// APIResult is one run's figures.
type APIResult struct {
	Backend   string
	StoreTxs  int64
	Height    int64
	FillTxs   int           // txs added by storetest.Fill before measuring
	FillTime  time.Duration // time storetest.Fill took
	Targets   []Target
	Endpoints []EndpointResult
}

// API fills the store if needed, serves the indexer API over loopback HTTP and drives every
// endpoint with load, printing a table of req/s, p50 and p99.
func API(ctx context.Context, cfg APIConfig, out io.Writer, log *slog.Logger) (APIResult, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 16
	}
	if cfg.Duration <= 0 {
		cfg.Duration = 5 * time.Second
	}
	if cfg.AccountPrefix == "" {
		cfg.AccountPrefix = "init"
	}
	res := APIResult{Backend: backend(cfg.DSN)}
	db, err := openStore(ctx, cfg.DSN, log)
	if err != nil {
		return res, err
	}
	defer db.Close()
	have, err := countTxs(ctx, db)
	if err != nil {
		return res, err
	}
	if have < int64(cfg.Txs) {
		res.FillTxs = cfg.Txs - int(have)
		fmt.Fprintf(out, "filling: the store holds %d txs, adding %d synthetic txs (storetest.Fill)\n", have, res.FillTxs)
		t0 := time.Now()
		if err := storetest.Fill(ctx, db, res.FillTxs, storetest.Options{Prefix: cfg.AccountPrefix}); err != nil {
			return res, err
		}
		res.FillTime = time.Since(t0)
		fmt.Fprintf(out, "filled in %v (%s txs/s)\n", res.FillTime.Truncate(time.Millisecond), floor1(rate(int64(res.FillTxs), res.FillTime)))
	}
	if cfg.NFTTokens > 0 {
		if err := fillNFTs(ctx, db, cfg, out); err != nil {
			return res, err
		}
	}
	if cfg.RichListHolders > 0 {
		if err := fillRichList(ctx, db, cfg, out); err != nil {
			return res, err
		}
	}
	if cfg.EVMTxs > 0 {
		if err := fillEVM(ctx, db, cfg, out); err != nil {
			return res, err
		}
	}
	if cfg.Transfers > 0 {
		if err := fillTransfers(ctx, db, cfg, out); err != nil {
			return res, err
		}
	}
	if res.StoreTxs, err = countTxs(ctx, db); err != nil {
		return res, err
	}
	if cfg.Analyze && res.Backend == "postgres" {
		t0 := time.Now()
		if err := analyze(ctx, cfg.DSN); err != nil {
			return res, err
		}
		fmt.Fprintf(out, "ANALYZE (PostgreSQL planner statistics) took %v\n", time.Since(t0).Truncate(time.Millisecond))
	}
	if res.Height, err = db.IndexedHeight(ctx); err != nil {
		return res, err
	}
	if res.StoreTxs == 0 {
		return res, fmt.Errorf("the store holds no tx: give --txs")
	}
	if res.Targets, err = apiTargets(ctx, db, cfg.Account, cfg.AccountPrefix, res.Height); err != nil {
		return res, err
	}
	if cfg.NFTTokens > 0 {
		nt, err := nftTargets(ctx, db, cfg.AccountPrefix)
		if err != nil {
			return res, err
		}
		res.Targets = append(res.Targets, nt...)
	}
	if cfg.RichListHolders > 0 {
		res.Targets = append(res.Targets, richListTargets(cfg.RichListHolders)...)
	}
	if cfg.EVMTxs > 0 {
		et, err := evmTargets(ctx, db)
		if err != nil {
			return res, err
		}
		res.Targets = append(res.Targets, et...)
	}
	if cfg.Transfers > 0 {
		tt, err := transferTargets(ctx, db)
		if err != nil {
			return res, err
		}
		res.Targets = append(res.Targets, tt...)
	}
	if cfg.Targets != nil {
		res.Targets = slices.DeleteFunc(res.Targets, func(t Target) bool { return !cfg.Targets.MatchString(t.Name) })
		if len(res.Targets) == 0 {
			return res, fmt.Errorf("no endpoint matches %q", cfg.Targets)
		}
	}

	cacheBytes := int64(-1)
	if cfg.CacheMB > 0 {
		cacheBytes = int64(cfg.CacheMB) << 20
	}
	// An EVM chain's API, internal txs on: every route the targets may name.
	features := profile.For(vmkind.EVM).API(db, profile.Options{InternalTxs: true})
	h := api.New(api.Config{ChainID: "bench", Features: features, AccountPrefix: cfg.AccountPrefix, CacheBytes: cacheBytes}, db, log, prometheus.NewRegistry())
	base, stop, err := serveAPI(h) // as `rollgate indexer` serves it
	if err != nil {
		return res, err
	}
	defer stop()
	fmt.Fprintf(out, "api: %s, store of %d txs up to height %d, %d concurrent clients, %v per endpoint\n",
		res.Backend, res.StoreTxs, res.Height, cfg.Concurrency, cfg.Duration)
	res.Endpoints, err = load(ctx, nil, base, res.Targets, cfg.Concurrency, cfg.Duration)
	if err != nil {
		return res, err
	}
	printAPI(out, res)
	return res, nil
}

func printAPI(out io.Writer, r APIResult) {
	fmt.Fprintf(out, "%-24s %9s %7s %10s %9s %9s\n", "endpoint", "requests", "errors", "req/s", "p50 ms", "p99 ms")
	paths := map[string]string{}
	for _, t := range r.Targets {
		paths[t.Name] = t.Path
	}
	byName := map[string]EndpointResult{}
	for _, e := range r.Endpoints {
		byName[e.Name] = e
		fmt.Fprintf(out, "%-24s %9d %7d %10s %9s %9s\n", e.Name, e.Requests, e.Errors, floor1(e.ReqPerSec), ms(e.P50), ms(e.P99))
	}
	for _, e := range r.Endpoints {
		fmt.Fprintf(out, "  %-24s %s\n", e.Name, paths[e.Name])
	}
	first, ok := byName["txs"]
	for _, deep := range []string{"txs_deep_offset", "txs_offset_900000", "txs_deep_cursor"} {
		d, ok2 := byName[deep]
		if !ok || !ok2 || first.P50 == 0 || first.P99 == 0 {
			continue
		}
		fmt.Fprintf(out, "%s vs txs (first page): p50 ×%.2f, p99 ×%.2f\n", deep,
			float64(d.P50)/float64(first.P50), float64(d.P99)/float64(first.P99))
	}
}

// apiTargets is Targets plus what it leaves out: a block by height, a page exactly
// 900,000 rows deep by pagination.offset, and the first and a 90%-deep page of the msgs filter
// on the newest tx's message type.
func apiTargets(ctx context.Context, r store.Reader, account, prefix string, height int64) ([]Target, error) {
	newest, err := r.Txs(ctx, store.TxFilter{}, store.Page{Limit: 1, Desc: true, CountTotal: true})
	if err != nil {
		return nil, err
	}
	var tx newestTx
	if len(newest.Txs) > 0 {
		_ = json.Unmarshal(newest.Txs[0].JSON, &tx)
	}
	x := ingest.NewAccountExtractor(prefix)
	if account == "" {
		account = tx.sender(x)
	}
	if account == "" {
		account = syntheticAccount(prefix)
	}
	t, err := baseTargets(ctx, r, account)
	if err != nil {
		return nil, err
	}
	t = append(t, Target{Name: "block_by_height", Path: "/indexer/block/v1/blocks/" + strconv.FormatInt(height, 10)})
	const deep = 900_000
	if newest.Total >= deep+20 {
		t = append(t, Target{Name: "txs_offset_900000", Path: "/indexer/tx/v1/txs?pagination.limit=20&pagination.offset=" + strconv.Itoa(deep)})
	}
	if mt := tx.msgType(); mt != "" && mt != "cosmos.bank.v1beta1.MsgSend" {
		page, err := r.Txs(ctx, store.TxFilter{MsgTypes: []string{mt}}, store.Page{Limit: 1, CountTotal: true})
		if err != nil {
			return nil, err
		}
		q := "/indexer/tx/v1/txs?pagination.limit=20&msgs=" + url.QueryEscape(mt)
		t = append(t, Target{Name: "txs_msgs_newest_type", Path: q})
		if off := page.Total * 9 / 10; off > 0 {
			key := base64.StdEncoding.EncodeToString([]byte(strconv.FormatInt(off, 10)))
			t = append(t, Target{Name: "txs_msgs_deep", Path: q + "&pagination.key=" + url.QueryEscape(key)})
		}
	}
	return t, nil
}

// newestTx is the part of a stored tx object the target picker reads.
type newestTx struct {
	Tx struct {
		Body struct {
			Messages []struct {
				Type string `json:"@type"`
			} `json:"messages"`
		} `json:"body"`
	} `json:"tx"`
	Events []ingest.Event `json:"events"`
}

// sender is the first parseable `message.sender` of the tx's events, in bech32.
func (t newestTx) sender(x *ingest.AccountExtractor) string {
	for _, ev := range t.Events {
		if ev.Type != "message" {
			continue
		}
		for _, a := range ev.Attributes {
			if a.Key != "sender" {
				continue
			}
			if raw, ok := x.ParseAddress(a.Value); ok {
				return x.Bech32(raw)
			}
		}
	}
	return ""
}

func (t newestTx) msgType() string {
	if len(t.Tx.Body.Messages) == 0 {
		return ""
	}
	return strings.TrimPrefix(t.Tx.Body.Messages[0].Type, "/")
}
