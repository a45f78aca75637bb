package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/store"
)

// The cross-rollup streams (our extension): the tx stream and the transfer stream of up to
// MaxStreamAccounts accounts over every chain the fleet serves, under /all/. Each event is
// the chain's own stream item with a leading "chain_id" member, and its id the position of
// the stream on every chain: "<chain_id>=<that chain's stream id>" for each chain, joined by
// commas in chain id order (e.g. "minievm-1=1:40,minimove-1=12"). Resuming with it resumes
// every chain exactly where the client left it, each by the one resume rule of its own
// streams (resumeRule, with the chain's epoch); "0" replays every chain from its first
// retained item, and a chain the id does not name (one the fleet began serving since) starts
// at its newest item.

// allChain is one chain of a cross-rollup stream.
type allChain struct {
	id    string
	r     store.Reader
	cs    chainStater // nil: a store without epochs
	epoch int64
	after int64
	// resumed is set when the client's id named the chain (or was "0"): at is checked
	// against first when the stream starts.
	resumed bool
	at      resumeAt
	walk    func(ctx context.Context, after int64) ([]allItem, bool, error)
	first   func(ctx context.Context) (int64, error)
	watch   *store.HeightWatcher
}

// allItem is one item of a chain's walk: its key in the chain's stream and its JSON.
type allItem struct {
	key  int64
	json []byte
}

// allKind is what a cross-rollup stream reads of each chain: the event name, and for a chain
// its walk over the accounts, its tip (the key of its newest item) and the first retained key;
// ok false leaves the chain out (it does not have the index).
type allKind struct {
	event string
	chain func(c FleetChain, q url.Values, accs [][]byte) (walk func(ctx context.Context, after int64) ([]allItem, bool, error),
		tip, first func(ctx context.Context) (int64, error), ok bool, err error)
}

// txsStreamAll: GET /all/indexer/tx/v1/txs/stream?account=…
func (s *fleetServer) txsStreamAll(r *http.Request) (httpapi.Producer, error) {
	q := query(r.URL.RawQuery)
	msgs, err := msgsParam(q)
	if err != nil {
		return nil, err
	}
	return s.allStream(r, allKind{event: "tx", chain: func(c FleetChain, q url.Values, accs [][]byte) (func(context.Context, int64) ([]allItem, bool, error), func(context.Context) (int64, error), func(context.Context) (int64, error), bool, error) {
		base := store.TxFilter{SignerOnly: q.Get("is_signer") == "true", MsgTypes: msgs}
		txs := txWalks(c.Reader.Txs, txFilters(base, accs), c.Reader.IndexedHeight)
		walk := func(ctx context.Context, after int64) ([]allItem, bool, error) {
			page, more, err := txs(ctx, after)
			out := make([]allItem, len(page))
			for i, t := range page {
				out[i] = allItem{key: t.Sequence, json: t.JSON}
			}
			return out, more, err
		}
		edge := func(desc bool) func(ctx context.Context) (int64, error) {
			return func(ctx context.Context) (int64, error) {
				page, err := c.Reader.Txs(ctx, store.TxFilter{}, store.Page{Limit: 1, Desc: desc})
				if err != nil || len(page.Txs) == 0 {
					return 0, err
				}
				return page.Txs[0].Sequence, nil
			}
		}
		first := func(ctx context.Context) (int64, error) {
			// As sequenceStream: the next sequence, read first, when every stored tx was pruned.
			var id int64
			if n, ok := c.Reader.(interface {
				NextTxSequence(context.Context) (int64, error)
			}); ok {
				var err error
				if id, err = n.NextTxSequence(ctx); err != nil {
					return 0, err
				}
			}
			f, err := edge(false)(ctx)
			if err != nil {
				return 0, err
			}
			if f > 0 {
				id = f
			}
			return id, nil
		}
		return walk, edge(true), first, true, nil
	}})
}

