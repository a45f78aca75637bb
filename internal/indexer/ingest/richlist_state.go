package ingest

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/store"
)

// StateSource lists the chain's accounts at a height, for a rich list that starts above
// height 1 from the chain's state (the spec's START_HEIGHT bootstrap).
type StateSource interface {
	// AccountAddresses is every account of /cosmos/auth/v1beta1/accounts at height.
	AccountAddresses(ctx context.Context, height int64) ([]string, error)
}

// stateRichList reads every account's bank balances at height: the rich list as of the end
// of that block, whose own events are then not applied again. With erc20s (EVM chains) the
// bank denoms become their ERC-20s (and aliases), and 32-byte accounts are skipped as in
// rollytics.
func stateRichList(ctx context.Context, src RichListSource, st StateSource, erc20s bool, prefix string, height int64) (*store.RichListChanges, error) {
	addrs, err := st.AccountAddresses(ctx, height)
	if err != nil {
		return nil, fmt.Errorf("accounts at %d: %w", height, err)
	}
	out := &store.RichListChanges{Aliases: map[string]string{}}
	contracts := map[string]string{}
	for _, a := range addrs {
		acc, err := address.Parse(prefix, a)
		if err != nil || (erc20s && len(acc) != 20) {
			continue
		}
		coins, err := src.BankBalances(ctx, a, height)
		if err != nil {
			return nil, fmt.Errorf("balances of %s at %d: %w", a, height, err)
		}
		for _, c := range coins {
			amt, ok := new(big.Int).SetString(c.Amount, 10)
			if !ok || amt.Sign() <= 0 {
				continue
			}
			denom := strings.ToLower(c.Denom)
			if erc20s {
				contract, ok := contracts[c.Denom]
				if !ok {
					addr, err := src.ContractByDenom(ctx, c.Denom)
					if err != nil {
						return nil, fmt.Errorf("contract of %q: %w", c.Denom, err)
					}
					contract = strings.ToLower(addr)
					contracts[c.Denom] = contract
					out.Aliases[denom] = contract
				}
				denom = contract
			}
			out.Sets = append(out.Sets, store.BalanceSet{Denom: denom, Account: acc, Amount: amt})
		}
	}
	return out, nil
}
