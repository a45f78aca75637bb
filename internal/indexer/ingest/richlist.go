package ingest

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/store"
)

// transferTopic is keccak256("Transfer(address,address,uint256)"), the first topic of ERC-20
// and ERC-721 Transfer logs; ERC-20's has three topics (the amount is in data).
const transferTopic = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"

// RichListSource is what bootstrapping and correcting the rich list needs from the chain.
type RichListSource interface {
	// Genesis is the app_state of CometBFT /genesis.
	Genesis(ctx context.Context) (json.RawMessage, error)
	// ContractByDenom is minievm's REST contracts/by_denom: the ERC-20 behind a bank denom.
	ContractByDenom(ctx context.Context, denom string) (string, error)
	// BankBalances is REST /cosmos/bank/v1beta1/balances/{addr} at a height.
	BankBalances(ctx context.Context, addr string, height int64) ([]BankCoin, error)
}

// BankCoin is one balance of BankBalances.
type BankCoin struct{ Denom, Amount string }

// evmTransfers turns the ERC-20 Transfer logs of a block's tx events (evm events, attribute
// log, three topics) into balance changes keyed by the lowercase contract address, as the
// peer's EVM rich list does; the zero address (mint, burn) is no holder.
func evmTransfers(height int64, results []TxResult) ([]store.BalanceChange, error) {
	var out []store.BalanceChange
	for _, r := range results {
		for _, ev := range r.Events {
			if ev.Type != "evm" {
				continue
			}
			for _, a := range ev.Attributes {
				if a.Key != "log" {
					continue
				}
				var l struct {
					Address string   `json:"address"`
					Topics  []string `json:"topics"`
					Data    string   `json:"data"`
				}
				if err := json.Unmarshal([]byte(a.Value), &l); err != nil || len(l.Topics) != 3 || !strings.EqualFold(l.Topics[0], transferTopic) {
					continue
				}
				amount, ok := new(big.Int).SetString(strings.TrimPrefix(strings.TrimPrefix(l.Data, "0x"), "0X"), 16)
				if l.Data == "0x" || l.Data == "" {
					amount, ok = new(big.Int), true
				}
				if !ok {
					return nil, fmt.Errorf("height %d: %w: Transfer log of %s with data %.80q", height, ErrInvalidData, l.Address, l.Data)
				}
				denom := strings.ToLower(l.Address)
				for i, sign := range []int{-1, 1} {
					acc, err := topicAddress(l.Topics[1+i])
					if err != nil {
						return nil, fmt.Errorf("height %d: %w: Transfer log of %s: %w", height, ErrInvalidData, denom, err)
					}
					if acc == nil {
						continue
					}
					d := new(big.Int).Set(amount)
					if sign < 0 {
						d.Neg(d)
					}
					out = append(out, store.BalanceChange{Denom: denom, Account: acc, Delta: d})
				}
			}
		}
	}
	return out, nil
}

// topicAddress is the 20-byte address of an indexed address topic; nil for the zero address.
func topicAddress(topic string) ([]byte, error) {
	b, err := hex.DecodeString(strings.TrimPrefix(strings.ToLower(topic), "0x"))
	if err != nil || len(b) != 32 {
		return nil, fmt.Errorf("topic %.80q is not 32 bytes of hex", topic)
	}
	a := b[12:]
	for _, c := range a {
		if c != 0 {
			return a, nil
		}
	}
	return nil, nil
}

