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
	"github.com/rollgate/rollgate/internal/jsonx"
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
// log, three topics) into balance changes keyed by the lowercase contract address, as
// rollytics' EVM rich list does; the zero address (mint, burn) is no holder.
func evmTransfers(height int64, results []TxResult) ([]store.BalanceChange, error) {
	var out []store.BalanceChange
	for _, r := range results {
		for _, ev := range r.Events {
			if ev.Type != eventEVM {
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
				if err := jsonx.Unmarshal([]byte(a.Value), &l); err != nil || len(l.Topics) != 3 || !strings.EqualFold(l.Topics[0], transferTopic) {
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
	if err := jsonx.Unmarshal(raw, &g); err != nil {
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

// RichList is the rich-list extension of a chain of this kind: each block's balance changes
// (ERC-20 Transfer logs on EVM, fungible-asset events on Move, bank events elsewhere) go into
// the block's own transaction, from the balances it starts with (genesis at height 1, the
// chain's state at START_HEIGHT); its follower (richfollow.go) brings it up whenever it falls
// behind, and it answers a write refused for a negative balance from the chain.
func RichList(vm RichListVM) Extension { return &richList{vm: vm} }

// RichListVM is one VM kind's part of the rich list: what it needs of the source, how a
// block's balance changes are read, how the starting balances are named and how a balance a
// write refused is read again. One implementation per kind (BankRichList, MoveRichList,
// EVMRichList), chosen by the VM profile.
type RichListVM interface {
	needs() string
	// bind keeps what the VM's reading needs of the pipeline's source; false when the source
	// lacks it.
	bind(p *Pipeline) bool
	// changes are a height's balance changes, in event order.
	changes(ctx context.Context, r *richList, h int64, results []TxResult) ([]store.BalanceChange, error)
	// genesis reads the starting balances at height 1.
	genesis(ctx context.Context, src RichListSource, prefix string) (*store.RichListChanges, error)
	// erc20s says balances are kept per ERC-20 contract: bank denoms are resolved to their
	// contracts (and aliased), and only 20-byte accounts hold them.
	erc20s() bool
	// correct reads from the chain the balance a refused change names.
	correct(ctx context.Context, r *richList, neg *store.NegativeBalanceError) (store.BalanceSet, error)
	// reset forgets what was learnt of the old chain (a re-index).
	reset()
}

// BankRichList keeps the list from bank events, genesis and bank balances (Wasm chains).
func BankRichList() RichListVM { return bankRichList{} }

// MoveRichList keeps the list from fungible-asset events, with each metadata object's denom
// read from the chain (richlist_move.go).
func MoveRichList() RichListVM { return &moveRichList{} }

// EVMRichList keeps the list from ERC-20 Transfer logs, per contract, and corrects balances
// with eth_call balanceOf.
func EVMRichList() RichListVM { return &evmRichList{} }

type bankRichList struct{}

func (bankRichList) needs() string {
	return "a source with genesis and bank balances, and a store that keeps the rich list"
}
func (bankRichList) bind(*Pipeline) bool { return true }
func (bankRichList) changes(_ context.Context, r *richList, h int64, results []TxResult) ([]store.BalanceChange, error) {
	return r.p.builder.extractor.bankChanges(h, results)
}
func (bankRichList) genesis(ctx context.Context, src RichListSource, prefix string) (*store.RichListChanges, error) {
	return bankGenesisRichList(ctx, src, prefix)
}
func (bankRichList) erc20s() bool { return false }
func (bankRichList) correct(ctx context.Context, r *richList, neg *store.NegativeBalanceError) (store.BalanceSet, error) {
	return bankBalanceAt(ctx, r.src, r.p.builder.extractor, neg)
}
func (bankRichList) reset() {}

type moveRichList struct {
	bankRichList
	denoms *moveDenoms // metadata address → denom
}

func (*moveRichList) needs() string {
	return "a source with genesis, bank balances and fungible asset metadata, and a store that keeps the rich list"
}
func (m *moveRichList) bind(p *Pipeline) bool {
	ms, ok := p.src.(MoveMetadataSource)
	if ok {
		m.denoms = &moveDenoms{src: ms, m: map[string]string{}}
	}
	return ok
}
func (m *moveRichList) changes(ctx context.Context, r *richList, h int64, results []TxResult) ([]store.BalanceChange, error) {
	return r.moveChanges(ctx, m.denoms, h, results)
}
func (m *moveRichList) reset() {
	if m.denoms != nil {
		m.denoms.mu.Lock()
		m.denoms.m = map[string]string{}
		m.denoms.mu.Unlock()
	}
}

type evmRichList struct {
	evm EVMSource // balances are corrected with eth_call
}

func (*evmRichList) needs() string {
	return "a source with genesis, bank balances, contracts by denom and JSON-RPC (EVM()), and a store that keeps the rich list"
}
func (e *evmRichList) bind(p *Pipeline) bool {
	e.evm = evmOf(p.src)
	return e.evm != nil
}
func (*evmRichList) changes(_ context.Context, _ *richList, h int64, results []TxResult) ([]store.BalanceChange, error) {
	return evmTransfers(h, results)
}
func (*evmRichList) genesis(ctx context.Context, src RichListSource, prefix string) (*store.RichListChanges, error) {
	return evmGenesisRichList(ctx, src, prefix)
}
func (*evmRichList) erc20s() bool { return true }
func (e *evmRichList) correct(ctx context.Context, _ *richList, neg *store.NegativeBalanceError) (store.BalanceSet, error) {
	return correctBalance(ctx, e.evm, neg)
}
func (*evmRichList) reset() {}

// richList is the rich list's state: the follower's view, the start-up read and the VM's
// reading.
type richList struct {
	vm         RichListVM
	p          *Pipeline
	src        RichListSource
	w          RichListStore
	st         richState              // the follower's view, for Ready and the logs (richfollow.go)
	bootDone   chan struct{}          // closed once the start-up read of the starting balances ended
	boot       *store.RichListChanges // starting balances (set before bootDone closes), added to bootHeight's bundle
	bootHeight int64                  // 0 once the committer has handled it
	size       writeSize              // the follower's heights per WriteRichList under repeated faults
}

func (r *richList) Name() string { return "rich-list" }

func (r *richList) Needs() string { return r.vm.needs() }

func (r *richList) bind(p *Pipeline) error {
	r.p = p
	var ok bool
	if r.src, ok = p.src.(RichListSource); !ok {
		return errMissing(r)
	}
	if r.w, ok = p.w.(RichListStore); !ok {
		return errMissing(r)
	}
	if !r.vm.bind(p) {
		return errMissing(r)
	}
	return nil
}

// start, on an empty store, starts reading the balances the list starts from (genesis at
// height 1, the chain's state at START_HEIGHT) in the background: core ingestion does not wait
// for them beyond Config.ExtensionWait (beforeWrite); when they cannot be had by then, the
// follower starts the list later (richfollow.go).
func (r *richList) start(ctx context.Context, indexed, next int64) error {
	done := make(chan struct{})
	r.bootDone = done
	if indexed > 0 {
		close(done) // a store that holds blocks has its rich list started, or the follower starts it
		return nil
	}
	r.bootHeight = next
	bctx, cancel := context.WithTimeout(ctx, r.p.cfg.ExtensionWait)
	go func() {
		defer close(done)
		defer cancel()
		boot, err := r.readStart(bctx, r.src, next)
		if err != nil {
			r.p.log.Info("rich list: starting balances not read at start-up; ingesting without them, the rich list follows",
				"height", next, "err", err)
			return
		}
		r.boot = boot
	}()
	return nil
}

// extract reads a height's changes. A block whose changes cannot be read goes in without
// them: the store then leaves the rich list behind and its follower retries that height.
func (r *richList) extract(ctx context.Context, _ *RawBlock, results []TxResult, b *store.BlockBundle) error {
	h := b.Block.Height
	rl, err := r.richListChanges(ctx, h, results)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.richBehind(fmt.Errorf("height %d: %w", h, err), h)
		return nil
	}
	b.Extensions = append(b.Extensions, rl)
	return nil
}

func (r *richList) beforeWrite(ctx context.Context, batch []store.BlockBundle) {
	r.attachBoot(ctx, batch)
}

// repair corrects from the chain a balance a change would take below zero; when that balance
// cannot be read now, the batch goes in without its rich-list changes and the follower brings
// the list up later. Either way the write is retried at once.
func (r *richList) repair(ctx context.Context, batch []store.BlockBundle, err error) bool {
	fixed, ferr := r.fixNegativeBalance(ctx, batch, err)
	if fixed {
		return true
	}
	if ferr == nil {
		return false
	}
	r.richBehind(ferr, batch[0].Block.Height)
	for i := range batch {
		store.DropRows[*store.RichListChanges](&batch[i])
	}
	return true
}

// follow: at StopAtHeight Run waits for the follower to get there too.
func (r *richList) follow() (func(context.Context) error, bool) {
	return func(ctx context.Context) error { r.followRichList(ctx); return nil }, true
}

func (r *richList) ready(indexed int64) error { return r.richReady(indexed) }

// readStart reads the balances a rich list starting at height h starts from: genesis at
// height 1, the chain's state at h otherwise.
func (r *richList) readStart(ctx context.Context, rs RichListSource, h int64) (*store.RichListChanges, error) {
	if h > 1 {
		ss, ok := r.p.src.(StateSource)
		if !ok {
			return nil, fmt.Errorf("the source cannot list accounts to read the balances at %d", h)
		}
		return stateRichList(ctx, rs, ss, r.vm.erc20s(), r.p.cfg.AccountPrefix, h)
	}
	return r.vm.genesis(ctx, rs, r.p.cfg.AccountPrefix)
}

// attachBoot gives the bundle of the start height its starting balances, once: it waits for
// the start-up read (bounded by Config.ExtensionWait) only when that bundle is about to be
// written. Without them the bundle's changes, and those after it, are left out by the store
// (RichListChanges.Ordered) until the follower starts the list. Only the committer calls it.
func (r *richList) attachBoot(ctx context.Context, bundles []store.BlockBundle) {
	if r.bootHeight == 0 {
		return
	}
	for i := range bundles {
		b := &bundles[i]
		if b.Block.Height != r.bootHeight {
			continue
		}
		select {
		case <-r.bootDone:
		case <-ctx.Done():
			return
		}
		r.bootHeight = 0
		if rl, ok := store.RowsOf[*store.RichListChanges](b); ok && r.boot != nil {
			withStart(rl, r.boot, b.Block.Height)
		}
		return
	}
}

// withStart adds starting balances to a height's changes: at height 1 the genesis balances
// are set after the block's own changes; above it the balances read at that height already
// hold the block's changes, which are dropped.
func withStart(rl, boot *store.RichListChanges, h int64) {
	rl.Sets, rl.Aliases, rl.Start = boot.Sets, boot.Aliases, true
	if h > 1 {
		rl.Changes = nil
	}
}

// richListChanges are a height's rich-list updates, to be applied in height order.
func (r *richList) richListChanges(ctx context.Context, h int64, results []TxResult) (*store.RichListChanges, error) {
	changes, err := r.vm.changes(ctx, r, h, results)
	if err != nil {
		return nil, err
	}
	return &store.RichListChanges{Changes: changes, Ordered: true}, nil
}

// fixNegativeBalance answers a write refused because a balance would go below zero: it reads
// that balance from the chain at that height, adds it to the height's bundle and reports that
// the write can be retried at once. The correction is logged: it means a balance moved
// without a Transfer log the list could see.
func (r *richList) fixNegativeBalance(ctx context.Context, batch []store.BlockBundle, err error) (bool, error) {
	var neg *store.NegativeBalanceError
	if !errors.As(err, &neg) {
		return false, nil
	}
	for i := range batch {
		b := &batch[i]
		rl, ok := store.RowsOf[*store.RichListChanges](b)
		if b.Block.Height != neg.Height || !ok {
			continue
		}
		set, err := r.correctBalance(ctx, neg)
		if err != nil {
			return false, fmt.Errorf("rich list correction: %w", err)
		}
		rl.Sets = append(rl.Sets, set)
		return true, nil
	}
	return false, nil
}

// correctBalance reads from the chain the balance a refused change names, and logs it.
func (r *richList) correctBalance(ctx context.Context, neg *store.NegativeBalanceError) (store.BalanceSet, error) {
	set, err := r.vm.correct(ctx, r, neg)
	if err != nil {
		return set, err
	}
	r.p.log.Warn("rich list: balance corrected from the chain", "height", neg.Height, "denom", neg.Denom,
		"account", hex.EncodeToString(neg.Account), "would_be", neg.Amount.String(), "chain", set.Amount.String())
	return set, nil
}

// reset forgets the old chain's rich-list state (a re-index): the follower's view, the denoms
// learnt from Move metadata, the write size; start boots the list again.
func (r *richList) reset() {
	r.st.mu.Lock()
	r.st.height, r.st.err, r.st.logged, r.st.at = 0, nil, false, 0
	r.st.mu.Unlock()
	r.vm.reset()
	r.boot, r.bootHeight, r.size = nil, 0, writeSize{}
}
