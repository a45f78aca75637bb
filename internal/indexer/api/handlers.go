package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/store"
)

// paginationJSON always carries all three keys; total is a decimal string.
type paginationJSON struct {
	PreviousKey *string `json:"previous_key"`
	NextKey     *string `json:"next_key"`
	Total       string  `json:"total"`
}

// cursorPagination is rollytics' cursor-mode answer: next_key is the last row's key whenever
// the page is non-empty (so a client looping on next_key ends on an empty page), and
// previous_key is always null.
func cursorPagination(kind store.CursorKind, last int64, n int, total int64) paginationJSON {
	p := paginationJSON{Total: strconv.FormatInt(total, 10)}
	if n > 0 {
		k := encodeCursor(kind, last)
		p.NextKey = &k
	}
	return p
}

type statusJSON struct {
	Version    string `json:"version"`
	CommitHash string `json:"commit_hash"`
	ChainID    string `json:"chain_id"`
	Height     int64  `json:"height"`
	// InternalTxHeight is the internal-tx follower's height (EVM chains with internal txs on).
	InternalTxHeight int64 `json:"internal_tx_height,omitempty"`
	// RichListHeight is the rich list's height: omitted while it is not kept, 0 while it is
	// kept (Config.RichList) but could not start yet, below height while it catches up.
	RichListHeight *int64 `json:"rich_list_height,omitempty"`
	// LowestHeight is the lowest height a pruning store keeps (--retain-heights); omitted
	// when every height is kept.
	LowestHeight int64 `json:"lowest_height,omitempty"`
}

func (s *server) status(r *http.Request) (any, error) {
	st := statusJSON{Version: s.cfg.Version, CommitHash: s.cfg.CommitHash, ChainID: s.cfg.ChainID}
	// The floor before the height: the pruner raises the floor only after the height has
	// risen, so read in this order an answer never shows fewer heights than are kept.
	if err := s.lowestStatus(r, &st); err != nil {
		return nil, err
	}
	h, err := s.store.IndexedHeight(r.Context())
	if err != nil {
		return nil, err
	}
	st.Height = h
	if err := s.evmStatus(r, &st); err != nil {
		return nil, err
	}
	if err := s.richListStatus(r, &st); err != nil {
		return nil, err
	}
	return st, nil
}

func (s *server) healthz(r *http.Request) (any, error) {
	h, err := s.store.IndexedHeight(r.Context())
	if err != nil {
		return nil, &apierr.Error{Code: apierr.Unavailable, Message: "store unavailable", Cause: err}
	}
	return map[string]any{"status": "ok", "height": h}, nil
}

func (s *server) blocks(r *http.Request) (any, error) {
	p, err := pagination(query(r.URL.RawQuery))
	if err != nil {
		return nil, err
	}
	page, err := s.store.Blocks(r.Context(), p)
	if err != nil {
		return nil, err
	}
	var last int64
	if n := len(page.Blocks); n > 0 {
		last = page.Blocks[n-1].Height
	}
	pj, err := json.Marshal(cursorPagination(store.CursorHeight, last, len(page.Blocks), page.Total))
	if err != nil {
		return nil, err
	}
	b := httpapi.BodyBuffer(blockJSONSize*len(page.Blocks) + len(pj) + 32)
	b = append(b, `{"blocks":[`...)
	for i := range page.Blocks {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendBlockJSON(b, &page.Blocks[i])
	}
	b = append(b, `],"pagination":`...)
	b = append(b, pj...)
	b = append(b, "}\n"...)
	if page.Final {
		return httpapi.Pinned{Body: httpapi.PooledRaw(b)}, nil
	}
	return httpapi.PooledRaw(b), nil
}

// blockJSONSize is about what one block's JSON takes (about 360 bytes on a devnet chain).
const blockJSONSize = 400

func (s *server) block(r *http.Request) (any, error) {
	h, err := heightParam(r.PathValue("height"))
	if err != nil {
		return nil, err
	}
	blk, err := s.store.Block(r.Context(), h)
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("[NOT_FOUND] block not found")
	}
	if err != nil {
		return nil, err
	}
	b := httpapi.BodyBuffer(blockJSONSize + 16)
	b = append(b, `{"block":`...)
	b = appendBlockJSON(b, &blk)
	b = append(b, "}\n"...)
	return httpapi.Pinned{Body: httpapi.PooledRaw(b)}, nil
}

// avgBlocks is the window of /avg_blocktime, as rollytics (kvindexer used 1000).
const avgBlocks = 100

