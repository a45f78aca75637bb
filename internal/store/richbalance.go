package store

import (
	"context"
	"fmt"
	"math/big"
)

// MaxAccountBalances caps the denoms Balances lists: an account holds a handful, and the cap
// bounds the answer for the odd one (a faucet, a bridge escrow) that holds every token minted.
const MaxAccountBalances = 1000

// Balance is one denom of an account's balances.
type Balance struct {
	Denom  string // as stored: EVM the lowercase 0x ERC-20, else the lowercase bank or Move denom
	Amount *big.Int
}

// AccountBalances is an account's rich-list rows at one rich-list height.
type AccountBalances struct {
	// Height is the rich list's height (0: the rich list is not tracked, and Balances is
	// empty).
	Height int64
	// Balances are the non-zero balances in denom order, at most MaxAccountBalances.
	Balances []Balance
	// Truncated says the account holds more denoms than MaxAccountBalances: the list stops at
	// the MaxAccountBalances lowest.
	Truncated bool
}

// zeroAmount is a zero balance as stored: the rich list keeps a holder whose balance fell to
// zero (as rollytics lists it), which is no balance to the account's own view.
var zeroAmount = make([]byte, 32)

// Balances implements RichListReader. The rows come from the rich_list_account index
// (migration 0008) and the height from rich_list_state in the same statement, so the two are
// of one snapshot even while a block is written.
func (d *DB) Balances(ctx context.Context, account []byte) (AccountBalances, error) {
	return readRetrying(ctx, d, func() (AccountBalances, error) {
		// The LEFT JOIN yields the height even for an account without a balance.
		r, err := d.be.Reader().Query(ctx, "SELECT s.height, b.denom, b.amount FROM rich_list_state s LEFT JOIN (SELECT r.denom, r.amount FROM rich_list r"+
			" WHERE r.account = ? AND r.amount <> ? ORDER BY r.denom LIMIT ?) b ON 1 = 1 WHERE s.id = 1 ORDER BY b.denom",
			nonNil(account), zeroAmount, MaxAccountBalances+1)
		if err != nil {
			return AccountBalances{}, fmt.Errorf("rich list balances: %w", err)
		}
		defer r.Close()
		out := AccountBalances{Balances: []Balance{}}
		for r.Next() {
			var denom *string
			var amt []byte
			if err := r.Scan(&out.Height, &denom, &amt); err != nil {
				return AccountBalances{}, fmt.Errorf("rich list balances: %w", err)
			}
			if denom == nil {
				continue
			}
			if len(out.Balances) == MaxAccountBalances {
				out.Truncated = true
				break
			}
			out.Balances = append(out.Balances, Balance{Denom: *denom, Amount: new(big.Int).SetBytes(amt)})
		}
		if err := r.Err(); err != nil {
			return AccountBalances{}, fmt.Errorf("rich list balances: %w", err)
		}
		return out, nil
	})
}
