package api

import (
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/store"
)

// The transfer lists: every movement of a token to or from an account, of a denom, or in a
// tx, from the transfers index ingestion writes with each block. The lists page like the tx
// lists (pagination.*, a {"sequence":N} key over the transfer's id) and take a time range.

func errNoTransfers(r *http.Request) (any, error) {
	return nil, apierr.NotFoundf("no transfer route %s on this chain", clip(r.URL.Path))
}

// transferRoutes are served when the profile hands the API the transfers index.
func (s *server) transferRoutes() []httpapi.Route {
	// Every other path under the prefix is this 404 (the only one without the index).
	out := []httpapi.Route{{Pattern: "GET /indexer/transfer/v1", Handler: errNoTransfers}, {Pattern: "GET /indexer/transfer/v1/", Handler: errNoTransfers}}
	if s.cfg.Features.Transfers == nil {
		return out
	}
	return append(out,
		httpapi.Route{Pattern: "GET /indexer/transfer/v1/transfers/by_account/{account}", Handler: s.transfersByAccount, InSpec: true, Cache: true},
		httpapi.Route{Pattern: "GET /indexer/transfer/v1/transfers/by_denom/{denom}", Handler: s.transfersByDenom, InSpec: true, Cache: true},
		httpapi.Route{Pattern: "GET /indexer/transfer/v1/transfers/by_tx/{tx_hash}", Handler: s.transfersByTx, InSpec: true, Cache: true},
		httpapi.Route{Pattern: "GET /indexer/transfer/v1/transfers/stream", Stream: s.transferStream, InSpec: true},
	)
}

// transferJSON is one transfer as the lists serve it. Accounts are bech32, or 0x hex on EVM
// chains; from is null for a mint, to for a burn.
type transferJSON struct {
	Height           int64   `json:"height"`
	Timestamp        string  `json:"timestamp"`
	TxHash           string  `json:"tx_hash"`
	MsgIndex         *int    `json:"msg_index"`
	Kind             string  `json:"kind"`
	From             *string `json:"from"`
	To               *string `json:"to"`
	Denom            string  `json:"denom"`
	Contract         *string `json:"contract"`
	Amount           string  `json:"amount"`
	TokenID          *string `json:"token_id"`
	Counterparty     *string `json:"counterparty"`
	CounterpartyAddr *string `json:"counterparty_address"`
}

type transfersJSON struct {
	Transfers  []transferJSON `json:"transfers"`
	Pagination paginationJSON `json:"pagination"`
}

func (s *server) transfersByAccount(r *http.Request) (any, error) {
	acc, err := accountParam(s.cfg.AccountPrefix, r.PathValue("account"))
	if err != nil {
		return nil, err
	}
	q := query(r.URL.RawQuery)
	f := store.TransferFilter{Account: acc}
	if f.Direction, err = transferDirection(q.Get("direction")); err != nil {
		return nil, err
	}
	if d := q.Get("denom"); d != "" {
		if f.Denom, f.Contract, err = s.denomOrContract(d); err != nil {
			return nil, err
		}
	}
	if c := q.Get("contract"); c != "" {
		b, err := parseAccount(s.cfg.AccountPrefix, c)
		if err != nil {
			return nil, apierr.BadRequest("[INVALID_VALUE] invalid value for contract: %s (invalid address format)", clip(c))
		}
		f.Contract = b
	}
	if csvOut, err := wantsCSV(r, q); err != nil || csvOut {
		if err != nil {
			return nil, err
		}
		if f.MinHeight, f.MaxHeight, err = s.exportHeights(r, q); err != nil {
			return nil, err
		}
		return s.exportTransfers(q, acc, f), nil
	}
	return s.transferList(r, q, f)
}

func (s *server) transfersByDenom(r *http.Request) (any, error) {
	var f store.TransferFilter
	var err error
	if f.Denom, f.Contract, err = s.denomOrContract(r.PathValue("denom")); err != nil {
		return nil, err
	}
	return s.transferList(r, query(r.URL.RawQuery), f)
}

func (s *server) transfersByTx(r *http.Request) (any, error) {
	hash, err := hashParam(r.PathValue("tx_hash"))
	if err != nil {
		return nil, err
	}
	return s.transferList(r, query(r.URL.RawQuery), store.TransferFilter{TxHash: hash})
}

