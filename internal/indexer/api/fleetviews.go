package api

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/store"
)

// The cross-rollup views (our extension, docs/indexer-api.md): one account over every chain
// of the fleet, in the single-chain routes' JSON shapes, each item carrying its "chain_id".

// crossTxKey is the cursor of the cross-rollup tx list: per chain, the sequence the walk
// continues below. Every chain's position is fixed on the first page (just past its newest tx
// then), so txs indexed during the walk, which are newer than every page, never enter it, and
// a chain that advances faster than another cannot make the merge skip or repeat a tx.
type crossTxKey struct {
	Chains map[string]int64 `json:"chains"`
}

func decodeCrossKey(s string, v any) error {
	raw, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(s, " ", "+"))
	if err == nil {
		d := json.NewDecoder(bytes.NewReader(raw))
		d.DisallowUnknownFields()
		err = d.Decode(v)
	}
	if err != nil {
		return apierr.BadRequest("invalid pagination.key format")
	}
	return nil
}

func encodeCrossKey(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// crossPage parses the list parameters of a cross-rollup view: the single-chain ones, with
// the view's own key, newest first only and no offset (a merged list has no stable offsets).
func crossPage(q url.Values) (store.Page, string, error) {
	key := q.Get("pagination.key")
	pq := url.Values{}
	for k, v := range q {
		if k != "pagination.key" {
			pq[k] = v
		}
	}
	p, err := pagination(pq)
	if err != nil {
		return p, "", err
	}
	if !p.Desc {
		return p, "", apierr.BadRequest("cross-rollup lists are newest first: pagination.reverse=false is not supported")
	}
	if p.Offset != 0 {
		return p, "", apierr.BadRequest("cross-rollup lists page with pagination.key, not pagination.offset")
	}
	return p, key, nil
}

// crossTx is one tx of a chain's page, with what the merge orders it by.
type crossTx struct {
	chain string
	seq   int64
	at    time.Time
	json  json.RawMessage
}

// txTime is a stored tx's block time ("timestamp"); a tx without one sorts last.
func txTime(b json.RawMessage) time.Time {
	var v struct {
		Timestamp string `json:"timestamp"`
	}
	_ = json.Unmarshal(b, &v)
	t, _ := time.Parse(time.RFC3339Nano, v.Timestamp)
	return t
}

// before is the merged order: newest block time first, then chain id, then the chain's own
// order (higher sequence first). Within one chain block time never decreases with the
// sequence, so each chain's page is already in this order and the merge is a k-way merge.
func (a crossTx) before(b crossTx) bool {
	if !a.at.Equal(b.at) {
		return a.at.After(b.at)
	}
	if a.chain != b.chain {
		return a.chain < b.chain
	}
	return a.seq > b.seq
}

// txsByAccountAll: GET /all/indexer/tx/v1/txs/by_account/{account}.
func (s *fleetServer) txsByAccountAll(r *http.Request) (any, error) {
	q := query(r.URL.RawQuery)
	p, key, err := crossPage(q)
	if err != nil {
		return nil, err
	}
	msgs, err := msgsParam(q)
	if err != nil {
		return nil, err
	}
	chains := servingChains(s.cfg.Chains())
	if err := checkAccount(chains, r.PathValue("account")); err != nil {
		return nil, err
	}
	var cur crossTxKey
	if key != "" {
		if err := decodeCrossKey(key, &cur); err != nil {
			return nil, err
		}
		if cur.Chains == nil {
			return nil, apierr.BadRequest("invalid pagination.key format")
		}
	} else if cur, err = crossTxStart(r.Context(), chains); err != nil {
		return nil, err
	}
	var all []crossTx
	var total int64
	for _, c := range chains {
		pos, ok := cur.Chains[c.ID]
		if !ok || pos <= 1 {
			continue // a chain added during the walk, or one that had no tx when it began
		}
		acc, err := accountParam(c.AccountPrefix, r.PathValue("account"))
		if err != nil {
			return nil, err
		}
		page, err := c.Reader.Txs(r.Context(), store.TxFilter{Account: acc, SignerOnly: q.Get("is_signer") == "true", MsgTypes: msgs},
			store.Page{Limit: p.Limit, Desc: true, After: store.Cursor{Kind: store.CursorSequence, Value: pos}, CountTotal: p.CountTotal})
		if err != nil {
			return nil, err
		}
		total += page.Total
		for _, t := range page.Txs {
			all = append(all, crossTx{chain: c.ID, seq: t.Sequence, at: txTime(t.JSON), json: t.JSON})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].before(all[j]) })
	if len(all) > p.Limit {
		all = all[:p.Limit]
	}
	next := crossTxKey{Chains: map[string]int64{}}
	for id, pos := range cur.Chains {
		next.Chains[id] = pos
	}
	size := 64
	for _, t := range all {
		next.Chains[t.chain] = t.seq
		size += len(t.json) + len(t.chain) + 16
	}
	pg := paginationJSON{Total: strconv.FormatInt(total, 10)}
	if len(all) > 0 {
		k, err := encodeCrossKey(next)
		if err != nil {
			return nil, err
		}
		pg.NextKey = &k
	}
	pj, err := json.Marshal(pg)
	if err != nil {
		return nil, err
	}
	b := httpapi.BodyBuffer(size + len(pj))
	b = append(b, `{"txs":[`...)
	for i, t := range all {
		if i > 0 {
			b = append(b, ',')
		}
		b = withChainID(b, t.chain, t.json)
	}
	b = append(b, `],"pagination":`...)
	b = append(b, pj...)
	b = append(b, "}\n"...)
	return httpapi.PooledRaw(b), nil
}

