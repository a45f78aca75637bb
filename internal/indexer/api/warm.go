package api

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/store"
)

// Write-through (NewServing): when a height is indexed, the answers explorers poll
// next are computed into the response cache before anyone asks (httpapi.Warm: the same
// handlers, render and version rule as a request's miss), so the first request for them is a
// memory read. The warmer learns new heights from the process's one HeightWatcher: on the
// writer a commit wakes it at once (store.DB.Written), on an API replica it reads the store.
// It runs on its own goroutine, never on ingestion's, and does bounded work per wake.

const (
	// warmSpan is the most new heights one wake warms. A larger jump means ingestion is
	// catching up (or the warmer fell behind): nobody polls those heights as the tip, and
	// rendering them would only compete with ingestion, so the wake warms nothing.
	warmSpan = 4
	// warmMaxTxs bounds the tx-by-hash answers warmed per height.
	warmMaxTxs = 100
)

// headPages are the list queries warmed at every new height, for both the block list and the
// tx list: the cache key is the query as sent, so these are the exact spellings. No query
// (rollytics' default page of 100), the pages of 10 and 20 explorers show, Celatone's blocks
// call (pagination.offset=0, pagination.reverse=true; docs/contract/indexer-rollytics.md, appendix
// A) and the one-row page monitors read the head from (scripts/sidebyside/urls.sh).
var headPages = []string{
	"",
	"?pagination.limit=1",
	"?pagination.limit=10",
	"?pagination.limit=20",
	"?pagination.limit=10&pagination.offset=0&pagination.reverse=true",
	"?pagination.limit=20&pagination.offset=0&pagination.reverse=true",
}

// headAnswers are the other answers that move with every height and that explorers poll:
// Celatone's tx count (today the one-row page with its total, soon the count route; see
// docs/indexer-api.md) and the average block time.
var headAnswers = []string{
	"/indexer/tx/v1/txs?pagination.count_total=true&pagination.limit=1",
	"/indexer/tx/v1/txs/count",
	"/indexer/block/v1/avg_blocktime",
}

// writeThrough warms each new height until ctx ends. h is the API's httpapi handler.
func (s *server) writeThrough(ctx context.Context, h http.Handler, log *slog.Logger) {
	// A store that does not answer yet leaves 0: the first wake is then a jump, not warmed,
	// and the warmer goes on from there.
	last, _ := s.store.IndexedHeight(ctx)
	for {
		if f := s.cfg.warmed; f != nil {
			f(s.cfg.ChainID, last)
		}
		top, err := s.watch.Wait(ctx, last)
		if err != nil {
			return // ctx is done
		}
		if werr := s.warmHeights(ctx, h, last, top); werr != nil && ctx.Err() == nil {
			log.Debug("write-through", "height", top, "err", werr)
		}
		last = top
	}
}

// warmHeights warms the answers the heights (from, to] made new: the head pages, then per
// height its block, its txs and each of its txs by hash. It does nothing while ingestion is
// far behind the chain tip.
func (s *server) warmHeights(ctx context.Context, h http.Handler, from, to int64) error {
	if to-from > warmSpan || s.lagging() {
		return nil
	}
	// A store error listing a height's txs still leaves the targets listed before it.
	targets, lerr := s.warmTargets(ctx, max(from+1, 1), to)
	_, err := httpapi.Warm(ctx, h, targets)
	return errors.Join(lerr, err)
}

// lagging reports whether ingestion says it is too far behind the chain tip (the writer's
// readiness; an API replica has none and relies on warmSpan).
func (s *server) lagging() bool {
	if s.cfg.Ready == nil {
		return false
	}
	var rr interface{ ReadyReason() string }
	return errors.As(s.cfg.Ready(), &rr) && rr.ReadyReason() == "LAGGING"
}

// warmTargets lists the URLs to warm for the heights [from, to], newest first.
func (s *server) warmTargets(ctx context.Context, from, to int64) ([]string, error) {
	targets := make([]string, 0, 2*len(headPages)+len(headAnswers)+int(to-from+1)*(2+8))
	for _, q := range headPages {
		targets = append(targets, "/indexer/block/v1/blocks"+q, "/indexer/tx/v1/txs"+q)
	}
	targets = append(targets, headAnswers...)
	for ht := to; ht >= from; ht-- {
		hs := strconv.FormatInt(ht, 10)
		targets = append(targets, "/indexer/block/v1/blocks/"+hs, "/indexer/tx/v1/txs/by_height/"+hs)
		page, err := s.store.Txs(ctx, store.TxFilter{Height: ht}, store.Page{Limit: warmMaxTxs})
		if err != nil {
			return targets, err
		}
		for _, t := range page.Txs {
			var tx struct {
				TxHash string `json:"txhash"`
			}
			// The hash as the lists show it, which is what a client follows.
			if json.Unmarshal(t.JSON, &tx) == nil && tx.TxHash != "" {
				targets = append(targets, "/indexer/tx/v1/txs/"+tx.TxHash)
			}
		}
	}
	return targets, nil
}
