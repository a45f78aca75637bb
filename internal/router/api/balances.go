package api

import (
	"errors"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/redact"
	"github.com/rollgate/rollgate/internal/router/msgs"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/route"
	"github.com/rollgate/rollgate/internal/router/wire"
)

// errNoBalances answers every chain when the router has no BalanceSource.
var errNoBalances = errors.New("balances are not configured for this router")

type balanceEntry struct {
	Address string                       `json:"address"`
	Denoms  map[string]wire.DenomBalance `json:"denoms"`
}

// balances asks every requested chain at once: an answer costs the slowest chain, not the
// sum. How many requests reach one upstream at a time is the BalanceSource's bound
// (registry.RESTBalances: per chain, shared by all requests).
func (s *server) balances(r *http.Request) (any, error) {
	var req wire.BalancesRequest
	if err := s.decode(r, &req); err != nil {
		return nil, err
	}
	reg := s.current().Registry()
	ids := make([]string, 0, len(req.Chains))
	for id := range req.Chains {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		c := reg.Chain(id)
		if c == nil {
			return nil, apierr.NotFoundf("unknown chain %q", id).WithDetails(route.ReasonUnknownChain)
		}
		if err := msgs.ValidateAddress(c, req.Chains[id].Address); err != nil {
			return nil, apierr.BadRequest("chains.%s.address: %v", id, err).WithDetails(msgs.ReasonInvalidAddress)
		}
	}
	entries := make([]balanceEntry, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Go(func() {
			c, q := reg.Chain(id), req.Chains[id]
			var have map[string]string
			err := errNoBalances
			if s.cfg.Balances != nil {
				have, err = s.cfg.Balances.Balances(r.Context(), c, q.Address)
			}
			entries[i] = balanceEntryOf(c, q.Address, q.Denoms, have, err)
			for d, b := range entries[i].Denoms {
				s.priceBalance(reg, id, d, &b)
				entries[i].Denoms[d] = b
			}
		})
	}
	wg.Wait()
	out := make(map[string]balanceEntry, len(ids))
	for i, id := range ids {
		out[id] = entries[i]
	}
	return map[string]any{"chains": out}, nil
}

// balanceEntryOf renders one chain's answer: the asked denoms (all it holds when none were
// asked), or, when the upstream failed, each asked denom with the error. The error text is
// redacted: it may quote the chain's REST URL, credentials included.
func balanceEntryOf(c *registry.Chain, address string, denoms []string, have map[string]string, ferr error) balanceEntry {
	entry := balanceEntry{Address: address, Denoms: map[string]wire.DenomBalance{}}
	if len(denoms) == 0 {
		for d := range have {
			denoms = append(denoms, d)
		}
		slices.Sort(denoms)
	}
	for _, d := range denoms {
		if ferr != nil {
			entry.Denoms[d] = wire.DenomBalance{Amount: "0", FormattedAmount: "0", Error: &wire.ErrorInfo{Message: redact.Text(ferr.Error())}}
			continue
		}
		amt := have[d]
		if amt == "" {
			amt = "0"
		}
		b := wire.DenomBalance{Amount: amt, FormattedAmount: amt}
		if a := c.Asset(d); a != nil {
			dec := a.Decimals
			b.Decimals = &dec
			b.FormattedAmount = formatAmount(amt, dec)
		}
		entry.Denoms[d] = b
	}
	return entry
}

// formatAmount renders a base-unit amount with the asset's decimals ("1234567", 6 → "1.234567").
func formatAmount(amount string, decimals int) string {
	v, ok := new(big.Int).SetString(amount, 10)
	if !ok || decimals == 0 {
		return amount
	}
	r := new(big.Rat).SetFrac(v, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil))
	s := r.FloatString(decimals)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