// transfersStreamAll: GET /all/indexer/transfer/v1/transfers/stream?account=…, over the
// chains that keep the transfers index.
func (s *fleetServer) transfersStreamAll(r *http.Request) (httpapi.Producer, error) {
	base, err := transferStreamFilter(query(r.URL.RawQuery))
	if err != nil {
		return nil, err
	}
	return s.allStream(r, allKind{event: "transfer", chain: func(c FleetChain, _ url.Values, accs [][]byte) (func(context.Context, int64) ([]allItem, bool, error), func(context.Context) (int64, error), func(context.Context) (int64, error), bool, error) {
		if c.Features.Transfers == nil {
			return nil, nil, nil, false, nil
		}
		render := &server{cfg: Config{AccountPrefix: c.AccountPrefix, Features: c.Features}}
		xs := transferWalks(c.Features.Transfers, transferFilters(base, accs), c.Reader.IndexedHeight)
		walk := func(ctx context.Context, after int64) ([]allItem, bool, error) {
			page, more, err := xs(ctx, after)
			if err != nil {
				return nil, false, err
			}
			out := make([]allItem, len(page))
			for i, t := range page {
				j, err := render.transferItem(t)
				if err != nil {
					return nil, false, err
				}
				var buf bytes.Buffer
				enc := json.NewEncoder(&buf)
				enc.SetEscapeHTML(false) // as the list routes encode
				if err := enc.Encode(j); err != nil {
					return nil, false, err
				}
				out[i] = allItem{key: t.ID, json: bytes.TrimSuffix(buf.Bytes(), []byte("\n"))}
			}
			return out, more, nil
		}
		tip := func(ctx context.Context) (int64, error) {
			h, err := c.Reader.IndexedHeight(ctx)
			return transferTip(h), err
		}
		first := func(ctx context.Context) (int64, error) {
			page, err := c.Reader.Blocks(ctx, store.Page{Limit: 1})
			if err != nil || len(page.Blocks) == 0 {
				return 0, err
			}
			return store.TransferID(page.Blocks[0].Height, 0), nil
		}
		return walk, tip, first, true, nil
	}})
}

// allResume parses a cross-rollup stream's resume point: "0" (every chain from its start)
// or "<chain_id>=<id>" pairs joined by commas. ok is false when the client gave none.
func allResume(r *http.Request) (all bool, at map[string]resumeAt, ok bool, err error) {
	v := httpapi.LastEventID(r)
	if v == "" {
		return false, nil, false, nil
	}
	if v == "0" {
		return true, nil, true, nil
	}
	bad := apierr.BadRequest("resume point (Last-Event-ID or from) must be an id the stream sent (<chain_id>=<id>,…) or 0, got %q", clip(v))
	at = map[string]resumeAt{}
	for part := range strings.SplitSeq(v, ",") {
		chain, id, found := strings.Cut(part, "=")
		if !found || chain == "" {
			return false, nil, false, bad
		}
		e, k, found := strings.Cut(id, ":")
		var epoch int64
		if found {
			n, err := strconv.ParseInt(e, 10, 64)
			if err != nil || n < 0 || e != strconv.FormatInt(n, 10) {
				return false, nil, false, bad
			}
			epoch = n
		} else {
			k = id
		}
		n, err := strconv.ParseInt(k, 10, 64)
		if err != nil || n < 0 {
			return false, nil, false, bad
		}
		if _, dup := at[chain]; dup {
			return false, nil, false, bad
		}
		at[chain] = resumeAt{epoch: epoch, after: n}
	}
	return false, at, true, nil
}

// onChain is err, an API error, with its message naming the chain it is about.
func onChain(chain string, err error) error {
	var e *apierr.Error
	if !errors.As(err, &e) {
		return err
	}
	c := *e
	c.Message = "chain " + chain + ": " + e.Message
	return &c
}