// evmGenesisRichList reads the genesis bank balances as the rich list's starting point on an
// EVM chain: each bank denom is resolved to its ERC-20 contract (contracts/by_denom), which
// becomes the stored denom, and the bank denom (lowercased, as requests are) an alias of it.
func evmGenesisRichList(ctx context.Context, src RichListSource, prefix string) (*store.RichListChanges, error) {
	balances, err := genesisBalances(ctx, src, prefix)
	if err != nil {
		return nil, err
	}
	out := &store.RichListChanges{Aliases: map[string]string{}}
	contracts := map[string]string{}
	for _, b := range balances {
		contract, ok := contracts[b.denom]
		if !ok {
			addr, err := src.ContractByDenom(ctx, b.denom)
			if err != nil {
				return nil, fmt.Errorf("contract of genesis denom %q: %w", b.denom, err)
			}
			contract = strings.ToLower(addr)
			contracts[b.denom] = contract
			out.Aliases[strings.ToLower(b.denom)] = contract
		}
		out.Sets = append(out.Sets, store.BalanceSet{Denom: contract, Account: b.account, Amount: b.amount})
	}
	return out, nil
}

// genesisBalance is one coin of one account in the genesis bank balances, denom as written.
type genesisBalance struct {
	account []byte
	denom   string
	amount  *big.Int
}

// genesisBalances reads and checks the genesis bank balances every VM's rich list starts from.
func genesisBalances(ctx context.Context, src RichListSource, prefix string) ([]genesisBalance, error) {
	raw, err := src.Genesis(ctx)
	if err != nil {
		return nil, fmt.Errorf("genesis: %w", err)
	}
	var g struct {
		Bank struct {
			Balances []struct {
				Address string `json:"address"`
				Coins   []struct {
					Denom  string `json:"denom"`
					Amount string `json:"amount"`
				} `json:"coins"`
			} `json:"balances"`
		} `json:"bank"`
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		return nil, fmt.Errorf("genesis app_state: %w", err)
	}
	var out []genesisBalance
	for _, b := range g.Bank.Balances {
		acc, err := address.Parse(prefix, b.Address)
		if err != nil {
			return nil, fmt.Errorf("genesis balance of %q: %w", b.Address, err)
		}
		for _, c := range b.Coins {
			amt, ok := new(big.Int).SetString(c.Amount, 10)
			if !ok || amt.Sign() < 0 {
				return nil, fmt.Errorf("genesis balance of %s: amount %q", b.Address, c.Amount)
			}
			out = append(out, genesisBalance{account: acc, denom: c.Denom, amount: amt})
		}
	}
	return out, nil
}

// balanceOfSelector is the ERC-20 balanceOf(address) selector.
const balanceOfSelector = "70a08231"

// correctBalance reads a holder's balance of an ERC-20 at a height from the chain (eth_call
// balanceOf), the answer to a change that would have taken the stored balance below zero.
func correctBalance(ctx context.Context, evm EVMSource, e *store.NegativeBalanceError) (store.BalanceSet, error) {
	c, ok := evm.(evmClient)
	if !ok {
		return store.BalanceSet{}, errors.New("rich list: no JSON-RPC to read the balance from")
	}
	data := "0x" + balanceOfSelector + strings.Repeat("0", 24) + hex.EncodeToString(e.Account[len(e.Account)-20:])
	out, err := c.c.EthCall(ctx, e.Denom, data, fmt.Sprintf("0x%x", e.Height))
	if err != nil {
		return store.BalanceSet{}, fmt.Errorf("balanceOf at %d: %w", e.Height, err)
	}
	v, ok := new(big.Int).SetString(strings.TrimPrefix(out, "0x"), 16)
	if !ok {
		return store.BalanceSet{}, fmt.Errorf("balanceOf at %d: answer %.80q", e.Height, out)
	}
	return store.BalanceSet{Denom: e.Denom, Account: e.Account, Amount: v}, nil
}

