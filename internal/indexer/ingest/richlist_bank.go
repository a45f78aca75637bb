package ingest

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/rollgate/rollgate/internal/store"
)

// bankChanges turns the bank events of a block's txs into balance changes, as rollytics' Wasm
// rich list does: coinbase (minter +), burn (burner −), transfer (sender −, recipient +), each
// amount a coins string, denoms lowercased. Module accounts stay in: on the captured Wasm
// chain rollytics lists the fee collector and the tokenfactory module like any holder.
func (x *AccountExtractor) bankChanges(height int64, results []TxResult) ([]store.BalanceChange, error) {
	var out []store.BalanceChange
	add := func(who, amount string, sign int) error {
		if who == "" || amount == "" {
			return nil // not a bank movement (other modules reuse the event names)
		}
		acc, ok := x.ParseAddress(who)
		if !ok {
			return fmt.Errorf("height %d: %w: bank event account %.80q", height, ErrInvalidData, who)
		}
		cs, err := parseCoins(amount)
		if err != nil {
			return fmt.Errorf("height %d: %w: %w", height, ErrInvalidData, err)
		}
		for _, c := range cs {
			if sign < 0 {
				c.amount.Neg(c.amount)
			}
			out = append(out, store.BalanceChange{Denom: c.denom, Account: acc, Delta: c.amount})
		}
		return nil
	}
	for _, r := range results {
		for _, ev := range r.Events {
			var a map[string]string
			switch ev.Type {
			case "coinbase", "burn", "transfer":
				a = make(map[string]string, len(ev.Attributes))
				for _, at := range ev.Attributes {
					a[at.Key] = at.Value
				}
			default:
				continue
			}
			var err error
			switch ev.Type {
			case "coinbase":
				err = add(a["minter"], a["amount"], 1)
			case "burn":
				err = add(a["burner"], a["amount"], -1)
			case "transfer":
				if err = add(a["sender"], a["amount"], -1); err == nil {
					err = add(a["recipient"], a["amount"], 1)
				}
			}
			if err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

type coin struct {
	denom  string
	amount *big.Int
}

// parseCoins reads an SDK coins string ("10umin,5factory/init1…/wtt"), lowercasing denoms as
// rollytics does (the SDK's ParseCoinsNormalized).
func parseCoins(s string) ([]coin, error) {
	cs, err := parseCoinsCase(s)
	for i := range cs {
		cs[i].denom = strings.ToLower(cs[i].denom)
	}
	return cs, err
}

// parseCoinsCase is parseCoins keeping each denom as written.
func parseCoinsCase(s string) ([]coin, error) {
	var out []coin
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		i := 0
		for i < len(p) && p[i] >= '0' && p[i] <= '9' {
			i++
		}
		amt, ok := new(big.Int).SetString(p[:i], 10)
		if i == 0 || i == len(p) || !ok {
			return nil, fmt.Errorf("coin %.80q", p)
		}
		out = append(out, coin{denom: p[i:], amount: amt})
	}
	return out, nil
}

// bankGenesisRichList reads the genesis bank balances, denoms lowercased (Wasm chains).
func bankGenesisRichList(ctx context.Context, src RichListSource, prefix string) (*store.RichListChanges, error) {
	balances, err := genesisBalances(ctx, src, prefix)
	if err != nil {
		return nil, err
	}
	out := &store.RichListChanges{}
	for _, b := range balances {
		out.Sets = append(out.Sets, store.BalanceSet{Denom: strings.ToLower(b.denom), Account: b.account, Amount: b.amount})
	}
	return out, nil
}

// bankBalanceAt reads a holder's bank balance of a (lowercased) denom at a height over REST.
func bankBalanceAt(ctx context.Context, src RichListSource, x *AccountExtractor, e *store.NegativeBalanceError) (store.BalanceSet, error) {
	coins, err := src.BankBalances(ctx, x.Bech32(e.Account), e.Height)
	if err != nil {
		return store.BalanceSet{}, fmt.Errorf("balances at %d: %w", e.Height, err)
	}
	set := store.BalanceSet{Denom: e.Denom, Account: e.Account, Amount: new(big.Int)}
	for _, c := range coins {
		if strings.ToLower(c.Denom) == e.Denom {
			v, ok := new(big.Int).SetString(c.Amount, 10)
			if !ok {
				return store.BalanceSet{}, fmt.Errorf("balance %q of %s", c.Amount, c.Denom)
			}
			set.Amount.Add(set.Amount, v)
		}
	}
	return set, nil
}
