package api

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/store"
)

// nftRoutes are the seven NFT routes, on every VM. Their answers depend on the indexed height
// only, so they may be cached per height.
func (s *server) nftRoutes() []httpapi.Route {
	return []httpapi.Route{
		{Pattern: "GET /indexer/nft/v1/collections", Handler: s.nftCollections, InSpec: true, Cache: true},
		{Pattern: "GET /indexer/nft/v1/collections/by_account/{account}", Handler: s.nftCollectionsByAccount, InSpec: true, Cache: true},
		{Pattern: "GET /indexer/nft/v1/collections/by_name/{name}", Handler: s.nftCollectionsByName, InSpec: true, Cache: true},
		{Pattern: "GET /indexer/nft/v1/collections/{collection_addr}", Handler: s.nftCollection, InSpec: true, Cache: true},
		{Pattern: "GET /indexer/nft/v1/tokens/by_account/{account}", Handler: s.nftTokensByAccount, InSpec: true, Cache: true},
		{Pattern: "GET /indexer/nft/v1/tokens/by_collection/{collection_addr}", Handler: s.nftTokensByCollection, InSpec: true, Cache: true},
		{Pattern: "GET /indexer/nft/v1/txs/{collection_addr}/{token_id}", Handler: s.nftTxs, InSpec: true, Cache: true},
	}
}

// The NFT routes: collections and tokens as rollytics serves them (notes 2.6–2.8), with the
// spec's decisions: path parameters percent-decoded (net/http's PathValue), by_name on the
// decoded name, unique tie-breaks, exact totals.

type collectionJSON struct {
	ObjectAddr string `json:"object_addr"`
	Collection struct {
		Creator    string `json:"creator"`
		Name       string `json:"name"`
		OriginName string `json:"origin_name"`
		NFTs       struct {
			Handle string `json:"handle"` // always "", as in rollytics
			Length int64  `json:"length"`
		} `json:"nfts"`
	} `json:"collection"`
	Height    int64  `json:"height"`
	Timestamp string `json:"timestamp"`
}

type tokenJSON struct {
	CollectionAddr       string `json:"collection_addr"`
	CollectionName       string `json:"collection_name"`
	CollectionOriginName string `json:"collection_origin_name"`
	ObjectAddr           string `json:"object_addr"`
	Owner                string `json:"owner"`
	NFT                  struct {
		TokenID string `json:"token_id"`
		URI     string `json:"uri"`
	} `json:"nft"`
	Height    int64  `json:"height"`
	Timestamp string `json:"timestamp"`
}

// nftTime renders a collection or token timestamp as rollytics does: its timestamptz column
// keeps microseconds, so the block time comes out cut to them (RFC 3339, trailing zeros
// trimmed, UTC).
func nftTime(t time.Time) string {
	return t.UTC().Truncate(time.Microsecond).Format(time.RFC3339Nano)
}

// hexOrEmpty renders an address as 0x hex, or "" for none (rollytics never sends a bare "0x").
func hexOrEmpty(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return address.Hex(b)
}

func (s *server) bech32OrEmpty(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	out, err := address.Bech32(s.cfg.AccountPrefix, b)
	if err != nil {
		return ""
	}
	return out
}

func (s *server) toCollectionJSON(c store.Collection) collectionJSON {
	var j collectionJSON
	j.ObjectAddr = hexOrEmpty(c.Addr)
	j.Collection.Creator = s.bech32OrEmpty(c.Creator)
	j.Collection.Name = c.Name
	j.Collection.OriginName = c.OriginName
	j.Collection.NFTs.Length = c.NFTCount
	j.Height = c.Height
	j.Timestamp = nftTime(c.Time)
	return j
}

func (s *server) toTokenJSON(t store.Token) tokenJSON {
	var j tokenJSON
	j.CollectionAddr = hexOrEmpty(t.Collection)
	j.CollectionName = t.CollectionName
	j.CollectionOriginName = t.CollectionOriginName
	j.ObjectAddr = hexOrEmpty(t.ObjectAddr)
	j.Owner = s.bech32OrEmpty(t.Owner)
	j.NFT.TokenID = t.TokenID
	j.NFT.URI = t.URI
	j.Height = t.Height
	j.Timestamp = nftTime(t.Time)
	return j
}

// collectionParam parses a collection address like rollytics' AccAddressFromString, and
// fails with rollytics' wording: Go's hex error for a malformed value (e.g. "encoding/hex:
// invalid byte: U+0078 'x'"), the [INVALID_VALUE] text for one longer than 32 bytes.
func collectionParam(prefix, s string) ([]byte, error) {
	if b, err := parseAccount(prefix, s); err == nil {
		return b, nil
	}
	h := strings.TrimPrefix(s, "0x")
	h = strings.ToLower(strings.TrimLeft(h, "0"))
	if len(h) > 64 || s == "" {
		return nil, apierr.BadRequest("[INVALID_VALUE] invalid value for address: %s (invalid address format)", clip(s))
	}
	if len(h) <= 40 {
		h = strings.Repeat("0", 40-len(h)) + h
	} else {
		h = strings.Repeat("0", 64-len(h)) + h
	}
	if _, err := hex.DecodeString(h); err != nil {
		return nil, apierr.BadRequest("%s", err.Error())
	}
	return nil, apierr.BadRequest("[INVALID_VALUE] invalid value for address: %s (invalid address format)", clip(s))
}

