package api

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/store"
)

// The EVM-tx and NFT streams. They are their own routes slice, appended beside the EVM and
// NFT routes, so the choice of routes by VM stays in one place (evm.go) and this file only
// adds to it.

// liveRoutes are the streams beyond blocks and txs: EVM txs on chains serving the EVM list
// routes (other chains answer the EVM 404 for the path, from evmRoutes' catch-all), and the
// NFT token changes on every VM.
func (s *server) liveRoutes() []httpapi.Route {
	out := []httpapi.Route{{Pattern: "GET /indexer/nft/v1/tokens/stream", Stream: s.tokenStream, InSpec: true}}
	if s.cfg.Features.EVMTxs != nil {
		out = append(out, httpapi.Route{Pattern: "GET /indexer/tx/v1/evm-txs/stream", Stream: s.evmTxStream, InSpec: true})
	}
	return out
}

// evmTxStream: GET /indexer/tx/v1/evm-txs/stream, the EVM txs as the evm-txs list routes list
// them (account with is_signer as by_account), id the EVM tx's sequence.
func (s *server) evmTxStream(r *http.Request) (httpapi.Producer, error) {
	q := query(r.URL.RawQuery)
	var f store.EVMTxFilter
	if a := q.Get("account"); a != "" {
		acc, err := accountParam(s.cfg.AccountPrefix, a)
		if err != nil {
			return nil, err
		}
		f.Account, f.SignerOnly = acc, q.Get("is_signer") == "true"
	}
	at, resume, err := resumePoint(r)
	if err != nil {
		return nil, err
	}
	er := s.evm()
	var next func(context.Context) (int64, error)
	if n, ok := er.(interface {
		NextEVMTxSequence(context.Context) (int64, error)
	}); ok {
		next = n.NextEVMTxSequence
	}
	return s.sequenceStream(r.Context(), at, resume, "evm_tx",
		func(ctx context.Context, p store.Page) (store.TxPage, error) {
			return er.EVMTxs(ctx, store.EVMTxFilter{}, p)
		}, next,
		func(ctx context.Context, after int64) ([]store.TxRecord, bool, error) {
			page, err := er.EVMTxs(ctx, f, store.Page{Limit: streamPage, After: store.Cursor{Kind: store.CursorSequence, Value: after}})
			return page.Txs, len(page.Txs) >= streamPage, err
		})
}

// tokenStream: GET /indexer/nft/v1/tokens/stream, the NFT tokens of an account and/or a
// collection each time one is minted, moved or changed, as the by_account and by_collection
// routes list them with order_by=height (a token's height is that of its last change). The id
// is the token's pagination.key in that order, so a client resumes exactly after the last
// token it got; ?from= also takes a height (everything changed after it). A token changed
// twice while the client was away is sent once, in its current state; a burned token leaves
// the lists and so is not sent.
func (s *server) tokenStream(r *http.Request) (httpapi.Producer, error) {
	q := query(r.URL.RawQuery)
	f := store.TokenFilter{OrderByHeight: true}
	var err error
	if a := q.Get("account"); a != "" {
		if f.Owner, err = accountParam(s.cfg.AccountPrefix, a); err != nil {
			return nil, err
		}
	}
	if c := q.Get("collection_addr"); c != "" {
		if f.Collection, err = collectionParam(s.cfg.AccountPrefix, c); err != nil {
			return nil, err
		}
	}
	if f.Owner == nil && f.Collection == nil {
		return nil, apierr.BadRequest("account or collection_addr is required")
	}
	epochAt, after, resume, err := s.tokenResumePoint(r)
	if err != nil {
		return nil, err
	}
	epoch, err := s.streamEpoch(r.Context())
	if err != nil {
		return nil, err
	}
	if !resume {
		// The tip is read before the response starts: a client that has the 200 gets every
		// change committed after it.
		h, err := s.store.IndexedHeight(r.Context())
		if err != nil {
			return nil, err
		}
		after = afterHeight(h)
	}
	return func(st *httpapi.Stream) error {
		if resume {
			if err := s.checkResume(st.Context(), resumeAt{epoch: epochAt, after: after.Height}, epoch); err != nil {
				return err
			}
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false) // as the list routes encode
		return s.follow(st, func(ctx context.Context) error {
			for {
				page, err := s.store.Tokens(ctx, f, store.Page{Limit: streamPage}, &after)
				if err != nil {
					return err
				}
				if len(page.Tokens) > 0 {
					if err := s.checkEpoch(ctx, epoch); err != nil {
						return err
					}
				}
				for _, t := range page.Tokens {
					buf.Reset()
					if err := enc.Encode(s.toTokenJSON(t)); err != nil {
						return err
					}
					if err := st.Send(streamID(epoch, encodeTokenKey(t, true)), "token", bytes.TrimSuffix(buf.Bytes(), []byte("\n"))); err != nil {
						return err
					}
					after = store.TokenCursor{Height: t.Height, TokenID: t.TokenID, Collection: t.Collection}
				}
				if len(page.Tokens) < streamPage {
					return nil
				}
			}
		})
	}, nil
}

// afterHeight is the token cursor past every token of height h (as the list routes read a
// height-only key in height order).
func afterHeight(h int64) store.TokenCursor {
	return store.TokenCursor{Height: h, TokenID: "\U0010FFFF"}
}

// tokenResumePoint reads Last-Event-ID or ?from=: a token key as the stream's ids are (the
// list routes' pagination.key with collection_addr), or a height.
func (s *server) tokenResumePoint(r *http.Request) (int64, store.TokenCursor, bool, error) {
	epoch, v, ok, err := lastEventID(r)
	if err != nil || !ok {
		return 0, store.TokenCursor{}, false, err
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
		return epoch, afterHeight(n), true, nil
	}
	bad := apierr.BadRequest("resume point (Last-Event-ID or from) must be a height or a token stream id, got %q", clip(httpapi.LastEventID(r)))
	raw, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(v, " ", "+"))
	if err != nil {
		return 0, store.TokenCursor{}, false, bad
	}
	var k struct {
		Collection string  `json:"collection_addr"`
		Height     *int64  `json:"height"`
		TokenID    *string `json:"token_id"`
	}
	if json.Unmarshal(raw, &k) != nil || k.Height == nil || *k.Height < 0 || k.TokenID == nil || k.Collection == "" {
		return 0, store.TokenCursor{}, false, bad
	}
	if _, err := tokenIDParam(*k.TokenID); err != nil {
		return 0, store.TokenCursor{}, false, bad
	}
	coll, err := address.Parse(s.cfg.AccountPrefix, strings.ToLower(k.Collection))
	if err != nil {
		return 0, store.TokenCursor{}, false, bad
	}
	return epoch, store.TokenCursor{Height: *k.Height, TokenID: *k.TokenID, Collection: coll}, true, nil
}