// crossTxStart fixes every chain's position for a new walk: just past its newest tx.
func crossTxStart(ctx context.Context, chains []FleetChain) (crossTxKey, error) {
	k := crossTxKey{Chains: map[string]int64{}}
	for _, c := range chains {
		page, err := c.Reader.Txs(ctx, store.TxFilter{}, store.Page{Limit: 1, Desc: true})
		if err != nil {
			return k, err
		}
		var top int64
		if len(page.Txs) > 0 {
			top = page.Txs[0].Sequence
		}
		k.Chains[c.ID] = top + 1
	}
	return k, nil
}

// withChainID appends obj (a JSON object) with "chain_id" as its first member.
func withChainID(b []byte, chain string, obj []byte) []byte {
	id, _ := json.Marshal(chain)
	b = append(b, `{"chain_id":`...)
	b = append(b, id...)
	rest := bytes.TrimSpace(obj)
	rest = bytes.TrimPrefix(rest, []byte("{"))
	if r := bytes.TrimSpace(rest); !bytes.Equal(r, []byte("}")) {
		b = append(b, ',')
	}
	return append(b, rest...)
}

// checkAccount answers a malformed account with the single-chain 400 even when no chain is
// ready: with the first chain's prefix, or the default one.
func checkAccount(chains []FleetChain, account string) error {
	prefix := "init"
	if len(chains) > 0 {
		prefix = chains[0].AccountPrefix
	}
	_, err := accountParam(prefix, account)
	return err
}

func servingChains(cs []FleetChain) []FleetChain {
	out := cs[:0:0]
	for _, c := range cs {
		if c.Reader != nil {
			out = append(out, c)
		}
	}
	return out
}

// crossNFTKey is the cursor of the cross-rollup NFT list: chains are walked one after the
// other in id order, each with its own single-chain key.
type crossNFTKey struct {
	Chain string `json:"chain"`
	Key   string `json:"key,omitempty"`
}

// nftTokensByAccountAll: GET /all/indexer/nft/v1/tokens/by_account/{account}: the account's
// NFTs on every chain, chain by chain (id order), each chain's in its single-chain order.
func (s *fleetServer) nftTokensByAccountAll(r *http.Request) (any, error) {
	q := query(r.URL.RawQuery)
	p, key, err := crossPage(q)
	if err != nil {
		return nil, err
	}
	if err := checkAccount(servingChains(s.cfg.Chains()), r.PathValue("account")); err != nil {
		return nil, err
	}
	var cur crossNFTKey
	if key != "" {
		if err := decodeCrossKey(key, &cur); err != nil {
			return nil, err
		}
		if cur.Chain == "" {
			return nil, apierr.BadRequest("invalid pagination.key format")
		}
	}
	type tokens struct {
		Tokens     []json.RawMessage `json:"tokens"`
		Pagination paginationJSON    `json:"pagination"`
	}
	out := tokens{Tokens: []json.RawMessage{}}
	var total int64
	var next *crossNFTKey
	for _, c := range servingChains(s.cfg.Chains()) {
		single := &server{cfg: Config{ChainID: c.ID, AccountPrefix: c.AccountPrefix}, store: c.Reader}
		acc, err := accountParam(c.AccountPrefix, r.PathValue("account"))
		if err != nil {
			return nil, err
		}
		// The chain's own count, for the total, whatever page the walk is on.
		cnt, err := c.Reader.Tokens(r.Context(), store.TokenFilter{Owner: acc}, store.Page{Limit: 1, CountTotal: true}, nil)
		if err != nil {
			return nil, err
		}
		total += cnt.Total
		if c.ID < cur.Chain || next != nil || len(out.Tokens) >= p.Limit {
			if next == nil && c.ID > cur.Chain && len(out.Tokens) >= p.Limit && cnt.Total > 0 {
				next = &crossNFTKey{Chain: c.ID}
			}
			continue
		}
		cq := url.Values{"pagination.limit": {strconv.Itoa(p.Limit - len(out.Tokens))}, "pagination.count_total": {"false"}}
		if c.ID == cur.Chain && cur.Key != "" {
			cq.Set("pagination.key", cur.Key)
		}
		r2 := r.Clone(r.Context())
		r2.URL = &url.URL{Path: r.URL.Path, RawQuery: cq.Encode()}
		v, err := single.tokenList(r2, store.TokenFilter{Owner: acc})
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		var page tokens
		if err := json.Unmarshal(b, &page); err != nil {
			return nil, err
		}
		for _, t := range page.Tokens {
			out.Tokens = append(out.Tokens, withChainID(nil, c.ID, t))
		}
		if len(out.Tokens) >= p.Limit && len(page.Tokens) > 0 && page.Pagination.NextKey != nil {
			next = &crossNFTKey{Chain: c.ID, Key: *page.Pagination.NextKey}
		}
	}
	out.Pagination.Total = strconv.FormatInt(total, 10)
	if next != nil {
		k, err := encodeCrossKey(next)
		if err != nil {
			return nil, err
		}
		out.Pagination.NextKey = &k
	}
	return out, nil
}