// offsetPagination is rollytics' offset-mode answer: next_key only after a full page,
// previous_key once the offset reaches a page.
func offsetPagination(offset int64, limit, n int, total int64) paginationJSON {
	p := paginationJSON{Total: strconv.FormatInt(total, 10)}
	if n == limit {
		k := base64.StdEncoding.EncodeToString([]byte(strconv.FormatInt(offset+int64(limit), 10)))
		p.NextKey = &k
	}
	if offset > 0 && offset >= int64(limit) {
		k := base64.StdEncoding.EncodeToString([]byte(strconv.FormatInt(offset-int64(limit), 10)))
		p.PreviousKey = &k
	}
	return p
}

// tokenIDParam is a token id from the path or the query. Any text is a token id on chain, but
// bytes that are not UTF-8, or hold a NUL, are none: PostgreSQL's text refuses them (the
// query fails) where SQLite compares bytes (nothing matches), so both stores answer them
// with this one 400.
func tokenIDParam(v string) (string, error) {
	if !utf8.ValidString(v) || strings.IndexByte(v, 0) >= 0 {
		return "", apierr.BadRequest("token_id must be UTF-8 text without NUL bytes").WithDetails("INVALID_PARAMETER")
	}
	return v, nil
}

// tokenKey reads a composite token cursor ({"height":N,"token_id":"…"}, plus our optional
// "collection_addr") from pagination.key; ok is false when the key is something else, which
// pagination() then parses (an offset, or a height or sequence cursor).
func tokenKey(prefix string, q url.Values) (*store.TokenCursor, bool, error) {
	raw, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(q.Get("pagination.key"), " ", "+"))
	if err != nil || !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		return nil, false, nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil, false, nil
	}
	if _, ok := m["token_id"]; !ok {
		return nil, false, nil
	}
	var c store.TokenCursor
	bad := apierr.BadRequest("invalid pagination.key format")
	if json.Unmarshal(m["token_id"], &c.TokenID) != nil {
		return nil, false, bad
	}
	if _, err := tokenIDParam(c.TokenID); err != nil {
		return nil, false, bad
	}
	if h, ok := m["height"]; ok {
		if n, err := strconv.ParseInt(string(h), 10, 64); err != nil || n < 0 {
			return nil, false, bad
		} else {
			c.Height = n
		}
	}
	if a, ok := m["collection_addr"]; ok {
		var s string
		if json.Unmarshal(a, &s) != nil {
			return nil, false, bad
		}
		b, err := parseAccount(prefix, s)
		if err != nil {
			return nil, false, bad
		}
		c.Collection = b
	}
	return &c, true, nil
}

func encodeTokenKey(t store.Token, withCollection bool) string {
	k := struct {
		Collection string `json:"collection_addr,omitempty"`
		Height     int64  `json:"height"`
		TokenID    string `json:"token_id"`
	}{Height: t.Height, TokenID: t.TokenID}
	if withCollection {
		k.Collection = address.Hex(t.Collection)
	}
	b, _ := json.Marshal(k)
	return base64.StdEncoding.EncodeToString(b)
}

func (s *server) collectionList(r *http.Request, f store.CollectionFilter) (any, error) {
	q := query(r.URL.RawQuery)
	p, err := pagination(q)
	if err != nil {
		return nil, err
	}
	page, err := s.store.Collections(r.Context(), f, p)
	if err != nil {
		return nil, err
	}
	out := struct {
		Collections []collectionJSON `json:"collections"`
		Pagination  paginationJSON   `json:"pagination"`
	}{Collections: make([]collectionJSON, 0, len(page.Collections))}
	for _, c := range page.Collections {
		out.Collections = append(out.Collections, s.toCollectionJSON(c))
	}
	if p.After.Kind == store.CursorHeight {
		var last int64
		if n := len(page.Collections); n > 0 {
			last = page.Collections[n-1].Height
		}
		out.Pagination = cursorPagination(store.CursorHeight, last, len(page.Collections), page.Total)
	} else {
		out.Pagination = offsetPagination(p.Offset, p.Limit, len(page.Collections), page.Total)
	}
	return out, nil
}

func (s *server) nftCollections(r *http.Request) (any, error) {
	return s.collectionList(r, store.CollectionFilter{})
}