// denomOrContract reads a denom as the transfers name it (case kept: IBC hashes are upper
// case), or a 0x contract: the token whatever its denom.
func (s *server) denomOrContract(d string) (string, []byte, error) {
	if strings.HasPrefix(d, "0x") || strings.HasPrefix(d, "0X") {
		b, err := address.ParseHex(d)
		if err != nil || (len(b) != 20 && len(b) != 32) {
			return "", nil, apierr.BadRequest("[INVALID_VALUE] invalid value for denom: %s (invalid contract address)", clip(d))
		}
		return "", b, nil
	}
	if !transferDenom(d) {
		return "", nil, apierr.BadRequest("[INVALID_VALUE] invalid value for denom: %s (invalid denom format)", clip(d))
	}
	if strings.HasPrefix(d, "evm/") {
		d = strings.ToLower(d) // the transfers name ERC-20s with lowercase hex
	}
	if obj := s.cfg.Features.TransferCoinObject; obj != nil {
		return "", obj(d), nil
	}
	return d, nil, nil
}

// transferDenom accepts the characters of SDK denoms, CW20 names and Move object names.
func transferDenom(d string) bool {
	if d == "" || len(d) > 256 {
		return false
	}
	for i := 0; i < len(d); i++ {
		c := d[i]
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') && !strings.ContainsRune("/:._-", rune(c)) {
			return false
		}
	}
	return true
}

func (s *server) transferList(r *http.Request, q url.Values, f store.TransferFilter) (any, error) {
	p, err := pagination(q)
	if err != nil {
		return nil, err
	}
	lo, hi, empty, err := s.timeRange(r, q)
	if err != nil {
		return nil, err
	}
	if empty {
		return transfersJSON{Transfers: []transferJSON{}, Pagination: cursorPagination(store.CursorSequence, 0, 0, 0)}, nil
	}
	f.MinHeight, f.MaxHeight = lo, hi
	page, err := s.cfg.Features.Transfers.Transfers(r.Context(), f, p)
	if err != nil {
		return nil, err
	}
	out := transfersJSON{Transfers: make([]transferJSON, 0, len(page.Transfers))}
	for _, t := range page.Transfers {
		j, err := s.transferItem(t)
		if err != nil {
			return nil, err
		}
		out.Transfers = append(out.Transfers, j)
	}
	var last int64
	if n := len(page.Transfers); n > 0 {
		last = page.Transfers[n-1].ID
	}
	out.Pagination = cursorPagination(store.CursorSequence, last, len(page.Transfers), page.Total)
	return out, nil
}

func (s *server) transferItem(t store.TransferRecord) (transferJSON, error) {
	j := transferJSON{Height: t.Height, Timestamp: t.Time.UTC().Format(time.RFC3339Nano), TxHash: strings.ToUpper(hex.EncodeToString(t.TxHash)),
		Kind: t.Kind, Denom: t.Denom, Amount: t.Amount}
	if t.MsgIndex >= 0 {
		m := t.MsgIndex
		j.MsgIndex = &m
	}
	var err error
	if j.From, err = s.transferAccount(t.From); err != nil {
		return j, err
	}
	if j.To, err = s.transferAccount(t.To); err != nil {
		return j, err
	}
	if t.Contract != nil {
		c := address.Hex(t.Contract)
		if t.Kind == store.TransferCW20 || t.Kind == store.TransferCW721 {
			if c, err = address.Bech32(s.cfg.AccountPrefix, t.Contract); err != nil {
				return j, err
			}
		}
		j.Contract = &c
	}
	j.TokenID = optString(t.TokenID)
	j.Counterparty = optString(t.Counterparty)
	j.CounterpartyAddr = optString(t.CounterpartyAddr)
	return j, nil
}

func (s *server) transferAccount(b []byte) (*string, error) {
	if b == nil {
		return nil, nil
	}
	if s.cfg.Features.TransfersHex {
		a := address.Hex(b)
		return &a, nil
	}
	a, err := address.Bech32(s.cfg.AccountPrefix, b)
	if err != nil {
		return nil, err
	}
	return &a, nil
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
