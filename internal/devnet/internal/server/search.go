package server

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

type cond struct {
	tag, op, val string
}

func parseQuery(q string) ([]cond, error) {
	if q == "" {
		return nil, fmt.Errorf("query cannot be empty")
	}
	if len(q) > 512 {
		return nil, fmt.Errorf("maximum query length exceeded")
	}
	var out []cond
	for _, part := range strings.Split(q, " AND ") {
		part = strings.TrimSpace(part)
		if strings.HasSuffix(part, " EXISTS") {
			out = append(out, cond{tag: strings.TrimSpace(strings.TrimSuffix(part, " EXISTS")), op: "EXISTS"})
			continue
		}
		var c cond
		found := false
		for _, op := range []string{" CONTAINS ", "<=", ">=", "=", "<", ">"} {
			if i := strings.Index(part, op); i > 0 {
				c = cond{tag: strings.TrimSpace(part[:i]), op: strings.TrimSpace(op), val: strings.TrimSpace(part[i+len(op):])}
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("failed to parse query %q", q)
		}
		c.val = strings.Trim(c.val, "'")
		out = append(out, c)
	}
	return out, nil
}

func matchVal(c cond, v string) bool {
	switch c.op {
	case "EXISTS":
		return true
	case "=":
		return v == c.val
	case "CONTAINS":
		return strings.Contains(v, c.val)
	}
	a, ok1 := new(big.Float).SetString(v)
	b, ok2 := new(big.Float).SetString(c.val)
	if !ok1 || !ok2 {
		return false
	}
	cmp := a.Cmp(b)
	switch c.op {
	case "<":
		return cmp < 0
	case "<=":
		return cmp <= 0
	case ">":
		return cmp > 0
	case ">=":
		return cmp >= 0
	}
	return false
}

// txMatches applies CometBFT kv-indexer semantics: tx.height/tx.hash filter the tx, every
// other condition must hold on one and the same event occurrence, indexed attributes only.
func txMatches(conds []cond, height int64, hash string, evs []sim.Event) bool {
	var evConds []cond
	for _, c := range conds {
		switch c.tag {
		case "tx.height":
			if !matchVal(c, strconv.FormatInt(height, 10)) {
				return false
			}
		case "tx.hash":
			if !strings.EqualFold(c.val, hash) {
				return false
			}
		default:
			evConds = append(evConds, c)
		}
	}
	if len(evConds) == 0 {
		return true
	}
	for _, e := range evs {
		all := true
		for _, c := range evConds {
			dot := strings.LastIndex(c.tag, ".")
			if dot < 0 || c.tag[:dot] != e.Type {
				all = false
				break
			}
			key := c.tag[dot+1:]
			hit := false
			for _, a := range e.Attributes {
				if a.Index && a.Key == key && matchVal(c, a.Value) {
					hit = true
					break
				}
			}
			if !hit {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// hashCond is the hash of a "tx.hash = X" condition, when the query has one.
func hashCond(conds []cond) ([32]byte, bool) {
	var h [32]byte
	for _, c := range conds {
		if c.tag == "tx.hash" && c.op == "=" {
			b, err := hex.DecodeString(c.val)
			if err != nil || len(b) != 32 {
				return h, true // matches nothing, as no tx has that hash
			}
			copy(h[:], b)
			return h, true
		}
	}
	return h, false
}

func (s *Comet) txSearch(p map[string]string) (any, error) {
	conds, err := parseQuery(p["query"])
	if err != nil {
		return nil, internalErr(err)
	}
	page, perPage := 1, 30
	if v := p["page"]; v != "" {
		if page, err = strconv.Atoi(v); err != nil {
			return nil, invalidParams(err.Error())
		}
	}
	if v := p["per_page"]; v != "" {
		if perPage, err = strconv.Atoi(v); err != nil {
			return nil, invalidParams(err.Error())
		}
	}
	if perPage < 1 {
		perPage = 30
	}
	perPage = min(perPage, 100)
	desc := false
	switch p["order_by"] {
	case "", "asc":
	case "desc":
		desc = true
	default:
		return nil, internalErr(fmt.Errorf("expected order_by to be either `asc` or `desc` or empty"))
	}
	type hit struct {
		b *engine.Block
		i int
	}
	var hits []hit
	if hash, ok := hashCond(conds); ok {
		// A wallet confirming its broadcast (InterwovenKit: tx_search "tx.hash='…'"): the
		// hash index answers for every retained tx, without reading a block.
		if b, i, found := s.c.TxByHash(hash); found && txMatches(conds, b.Height, upperHex(b.TxHashes[i][:]), b.Results[i].Events) {
			hits = append(hits, hit{b, i})
		}
	} else {
		// A pruning node's indexer keeps nothing below the base: search what is retained
		// (from height 1 a pruned chain failed the whole search on the first dropped block).
		top := s.c.Height()
		for h := s.c.Base(); h <= top; h++ {
			b, err := s.c.Block(h)
			if err != nil {
				var pe *engine.PrunedHeightError
				if errors.As(err, &pe) {
					continue // pruned while searching
				}
				return nil, err
			}
			for i := range b.Txs {
				if txMatches(conds, b.Height, upperHex(b.TxHashes[i][:]), b.Results[i].Events) {
					hits = append(hits, hit{b, i})
				}
			}
		}
	}
	if desc {
		for l, r := 0, len(hits)-1; l < r; l, r = l+1, r-1 {
			hits[l], hits[r] = hits[r], hits[l]
		}
	}
	total := len(hits)
	pages := (total + perPage - 1) / perPage
	if pages == 0 {
		pages = 1
	}
	if page < 1 || page > pages {
		return nil, internalErr(fmt.Errorf("page should be within [1, %d] range, given %d", pages, page))
	}
	start := (page - 1) * perPage
	end := min(start+perPage, total)
	txs := []any{}
	for _, h := range hits[start:end] {
		txs = append(txs, cometTx(h.b, h.i))
	}
	return ordered{{"txs", txs}, {"total_count", strconv.Itoa(total)}}, nil
}

// --- abci_query: the two gRPC queries clients need to sign (account) and check (balance) ---

func pbBytes(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func pbVarint(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func pbStrings(data []byte) map[protowire.Number]string {
	out := map[protowire.Number]string{}
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return out
		}
		data = data[n:]
		m := protowire.ConsumeFieldValue(num, typ, data)
		if m < 0 {
			return out
		}
		if typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(data)
			out[num] = string(v)
		}
		data = data[m:]
	}
	return out
}

func (s *Comet) abciQuery(p map[string]string) (any, error) {
	data, err := hex.DecodeString(strings.TrimPrefix(p["data"], "0x"))
	if err != nil {
		return nil, invalidParams("data must be hex")
	}
	h, err := s.height(p)
	if err != nil {
		return nil, err
	}
	answered := h // the height the response reports
	resp := func(code uint32, log string, value []byte, codespace string) any {
		var v any
		if value != nil {
			v = b64(value)
		}
		return ordered{{"response", ordered{{"code", code}, {"log", log}, {"info", ""}, {"index", "0"}, {"key", nil},
			{"value", v}, {"proofOps", nil}, {"height", i64(answered)}, {"codespace", codespace}}}}
	}
	q, err := s.c.Query(h)
	if err != nil {
		var pe *engine.PrunedHeightError
		if errors.As(err, &pe) {
			// the app answers, with the error in the response, as for any failed query
			return resp(18, fmt.Sprintf("failed to load state at height %d; version does not exist (latest height: %d): invalid request", pe.Requested, s.c.Height()), nil, "sdk"), nil
		}
		return nil, err
	}
	answered = q.Height()
	prefix := s.c.Config().Bech32Prefix
	args := pbStrings(data)
	switch p["path"] {
	case "/cosmos.tx.v1beta1.Service/Simulate":
		return s.abciSimulate(data, resp), nil
	case "/cosmos.auth.v1beta1.Query/Account":
		addr, err := engine.ParseAddress(prefix, args[1])
		if err != nil {
			return resp(7, err.Error()+": invalid address", nil, "sdk"), nil
		}
		a, ok := engine.AccountAt(q, addr)
		if !ok {
			return resp(22, fmt.Sprintf("account %s not found: key not found", args[1]), nil, "sdk"), nil
		}
		var base []byte
		base = pbBytes(base, 1, []byte(engine.Bech32(prefix, addr)))
		if a.PubKeyType != "" {
			base = pbBytes(base, 2, engine.EncodeAny(a.PubKeyType, pbBytes(nil, 1, a.PubKey)))
		}
		base = pbVarint(base, 3, a.Number)
		base = pbVarint(base, 4, a.Sequence)
		return resp(0, "", pbBytes(nil, 1, engine.EncodeAny("/cosmos.auth.v1beta1.BaseAccount", base)), ""), nil
	case "/cosmos.bank.v1beta1.Query/Balance":
		addr, err := engine.ParseAddress(prefix, args[1])
		if err != nil {
			return resp(7, err.Error()+": invalid address", nil, "sdk"), nil
		}
		amt := q.Balance(addr, args[2])
		coin := pbBytes(pbBytes(nil, 1, []byte(args[2])), 2, []byte(amt.String()))
		return resp(0, "", pbBytes(nil, 1, coin), ""), nil
	}
	return resp(6, fmt.Sprintf("no custom querier found for route %s: unknown request", p["path"]), nil, "sdk"), nil
}
