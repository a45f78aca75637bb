package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/store"
)

// The many-address streams: the tx stream and the transfer stream take up to
// MaxStreamAccounts accounts, each a repeated account= parameter (the request a browser's
// EventSource can make: a GET whose URL URLSearchParams.append builds; one account is the
// single-account request unchanged). An item naming several of them is sent once. Each
// account is read through its own keyset walk (the by_account index), and the walks are
// merged by the stream's key, so a page costs one indexed read per account and the ids, the
// resume rule and the epochs are those of the one-account streams.

// MaxStreamAccounts is the most accounts one stream takes; more is a 400 naming it.
const MaxStreamAccounts = 100

// streamAccounts reads the account= parameters: each bech32 (any prefix) or 0x hex, resolved
// to the raw address as the by_account routes resolve it, duplicates (the same account in
// both forms too) collapsed, in the order given. Empty values are ignored.
func streamAccounts(q url.Values, prefix string) ([][]byte, error) {
	var out [][]byte
	for _, a := range q["account"] {
		if a == "" {
			continue
		}
		b, err := accountParam(prefix, a)
		if err != nil {
			return nil, err
		}
		if !slices.ContainsFunc(out, func(o []byte) bool { return bytes.Equal(o, b) }) {
			out = append(out, b)
		}
		if len(out) > MaxStreamAccounts {
			return nil, apierr.BadRequest("[INVALID_VALUE] too many accounts: a stream takes at most %d (repeated account=)", MaxStreamAccounts)
		}
	}
	return out, nil
}

// mergeWalks reads one page of each of n keyset walks after the key after (walk i's items
// in ascending key order, up to streamPage) and merges them: every item up to the lowest last
// key among the walks that filled their page (beyond it a full walk may hold items the merge
// has not seen), each key once. more reports that a walk was cut there: read on from the last
// item's key.
//
// The n reads are n statements, not one snapshot: a block committed between two of them shows
// in the later walks only, and sending its items of those would move the stream past the same
// block's items in the earlier walks, which would then never be sent. So with several walks the
// indexed height is read first (indexed) and the merge stops before the first item above it
// (keys grow with the height: sequences and transfer ids are given out in height order); what
// it held back is read in the next round, which the commit wakes. height is an item's height.
func mergeWalks[T any](ctx context.Context, n int, after int64, walk func(ctx context.Context, i int, after int64) ([]T, error), key, height func(T) int64,
	indexed func(context.Context) (int64, error)) (out []T, more bool, err error) {
	if n == 1 {
		items, err := walk(ctx, 0, after)
		return items, len(items) >= streamPage, err
	}
	top, err := indexed(ctx)
	if err != nil {
		return nil, false, err
	}
	bound := int64(-1)
	var all []T
	for i := range n {
		items, err := walk(ctx, i, after)
		if err != nil {
			return nil, false, err
		}
		if len(items) >= streamPage {
			if last := key(items[len(items)-1]); bound < 0 || last < bound {
				bound = last
			}
		}
		all = append(all, items...)
	}
	slices.SortStableFunc(all, func(a, b T) int {
		ka, kb := key(a), key(b)
		switch {
		case ka < kb:
			return -1
		case ka > kb:
			return 1
		}
		return 0
	})
	out = all[:0]
	for _, it := range all {
		k := key(it)
		if bound >= 0 && k > bound {
			break
		}
		if height(it) > top {
			return out, false, nil // committed during the reads: the next round sends it
		}
		if len(out) > 0 && key(out[len(out)-1]) == k {
			continue
		}
		out = append(out, it)
	}
	return out, bound >= 0, nil
}

// txWalks is the tx stream's merged walk over filters (one per account; one without).
func txWalks(list func(ctx context.Context, f store.TxFilter, p store.Page) (store.TxPage, error), fs []store.TxFilter,
	indexed func(context.Context) (int64, error)) func(ctx context.Context, after int64) ([]store.TxRecord, bool, error) {
	return func(ctx context.Context, after int64) ([]store.TxRecord, bool, error) {
		return mergeWalks(ctx, len(fs), after, func(ctx context.Context, i int, after int64) ([]store.TxRecord, error) {
			page, err := list(ctx, fs[i], store.Page{Limit: streamPage, After: store.Cursor{Kind: store.CursorSequence, Value: after}})
			return page.Txs, err
		}, func(t store.TxRecord) int64 { return t.Sequence }, func(t store.TxRecord) int64 { return t.Height }, indexed)
	}
}