// allStream serves a cross-rollup stream of kind.
func (s *fleetServer) allStream(r *http.Request, kind allKind) (httpapi.Producer, error) {
	q := query(r.URL.RawQuery)
	if !slices.ContainsFunc(q["account"], func(a string) bool { return a != "" }) {
		return nil, apierr.BadRequest("account is required: one or more account= (at most %d)", MaxStreamAccounts)
	}
	prefix := "init"
	all := servingChains(s.cfg.Chains())
	if len(all) > 0 {
		prefix = all[0].AccountPrefix
	}
	if _, err := streamAccounts(q, prefix); err != nil {
		return nil, err
	}
	replay, at, _, err := allResume(r)
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	var chains []*allChain
	for _, c := range all {
		accs, err := streamAccounts(q, c.AccountPrefix)
		if err != nil {
			return nil, err
		}
		walk, tip, first, ok, err := kind.chain(c, q, accs)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		ac := &allChain{id: c.ID, r: c.Reader, walk: walk, first: first, watch: s.watcher(c.Reader)}
		ac.cs, _ = c.Reader.(chainStater)
		if ac.cs != nil {
			st, err := ac.cs.ChainState(ctx)
			if err != nil {
				return nil, err
			}
			ac.epoch = st.Epoch
		}
		if p, named := at[c.ID]; named || replay {
			ac.resumed, ac.at, ac.after = true, p, p.after
		} else if ac.after, err = tip(ctx); err != nil {
			// The tip is read before the response starts: a client that has the 200 gets
			// every item committed after it.
			return nil, err
		}
		chains = append(chains, ac)
	}
	return func(st *httpapi.Stream) error {
		ctx := st.Context()
		for _, c := range chains {
			if !c.resumed {
				continue
			}
			first, err := c.first(ctx)
			if err != nil {
				return err
			}
			if err := resumeRule(c.at, c.epoch, first, "id"); err != nil {
				return onChain(c.id, err)
			}
		}
		seen := make([]int64, len(chains))
		for {
			for i, c := range chains {
				h, err := c.r.IndexedHeight(ctx)
				if err != nil {
					return err
				}
				seen[i] = h
			}
			for _, c := range chains {
				if err := s.allCatchUp(st, chains, c, kind.event); err != nil {
					return err
				}
			}
			if err := waitAny(ctx, chains, seen); err != nil {
				return nil // the client went away or the stream was ended
			}
		}
	}, nil
}

// allCatchUp sends every item of chain c after its position.
func (s *fleetServer) allCatchUp(st *httpapi.Stream, chains []*allChain, c *allChain, event string) error {
	check := func(ctx context.Context) error {
		if c.cs == nil {
			return nil
		}
		cs, err := c.cs.ChainState(ctx)
		if err != nil {
			return err
		}
		if cs.Epoch != c.epoch {
			return onChain(c.id, errChainReset())
		}
		return nil
	}
	return sendPages(st.Context(), &c.after, c.walk, check, func(it allItem) (int64, error) {
		c.after = it.key // the id sent names this item's position on its chain
		return it.key, st.Send(allID(chains), event, withChainID(nil, c.id, it.json))
	})
}

// allID is the stream's position on every chain.
func allID(chains []*allChain) string {
	var b strings.Builder
	for i, c := range chains {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(c.id)
		b.WriteByte('=')
		b.WriteString(streamID(c.epoch, strconv.FormatInt(c.after, 10)))
	}
	return b.String()
}

// waitAny returns once some chain's indexed height is above the one seen before its last
// round, or with ctx's error.
func waitAny(ctx context.Context, chains []*allChain, seen []int64) error {
	if len(chains) == 0 {
		<-ctx.Done()
		return ctx.Err()
	}
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{}, len(chains))
	for i, c := range chains {
		go func() {
			_, _ = c.watch.Wait(wctx, seen[i])
			done <- struct{}{}
		}()
	}
	<-done
	cancel()
	for range len(chains) - 1 {
		<-done
	}
	return ctx.Err()
}

// watcher is the fleet's one HeightWatcher of a chain's store, shared by its streams.
func (s *fleetServer) watcher(r store.Reader) *store.HeightWatcher {
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	if s.watchers == nil {
		s.watchers = map[store.Reader]*store.HeightWatcher{}
	}
	w, ok := s.watchers[r]
	if !ok {
		w = store.NewHeightWatcher(r, s.cfg.StreamPoll)
		s.watchers[r] = w
	}
	return w
}