// startRichList decides whether this run keeps the rich list and, on an empty store, reads
// the balances it starts from: genesis at height 1, the chain's state at START_HEIGHT.
func (p *Pipeline) startRichList(ctx context.Context, indexed, next int64) error {
	if !p.cfg.RichList {
		return nil
	}
	if p.cfg.VMType == "move" {
		ms, ok := p.src.(MoveMetadataSource)
		if !ok {
			p.log.Warn("rich list off: the source cannot read fungible asset metadata")
			return nil
		}
		p.moveDenoms = &moveDenoms{src: ms, m: map[string]string{}}
	}
	rs, ok := p.src.(RichListSource)
	if !ok || (p.cfg.VMType == "evm" && p.evm == nil) {
		p.log.Warn("rich list off: the source has no genesis, denom or JSON-RPC access")
		return nil
	}
	if indexed > 0 {
		p.rich = true
		return nil
	}
	if next > 1 {
		// START_HEIGHT: the balances at that height, read from the chain, replace that block's
		// own changes; the blocks after it apply theirs.
		ss, ok := p.src.(StateSource)
		if !ok {
			p.log.Warn("rich list off: the source cannot list accounts for a START_HEIGHT bootstrap", "start_height", next)
			return nil
		}
		p.rich, p.bootHeight = true, next
		return p.retry(ctx, "read balances at the start height", func() error {
			var err error
			p.boot, err = stateRichList(ctx, rs, ss, p.cfg.VMType, p.cfg.AccountPrefix, next)
			return err
		})
	}
	p.rich, p.bootHeight = true, 1
	return p.retry(ctx, "read genesis balances", func() error {
		var err error
		if p.cfg.VMType == "evm" {
			p.boot, err = evmGenesisRichList(ctx, rs, p.cfg.AccountPrefix)
		} else {
			p.boot, err = bankGenesisRichList(ctx, rs, p.cfg.AccountPrefix)
		}
		return err
	})
}

// richListChanges are a height's rich-list updates; the first height also carries the
// starting balances (genesis at height 1, chain state at START_HEIGHT).
func (p *Pipeline) richListChanges(ctx context.Context, h int64, results []TxResult) (*store.RichListChanges, error) {
	var changes []store.BalanceChange
	var err error
	switch p.cfg.VMType {
	case "evm":
		changes, err = evmTransfers(h, results)
	case "move":
		changes, err = p.moveChanges(ctx, h, results)
	default:
		changes, err = p.builder.extractor.bankChanges(h, results)
	}
	if err != nil {
		return nil, err
	}
	rl := &store.RichListChanges{Changes: changes}
	if h == p.bootHeight && p.boot != nil {
		rl.Sets, rl.Aliases = p.boot.Sets, p.boot.Aliases
		if h > 1 {
			rl.Changes = nil // the balances read at h already hold them
		}
	}
	return rl, nil
}

// fixNegativeBalance answers a write refused because a balance would go below zero: it reads
// that balance from the chain at that height, adds it to the height's bundle and reports that
// the write can be retried at once. The correction is logged: it means a balance moved
// without a Transfer log the list could see.
func (p *Pipeline) fixNegativeBalance(ctx context.Context, batch []store.BlockBundle, err error) (bool, error) {
	var neg *store.NegativeBalanceError
	if !p.rich || !errors.As(err, &neg) {
		return false, nil
	}
	for i := range batch {
		b := &batch[i]
		if b.Block.Height != neg.Height || b.RichList == nil {
			continue
		}
		var set store.BalanceSet
		var err error
		if p.cfg.VMType == "evm" {
			set, err = correctBalance(ctx, p.evm, neg)
		} else if rs, ok := p.src.(RichListSource); ok {
			set, err = bankBalanceAt(ctx, rs, p.builder.extractor, neg)
		} else {
			err = errors.New("no REST to read the balance from")
		}
		if err != nil {
			return false, fmt.Errorf("rich list correction: %w", err)
		}
		b.RichList.Sets = append(b.RichList.Sets, set)
		p.log.Warn("rich list: balance corrected from the chain", "height", neg.Height, "denom", neg.Denom,
			"account", hex.EncodeToString(neg.Account), "would_be", neg.Amount.String(), "chain", set.Amount.String())
		return true, nil
	}
	return false, nil
}