// perAccount is one filter per account of the stream (base with its account set by set), or
// base alone when it names none: the tx and transfer streams' filters alike.
func perAccount[F any](base F, accs [][]byte, set func(*F, []byte)) []F {
	if len(accs) == 0 {
		return []F{base}
	}
	out := make([]F, len(accs))
	for i, a := range accs {
		out[i] = base
		set(&out[i], a)
	}
	return out
}

// transferWalks is the transfer stream's merged walk over filters.
func transferWalks(r store.TransferReader, fs []store.TransferFilter, indexed func(context.Context) (int64, error)) func(ctx context.Context, after int64) ([]store.TransferRecord, bool, error) {
	return func(ctx context.Context, after int64) ([]store.TransferRecord, bool, error) {
		return mergeWalks(ctx, len(fs), after, func(ctx context.Context, i int, after int64) ([]store.TransferRecord, error) {
			page, err := r.Transfers(ctx, fs[i], store.Page{Limit: streamPage, After: store.Cursor{Kind: store.CursorSequence, Value: after}})
			return page.Transfers, err
		}, func(t store.TransferRecord) int64 { return t.ID }, func(t store.TransferRecord) int64 { return t.Height }, indexed)
	}
}

// transferStreamFilter reads the transfer stream's filters beside the accounts: direction,
// as by_account takes it (with accounts only).
func transferStreamFilter(q url.Values) (store.TransferFilter, error) {
	d, err := transferDirection(q.Get("direction"))
	return store.TransferFilter{Direction: d}, err
}

// transferDirection reads a transfer list's direction parameter: in, out or both (the default).
func transferDirection(v string) (store.Direction, error) {
	switch v {
	case "", "both":
		return store.DirectionBoth, nil
	case "in":
		return store.DirectionIn, nil
	case "out":
		return store.DirectionOut, nil
	}
	return store.DirectionBoth, apierr.BadRequest("[INVALID_VALUE] invalid value for direction: %s (must be in, out or both)", clip(v))
}

// transferTip is the transfer id past every transfer of the heights up to h: transfer ids are
// height<<store.TransferIDBits + the position in the block.
func transferTip(h int64) int64 { return store.TransferID(h+1, 0) - 1 }

// transferStream: GET /indexer/transfer/v1/transfers/stream, the transfers of up to
// MaxStreamAccounts accounts (direction as by_account), or of the whole chain without one,
// as the transfer lists render them, id the transfer's id (its pagination key).
func (s *server) transferStream(r *http.Request) (httpapi.Producer, error) {
	q := query(r.URL.RawQuery)
	accs, err := streamAccounts(q, s.cfg.AccountPrefix)
	if err != nil {
		return nil, err
	}
	base, err := transferStreamFilter(q)
	if err != nil {
		return nil, err
	}
	at, resume, epoch, after, err := s.streamStart(r, func(ctx context.Context) (int64, error) {
		h, err := s.store.IndexedHeight(ctx)
		return transferTip(h), err
	})
	if err != nil {
		return nil, err
	}
	walk := transferWalks(s.cfg.Features.Transfers, transferFilters(base, accs), s.store.IndexedHeight)
	return func(st *httpapi.Stream) error {
		if resume {
			// The first retained transfer id is that of the first retained height's first
			// transfer (ids are height-based), whether or not that height moved a token.
			first, err := s.firstHeight(st.Context())
			if err != nil {
				return err
			}
			var firstID int64
			if first > 0 {
				firstID = store.TransferID(first, 0)
			}
			if err := resumeRule(at, epoch, firstID, "id"); err != nil {
				return err
			}
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		return s.follow(st, func(ctx context.Context) error {
			return sendPages(ctx, &after, walk, func(ctx context.Context) error { return s.checkEpoch(ctx, epoch) },
				func(t store.TransferRecord) (int64, error) {
					j, err := s.transferItem(t)
					if err != nil {
						return 0, err
					}
					buf.Reset()
					if err := enc.Encode(j); err != nil {
						return 0, err
					}
					return t.ID, st.Send(streamID(epoch, strconv.FormatInt(t.ID, 10)), "transfer", bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
				})
		})
	}, nil
}

// txFilters and transferFilters are perAccount for the two streams' filters.
func txFilters(base store.TxFilter, accs [][]byte) []store.TxFilter {
	return perAccount(base, accs, func(f *store.TxFilter, a []byte) { f.Account = a })
}

func transferFilters(base store.TransferFilter, accs [][]byte) []store.TransferFilter {
	return perAccount(base, accs, func(f *store.TransferFilter, a []byte) { f.Account = a })
}