func (s *server) avgBlockTime(r *http.Request) (any, error) {
	avg, err := s.store.AvgBlockTime(r.Context(), avgBlocks)
	if err != nil {
		return nil, err
	}
	return struct {
		AvgBlockTime float64 `json:"avg_block_time"`
	}{avg}, nil
}

// txList answers every tx list: the stored tx JSON is spliced into the body unchanged.
func (s *server) txList(r *http.Request, f store.TxFilter, q map[string][]string) (any, error) {
	p, err := pagination(q)
	if err != nil {
		return nil, err
	}
	if f.MsgTypes, err = msgsParam(q); err != nil {
		return nil, err
	}
	page, err := s.store.Txs(r.Context(), f, p)
	if err != nil {
		return nil, err
	}
	return seqPage("txs", page)
}

// seqPage splices the stored objects of a page into {"<key>":[…],"pagination":{…}} with a
// sequence cursor: the body of every tx-shaped list (Cosmos txs, a token's txs, EVM and
// internal txs), the stored JSON written verbatim rather than re-encoded.
func seqPage(key string, page store.TxPage) (any, error) {
	var last int64
	if n := len(page.Txs); n > 0 {
		last = page.Txs[n-1].Sequence
	}
	pj, err := json.Marshal(cursorPagination(store.CursorSequence, last, len(page.Txs), page.Total))
	if err != nil {
		return nil, err
	}
	size := 32 + len(pj)
	for _, t := range page.Txs {
		size += len(t.JSON) + 1
	}
	b := httpapi.BodyBuffer(size)
	b = append(append(append(b, `{"`...), key...), `":[`...)
	for i, t := range page.Txs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, t.JSON...)
	}
	b = append(b, `],"pagination":`...)
	b = append(b, pj...)
	b = append(b, "}\n"...)
	if page.Final {
		return httpapi.Pinned{Body: httpapi.PooledRaw(b)}, nil
	}
	return httpapi.PooledRaw(b), nil
}

func (s *server) txs(r *http.Request) (any, error) {
	return s.txList(r, store.TxFilter{}, query(r.URL.RawQuery))
}

func (s *server) txsByAccount(r *http.Request) (any, error) {
	acc, err := accountParam(s.cfg.AccountPrefix, r.PathValue("account"))
	if err != nil {
		return nil, err
	}
	q := query(r.URL.RawQuery)
	if csvOut, err := wantsCSV(r, q); err != nil || csvOut {
		if err != nil {
			return nil, err
		}
		f := store.TxFilter{Account: acc, SignerOnly: q.Get("is_signer") == "true"}
		if f.MsgTypes, err = msgsParam(q); err != nil {
			return nil, err
		}
		if f.MinHeight, f.MaxHeight, err = s.exportHeights(r, q); err != nil {
			return nil, err
		}
		return s.exportTxs(q, acc, f), nil
	}
	lo, hi, empty, err := s.timeRange(r, q)
	if err != nil || empty {
		if err != nil {
			return nil, err
		}
		if _, err := pagination(q); err != nil {
			return nil, err
		}
		return emptyTxPage()
	}
	// Only the literal "true" enables it, as in rollytics.
	return s.txList(r, store.TxFilter{Account: acc, SignerOnly: q.Get("is_signer") == "true", MinHeight: lo, MaxHeight: hi}, q)
}

func (s *server) txsByHeight(r *http.Request) (any, error) {
	h, err := heightParam(r.PathValue("height"))
	if err != nil {
		return nil, err
	}
	v, err := s.txList(r, store.TxFilter{Height: h}, query(r.URL.RawQuery))
	if err != nil {
		return nil, err
	}
	// The txs of an indexed height never change (the store says so too, when it holds any).
	if _, pinned := v.(httpapi.Pinned); pinned {
		return v, nil
	}
	if ih, err := s.store.IndexedHeight(r.Context()); err == nil && h <= ih {
		return httpapi.Pinned{Body: v}, nil
	}
	return v, nil
}

func (s *server) tx(r *http.Request) (any, error) {
	hash, err := hashParam(r.PathValue("tx_hash"))
	if err != nil {
		return nil, err
	}
	t, err := s.store.Tx(r.Context(), hash)
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("[NOT_FOUND] transaction not found")
	}
	if err != nil {
		return nil, err
	}
	b := httpapi.BodyBuffer(len(t.JSON) + 8)
	b = append(b, `{"tx":`...)
	b = append(b, t.JSON...)
	b = append(b, "}\n"...)
	return httpapi.Pinned{Body: httpapi.PooledRaw(b)}, nil
}