func (s *server) nftCollectionsByAccount(r *http.Request) (any, error) {
	acc, err := accountParam(s.cfg.AccountPrefix, r.PathValue("account"))
	if err != nil {
		return nil, err
	}
	return s.collectionList(r, store.CollectionFilter{Owner: acc})
}

func (s *server) nftCollectionsByName(r *http.Request) (any, error) {
	return s.collectionList(r, store.CollectionFilter{Name: r.PathValue("name"), NameSet: true})
}

func (s *server) nftCollection(r *http.Request) (any, error) {
	addr, err := collectionParam(s.cfg.AccountPrefix, r.PathValue("collection_addr"))
	if err != nil {
		return nil, err
	}
	c, err := s.store.Collection(r.Context(), addr)
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("nft collection not found")
	}
	if err != nil {
		return nil, err
	}
	return struct {
		Collection collectionJSON `json:"collection"`
	}{s.toCollectionJSON(c)}, nil
}

// orderByParam is rollytics' order_by: trimmed, case-insensitive, token_id by default.
func orderByParam(q url.Values) (bool, error) {
	raw := q.Get("order_by")
	switch strings.ToLower(strings.TrimSpace(raw)) {
	case "", "token_id":
		return false, nil
	case "height":
		return true, nil
	}
	return false, apierr.BadRequest("invalid order_by value '%s', must be one of: token_id, height", clip(raw))
}

func (s *server) tokenList(r *http.Request, f store.TokenFilter) (any, error) {
	q := query(r.URL.RawQuery)
	var err error
	if f.OrderByHeight, err = orderByParam(q); err != nil {
		return nil, err
	}
	if v := q.Get("collection_addr"); v != "" && f.Collection == nil {
		if f.Collection, err = collectionParam(s.cfg.AccountPrefix, v); err != nil {
			return nil, err
		}
	}
	if q.Has("token_id") && q.Get("token_id") != "" {
		if f.TokenID, err = tokenIDParam(q.Get("token_id")); err != nil {
			return nil, err
		}
		f.TokenIDSet = true
	}
	after, isToken, err := tokenKey(s.cfg.AccountPrefix, q)
	if err != nil {
		return nil, err
	}
	pq := q
	if isToken {
		pq = url.Values{}
		for k, v := range q {
			if k != "pagination.key" {
				pq[k] = v
			}
		}
	}
	p, err := pagination(pq)
	if err != nil {
		return nil, err
	}
	if !isToken && p.After.Kind == store.CursorHeight {
		// A height-only key: continue after every token of that height (height order), or
		// treat it as rollytics does, a cursor without a usable column, from the start.
		if f.OrderByHeight {
			after = &store.TokenCursor{Height: p.After.Value, TokenID: map[bool]string{true: "", false: "\U0010FFFF"}[p.Desc]}
		}
		p.After = store.Cursor{}
	}
	page, err := s.store.Tokens(r.Context(), f, p, after)
	if err != nil {
		return nil, err
	}
	out := struct {
		Tokens     []tokenJSON    `json:"tokens"`
		Pagination paginationJSON `json:"pagination"`
	}{Tokens: make([]tokenJSON, 0, len(page.Tokens))}
	for _, t := range page.Tokens {
		out.Tokens = append(out.Tokens, s.toTokenJSON(t))
	}
	if after != nil {
		// Keyset in, keyset out: the next key is the last row's, while the page is non-empty.
		out.Pagination = paginationJSON{Total: strconv.FormatInt(page.Total, 10)}
		if n := len(page.Tokens); n > 0 {
			k := encodeTokenKey(page.Tokens[n-1], f.Collection == nil)
			out.Pagination.NextKey = &k
		}
	} else {
		out.Pagination = offsetPagination(p.Offset, p.Limit, len(page.Tokens), page.Total)
	}
	return out, nil
}

func (s *server) nftTokensByAccount(r *http.Request) (any, error) {
	acc, err := accountParam(s.cfg.AccountPrefix, r.PathValue("account"))
	if err != nil {
		return nil, err
	}
	return s.tokenList(r, store.TokenFilter{Owner: acc})
}

func (s *server) nftTokensByCollection(r *http.Request) (any, error) {
	coll, err := collectionParam(s.cfg.AccountPrefix, r.PathValue("collection_addr"))
	if err != nil {
		return nil, err
	}
	return s.tokenList(r, store.TokenFilter{Collection: coll})
}

func (s *server) nftTxs(r *http.Request) (any, error) {
	coll, err := collectionParam(s.cfg.AccountPrefix, r.PathValue("collection_addr"))
	if err != nil {
		return nil, err
	}
	q := query(r.URL.RawQuery)
	p, err := pagination(q)
	if err != nil {
		return nil, err
	}
	id, err := tokenIDParam(r.PathValue("token_id"))
	if err != nil {
		return nil, err
	}
	page, err := s.store.NFTTxs(r.Context(), coll, id, p)
	if err != nil {
		return nil, err
	}
	return seqPage("txs", page)
}
