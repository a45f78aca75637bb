package api

import (
	"context"
	"net/http"
	"strconv"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/store"
)

// The live streams (Server-Sent Events, see internal/httpapi's stream.go). Each event's data
// is the item exactly as the matching list route renders it, and its id the item's key in
// that list (a block's height, a tx's sequence): a client that reconnects with Last-Event-ID
// (or ?from=) first gets every item after it from the store, through the same keyset queries
// the list routes use, then the live ones. New data is learned from the store (HeightWatcher),
// so an API replica streams what any writer commits.

// streamPage is the keyset page a stream reads the store in.
const streamPage = 100

// resumePoint parses Last-Event-ID or ?from=: the id of the last item the client has; ok is
// false when it gave none (the stream starts at the tip).
func resumePoint(r *http.Request) (after int64, ok bool, err error) {
	v := httpapi.LastEventID(r)
	if v == "" {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, false, apierr.BadRequest("resume point (Last-Event-ID or from) must be a non-negative integer, got %q", clip(v))
	}
	return n, true, nil
}

// errExpired is the error event of a resume point before the retained data.
func errExpired(after, first int64) error {
	return (&apierr.Error{Code: apierr.NotFound, Message: "resume point " + strconv.FormatInt(after, 10) +
		" is older than the retained data (first height " + strconv.FormatInt(first, 10) + "); reconnect without Last-Event-ID"}).
		WithDetails("RESUME_POINT_EXPIRED")
}

// follow runs catchUp (every item after the client's position) each time the indexed height
// moves past the height read before the previous round. The height is read before the
// queries, so whatever a commit adds after it wakes the next round: no item falls between.
func (s *server) follow(st *httpapi.Stream, catchUp func(ctx context.Context) error) error {
	ctx := st.Context()
	for {
		seen, err := s.store.IndexedHeight(ctx)
		if err != nil {
			return err
		}
		if err := catchUp(ctx); err != nil {
			return err
		}
		if _, err := s.watch.Wait(ctx, seen); err != nil {
			return nil // the client went away or the stream was ended
		}
	}
}

// startHeight is the height a height-ordered stream goes on after: the indexed tip without a
// resume point, else after, unless that lies before the first retained block (expired).
func (s *server) startHeight(ctx context.Context, resume bool, after int64) (int64, error) {
	first, err := s.store.Blocks(ctx, store.Page{Limit: 1})
	if err != nil {
		return 0, err
	}
	if !resume {
		return s.store.IndexedHeight(ctx)
	}
	if len(first.Blocks) > 0 && after < first.Blocks[0].Height-1 {
		return 0, errExpired(after, first.Blocks[0].Height)
	}
	return after, nil
}

// blockStream: GET /indexer/block/v1/blocks/stream, the blocks as /indexer/block/v1/blocks
// lists them, id the height.
func (s *server) blockStream(r *http.Request) (httpapi.Producer, error) {
	after, resume, err := resumePoint(r)
	if err != nil {
		return nil, err
	}
	return func(st *httpapi.Stream) error {
		ctx := st.Context()
		after, err := s.startHeight(ctx, resume, after)
		if err != nil {
			return err
		}
		for {
			// The window may end before the store does: read on until a page comes back
			// empty, then hand the stream to the tip.
			blocks, err := s.feed.after(ctx, s.store, after)
			if err != nil {
				return err
			}
			if len(blocks) == 0 {
				if s.feed.attach(st, after, s.store, s.watch) {
					return httpapi.ErrDetached
				}
				continue
			}
			for _, b := range blocks {
				if err := st.SendFrame(b.frame); err != nil {
					return err
				}
				after = b.height
			}
		}
	}, nil
}

// txStream: GET /indexer/tx/v1/txs/stream, the txs as the tx list routes list them (the
// same filters: account with is_signer as by_account, msgs as every tx list), id the tx's
// sequence.
func (s *server) txStream(r *http.Request) (httpapi.Producer, error) {
	q := query(r.URL.RawQuery)
	var f store.TxFilter
	if a := q.Get("account"); a != "" {
		acc, err := accountParam(s.cfg.AccountPrefix, a)
		if err != nil {
			return nil, err
		}
		f.Account, f.SignerOnly = acc, q.Get("is_signer") == "true"
	}
	msgs, err := msgsParam(q)
	if err != nil {
		return nil, err
	}
	f.MsgTypes = msgs
	after, resume, err := resumePoint(r)
	if err != nil {
		return nil, err
	}
	return s.sequenceStream(after, resume, "tx",
		func(ctx context.Context, p store.Page) (store.TxPage, error) {
			return s.store.Txs(ctx, store.TxFilter{}, p)
		},
		func(ctx context.Context, p store.Page) (store.TxPage, error) { return s.store.Txs(ctx, f, p) }), nil
}

// sequenceStream sends txs as events named event in sequence order: those after after, or
// without resume those after the tip, the newest tx newest lists (sequences are dense over
// all txs, so the tip is that of every kind). list gives the stream's txs a page at a time.
func (s *server) sequenceStream(after int64, resume bool, event string, newest, list func(context.Context, store.Page) (store.TxPage, error)) httpapi.Producer {
	return func(st *httpapi.Stream) error {
		if !resume {
			last, err := newest(st.Context(), store.Page{Limit: 1, Desc: true})
			if err != nil {
				return err
			}
			if len(last.Txs) > 0 {
				after = last.Txs[0].Sequence
			}
		}
		return s.follow(st, func(ctx context.Context) error {
			for {
				page, err := list(ctx, store.Page{Limit: streamPage, After: store.Cursor{Kind: store.CursorSequence, Value: after}})
				if err != nil {
					return err
				}
				for _, t := range page.Txs {
					if err := st.Send(strconv.FormatInt(t.Sequence, 10), event, t.JSON); err != nil {
						return err
					}
					after = t.Sequence
				}
				if len(page.Txs) < streamPage {
					return nil
				}
			}
		})
	}
}
