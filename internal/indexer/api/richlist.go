package api

import (
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/store"
)

// richListStatus adds /status's rich_list_height while the rich list is kept.
func (s *server) richListStatus(r *http.Request, st *statusJSON) error {
	rr := s.cfg.Features.RichList
	if rr == nil {
		return nil
	}
	h, err := rr.RichListHeight(r.Context())
	if h > 0 || s.cfg.RichList {
		st.RichListHeight = &h
	}
	return err
}

type holderJSON struct {
	Account string `json:"account"`
	Amount  string `json:"amount"`
}

// richList is /indexer/richlist/v1/{denom}: holders by amount with offset pages, as in
// rollytics. The denom is lowercased (the path value is already percent-decoded, so rollytics'
// %2F works); on EVM chains "0x…" is the ERC-20, "evm/…" names it too and any other denom is
// looked up among the bank denoms resolved at ingestion. A well-formed denom nobody holds is
// an empty list at once (rollytics: 400 after retrying its node for ~46 s).
func (s *server) richList(r *http.Request) (any, error) {
	raw := r.PathValue("denom")
	denom := strings.ToLower(raw)
	if !wellFormedDenom(denom) {
		return nil, apierr.BadRequest("[INVALID_VALUE] invalid value for denom: %s (invalid denom format)", clip(raw))
	}
	p, err := pagination(query(r.URL.RawQuery))
	if err != nil {
		return nil, err
	}
	// Offset pages only: a JSON cursor key means its offset, none.
	p.After = store.Cursor{}
	rr := s.cfg.Features.RichList
	if rr == nil {
		return holdersJSON(nil, p, 0), nil
	}
	evm := s.cfg.Features.HexHolders
	if evm {
		switch {
		case strings.HasPrefix(denom, "0x"):
		case strings.HasPrefix(denom, "evm/") && isHex40(denom[4:]):
			denom = "0x" + denom[4:]
		default:
			d, err := rr.RichListAlias(r.Context(), denom)
			if err != nil {
				return nil, err
			}
			if d == "" {
				return holdersJSON(nil, p, 0), nil
			}
			denom = d
		}
	}
	page, err := rr.Holders(r.Context(), denom, p)
	if err != nil {
		return nil, err
	}
	out := make([]holderJSON, 0, len(page.Holders))
	for _, h := range page.Holders {
		acc := address.Hex(h.Account)
		if !evm {
			if acc, err = address.Bech32(s.cfg.AccountPrefix, h.Account); err != nil {
				return nil, err
			}
		}
		out = append(out, holderJSON{Account: acc, Amount: h.Amount.String()})
	}
	return holdersJSON(out, p, page.Total), nil
}

// holdersJSON is rollytics' offset-mode answer: next_key only after a full page, previous_key
// once the offset reaches back a whole page.
func holdersJSON(hs []holderJSON, p store.Page, total int64) any {
	if hs == nil {
		hs = []holderJSON{}
	}
	pg := paginationJSON{Total: strconv.FormatInt(total, 10)}
	limit := int64(p.Limit)
	if limit == 0 {
		limit = store.DefaultPageLimit
	}
	if int64(len(hs)) == limit {
		k := base64.StdEncoding.EncodeToString([]byte(strconv.FormatInt(p.Offset+limit, 10)))
		pg.NextKey = &k
	}
	if p.Offset > 0 && p.Offset >= limit {
		k := base64.StdEncoding.EncodeToString([]byte(strconv.FormatInt(p.Offset-limit, 10)))
		pg.PreviousKey = &k
	}
	return struct {
		Holders    []holderJSON   `json:"holders"`
		Pagination paginationJSON `json:"pagination"`
	}{hs, pg}
}

// wellFormedDenom accepts what a bank, ERC-20 or Move denom can look like: 1 to 128
// characters of [a-z0-9/:._-] (after lowercasing).
func wellFormedDenom(d string) bool {
	if d == "" || len(d) > 128 {
		return false
	}
	for i := 0; i < len(d); i++ {
		c := d[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && !strings.ContainsRune("/:._-", rune(c)) {
			return false
		}
	}
	return true
}

func isHex40(s string) bool {
	if len(s) != 40 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}
