package api

import (
	"net/http"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/store"
)

// balanceJSON is one denom of an account's balances on one chain.
type balanceJSON struct {
	Denom  string `json:"denom"`
	Amount string `json:"amount"`
}

// chainBalancesJSON is one chain of the cross-rollup balances view. A chain without a rich
// list carries chain_id and rich_list: false alone, so a client tells "no rich list" from "no
// balance" (an empty balances list at a height).
type chainBalancesJSON struct {
	ChainID  string `json:"chain_id"`
	RichList bool   `json:"rich_list"`
	// Account is the account as the chain's own rich list names holders: 0x hex on EVM, else
	// bech32 with the chain's prefix.
	Account  string         `json:"account,omitempty"`
	Height   *int64         `json:"height,omitempty"`   // the rich list's height (/status rich_list_height)
	Balances *[]balanceJSON `json:"balances,omitempty"` // [] for an account without a balance
	// Truncated: the account holds more than store.MaxAccountBalances denoms on the chain and
	// balances lists the lowest of them.
	Truncated bool `json:"truncated,omitempty"`
}

// balancesByAccountAll: GET /all/indexer/richlist/v1/by_account/{account}: the account's
// balances where each chain's rich list keeps them, chain by chain (id order), each at its rich
// list's height. Unpaged: an account holds few denoms per chain (capped, see Truncated).
func (s *fleetServer) balancesByAccountAll(r *http.Request) (any, error) {
	chains := servingChains(s.cfg.Chains())
	raw := r.PathValue("account")
	if err := checkAccount(chains, raw); err != nil {
		return nil, err
	}
	out := []chainBalancesJSON{}
	for _, c := range chains {
		acc, err := accountParam(c.AccountPrefix, raw)
		if err != nil {
			return nil, err
		}
		cb := chainBalancesJSON{ChainID: c.ID}
		// Every store.DB keeps the rich-list tables; a list at height 0 was never started (the
		// chain runs without one, as its /status shows).
		rr, ok := c.Reader.(store.RichListReader)
		var bs store.AccountBalances
		if ok {
			if bs, err = rr.Balances(r.Context(), acc); err != nil {
				return nil, err
			}
		}
		if bs.Height > 0 {
			cb.RichList, cb.Height, cb.Truncated = true, &bs.Height, bs.Truncated
			if vmkind.Kind(c.VMType) == vmkind.EVM {
				cb.Account = address.Hex(acc)
			} else if cb.Account, err = address.Bech32(c.AccountPrefix, acc); err != nil {
				return nil, err
			}
			list := make([]balanceJSON, 0, len(bs.Balances))
			for _, b := range bs.Balances {
				list = append(list, balanceJSON{Denom: b.Denom, Amount: b.Amount.String()})
			}
			cb.Balances = &list
		}
		out = append(out, cb)
	}
	return map[string]any{"chains": out}, nil
}
