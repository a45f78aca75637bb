package api

import (
	"context"
	"net/http"
	"strconv"
	"strings"

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

// Stream ids carry the store's epoch (store.ChainState.Epoch: how many times it was dropped to
// index another chain) once there was a re-index: "<epoch>:<key>", a bare key before any. A
// re-indexed chain starts its heights and sequences over, so without it an id the dropped chain
// gave out would name an item of the new one: the epoch tells them apart, and resumeRule turns
// the old ones away.

// streamID is the id of the item whose key is key, in a store at epoch.
func streamID(epoch int64, key string) string {
	if epoch == 0 {
		return key
	}
	return strconv.FormatInt(epoch, 10) + ":" + key
}

// resumeAt is a resume point: the epoch its id was given out under (0 for a bare id) and the
// key after which the client wants items (a height, or a sequence).
type resumeAt struct {
	epoch, after int64
}

// lastEventID splits Last-Event-ID or ?from= into the epoch and the key; ok is false when the
// client gave none.
func lastEventID(r *http.Request) (epoch int64, key string, ok bool, err error) {
	v := httpapi.LastEventID(r)
	if v == "" {
		return 0, "", false, nil
	}
	e, k, found := strings.Cut(v, ":")
	if !found {
		return 0, v, true, nil
	}
	n, err := strconv.ParseInt(e, 10, 64)
	if err != nil || n < 0 || e != strconv.FormatInt(n, 10) {
		return 0, "", false, apierr.BadRequest("resume point (Last-Event-ID or from) must be an id the stream sent, got %q", clip(v))
	}
	return n, k, true, nil
}

// resumePoint parses Last-Event-ID or ?from=: the id of the last item the client has; ok is
// false when it gave none (the stream starts at the tip).
func resumePoint(r *http.Request) (at resumeAt, ok bool, err error) {
	epoch, v, ok, err := lastEventID(r)
	if err != nil || !ok {
		return resumeAt{}, false, err
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return resumeAt{}, false, apierr.BadRequest("resume point (Last-Event-ID or from) must be a non-negative integer, got %q", clip(httpapi.LastEventID(r)))
	}
	return resumeAt{epoch: epoch, after: n}, true, nil
}

// resumeRule is the one rule of every stream for where a resume point lies against the
// retained data of the store at epoch cur, first being the key of the oldest item the stream
// can still send (0 when it holds none). 0 asks for everything: the stream replays from first.
// A point given out under another epoch names an item of a chain the store no longer holds
// (it was re-indexed since): CHAIN_RESET, naming the first id of the chain it holds. A point
// before first-1 would silently skip the items between it and first (pruned, or never
// indexed), so it is RESUME_POINT_EXPIRED, naming first; anything else resumes after it.
func resumeRule(at resumeAt, cur, first int64, what string) error {
	if at.after == 0 {
		return nil
	}
	if at.epoch != cur {
		held := "it holds no item yet"
		if first > 0 {
			held = "the first " + what + " it holds is " + streamID(cur, strconv.FormatInt(first, 10))
		}
		return (&apierr.Error{Code: apierr.NotFound, Message: "resume point " + streamID(at.epoch, strconv.FormatInt(at.after, 10)) +
			" is of a chain the store no longer holds: it was re-indexed since (its ids now begin with " + strconv.FormatInt(cur, 10) +
			":), and " + held + "; reconnect with from=0 to replay the chain it holds, or without Last-Event-ID for the newest"}).
			WithDetails("CHAIN_RESET")
	}
	if first == 0 || at.after >= first-1 {
		return nil
	}
	return (&apierr.Error{Code: apierr.NotFound, Message: "resume point " + strconv.FormatInt(at.after, 10) +
		" is older than the retained data (first retained " + what + " " + streamID(cur, strconv.FormatInt(first, 10)) +
		"); reconnect with from=0 to replay from there, or without Last-Event-ID for the newest"}).
		WithDetails("RESUME_POINT_EXPIRED")
}

// firstHeight is the lowest height the store holds (0 when empty).
func (s *server) firstHeight(ctx context.Context) (int64, error) {
	first, err := s.store.Blocks(ctx, store.Page{Limit: 1})
	if err != nil || len(first.Blocks) == 0 {
		return 0, err
	}
	return first.Blocks[0].Height, nil
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

// sendPages sends every item walk reads after *after, page by page until a page is not cut
// (more false), moving *after to each sent item's key: the catch-up loop of every keyset
// stream. check runs before a non-empty page goes out (the epoch check: an item read after a
// re-index is of the new chain and must not go out under an id of the old one); send sends
// one item and returns its key.
func sendPages[T any](ctx context.Context, after *int64, walk func(ctx context.Context, after int64) ([]T, bool, error),
	check func(ctx context.Context) error, send func(T) (int64, error)) error {
	for {
		items, more, err := walk(ctx, *after)
		if err != nil {
			return err
		}
		if len(items) > 0 {
			if err := check(ctx); err != nil {
				return err
			}
		}
		for _, it := range items {
			k, err := send(it)
			if err != nil {
				return err
			}
			*after = k
		}
		if !more {
			return nil
		}
	}
}

// checkResume applies resumeRule to a resume point that is a height (the block and token
// streams).
func (s *server) checkResume(ctx context.Context, at resumeAt, epoch int64) error {
	first, err := s.firstHeight(ctx)
	if err != nil {
		return err
	}
	return resumeRule(at, epoch, first, "height")
}

// streamStart reads what a height-keyed stream reads before its response starts: the resume
// point, the store's epoch (the ids carry it; read first, before any item) and the key the
// stream sends items after: the resume point's, or without one the tip's. The tip is read
// here, before the 200: a client that has the 200 gets every item committed after it, however
// late its producer runs.
func (s *server) streamStart(r *http.Request, tip func(context.Context) (int64, error)) (at resumeAt, resume bool, epoch, after int64, err error) {
	if at, resume, err = resumePoint(r); err != nil {
		return
	}
	if epoch, err = s.streamEpoch(r.Context()); err != nil {
		return
	}
	after = at.after
	if !resume {
		after, err = tip(r.Context())
	}
	return
}

// blockStream: GET /indexer/block/v1/blocks/stream, the blocks as /indexer/block/v1/blocks
// lists them, id the height.
func (s *server) blockStream(r *http.Request) (httpapi.Producer, error) {
	// The feed's frames carry the epoch read here (chainDropped).
	at, resume, epoch, after, err := s.streamStart(r, s.store.IndexedHeight)
	if err != nil {
		return nil, err
	}
	return func(st *httpapi.Stream) error {
		ctx := st.Context()
		if resume {
			if err := s.checkResume(ctx, at, epoch); err != nil {
				return err
			}
		}
		for {
			// The window may end before the store does: read on until a page comes back
			// empty, then hand the stream to the tip.
			blocks, err := s.feed.after(ctx, s.store, after)
			if err != nil {
				return err
			}
			if len(blocks) > 0 {
				if err := s.checkEpoch(ctx, epoch); err != nil {
					return err
				}
			}
			if len(blocks) == 0 {
				attached, stale := s.feed.attach(st, epoch, after, s.store, s.watch)
				if attached {
					return httpapi.ErrDetached
				}
				if stale {
					// The feed is at another epoch: CHAIN_RESET when the store's is too, else
					// the feed read a stale one and is set right before the next try.
					if err := s.checkEpoch(ctx, epoch); err != nil {
						return err
					}
					s.chainDropped(epoch)
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
// sequence. account may be repeated, up to MaxStreamAccounts (stream_many.go): the txs of
// any of them, each once.
func (s *server) txStream(r *http.Request) (httpapi.Producer, error) {
	q := query(r.URL.RawQuery)
	accs, err := streamAccounts(q, s.cfg.AccountPrefix)
	if err != nil {
		return nil, err
	}
	var f store.TxFilter
	f.SignerOnly = len(accs) > 0 && q.Get("is_signer") == "true"
	msgs, err := msgsParam(q)
	if err != nil {
		return nil, err
	}
	f.MsgTypes = msgs
	at, resume, err := resumePoint(r)
	if err != nil {
		return nil, err
	}
	var next func(context.Context) (int64, error)
	if n, ok := s.store.(interface {
		NextTxSequence(context.Context) (int64, error)
	}); ok {
		next = n.NextTxSequence
	}
	return s.sequenceStream(r.Context(), at, resume, "tx",
		func(ctx context.Context, p store.Page) (store.TxPage, error) {
			return s.store.Txs(ctx, store.TxFilter{}, p)
		}, next, txWalks(s.store.Txs, txFilters(f, accs), s.store.IndexedHeight))
}

// sequenceStream sends txs as events named event in sequence order: those after after, or
// without resume those after the tip. every lists all txs of the kind unfiltered: the newest
// is the tip and the oldest the first retained (sequences are dense over all txs, so both
// bound every filtered stream too). next, when the store tells it, is the sequence the next tx
// of the kind will get: the first retained id when every stored one was pruned. list gives the
// stream's txs after a sequence a page at a time, more when the page was cut (read on).
// The tip is read here, before the response starts (ctx is the request's), so a client that
// has the 200 gets every tx committed after it.
func (s *server) sequenceStream(ctx context.Context, at resumeAt, resume bool, event string, every func(context.Context, store.Page) (store.TxPage, error),
	next func(context.Context) (int64, error), list func(ctx context.Context, after int64) ([]store.TxRecord, bool, error)) (httpapi.Producer, error) {
	epoch, err := s.streamEpoch(ctx)
	if err != nil {
		return nil, err
	}
	after := at.after
	if !resume {
		last, err := every(ctx, store.Page{Limit: 1, Desc: true})
		if err != nil {
			return nil, err
		}
		if len(last.Txs) > 0 {
			after = last.Txs[0].Sequence
		}
	}
	return func(st *httpapi.Stream) error {
		if resume {
			// The next sequence is read first: a tx committed between the two reads is then
			// found as the first retained one, never taken for a gap.
			var firstID int64
			if next != nil {
				n, err := next(st.Context())
				if err != nil {
					return err
				}
				firstID = n
			}
			first, err := every(st.Context(), store.Page{Limit: 1})
			if err != nil {
				return err
			}
			if len(first.Txs) > 0 {
				firstID = first.Txs[0].Sequence
			}
			if err := resumeRule(at, epoch, firstID, "id"); err != nil {
				return err
			}
		}
		return s.follow(st, func(ctx context.Context) error {
			return sendPages(ctx, &after, list, func(ctx context.Context) error { return s.checkEpoch(ctx, epoch) },
				func(t store.TxRecord) (int64, error) {
					return t.Sequence, st.Send(streamID(epoch, strconv.FormatInt(t.Sequence, 10)), event, t.JSON)
				})
		})
	}, nil
}
