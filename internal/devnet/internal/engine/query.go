package engine

// Queries: reads of committed blocks and of the versioned state at a height.

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"net/http"
	"strconv"

	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// Height is the latest committed height.
func (c *Chain) Height() int64 {
	if v := c.committed.Load(); v != nil {
		return v.height
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.height
}

// committedBlocks is what Block and Height read without the chain's lock. Its blocks slice
// is never written below its length (commit appends past it, pruning makes a new slice) and
// committed blocks are not changed, so readers share it with the producer.
type committedBlocks struct {
	blocks       []*Block
	base, height int64
}

// publish makes the committed blocks readable without the lock; c.mu held for writing.
func (c *Chain) publish() {
	c.committed.Store(&committedBlocks{blocks: c.blocks, base: c.base, height: c.height})
}

// Block returns the committed block at a height. It does not wait for a block being
// produced: it reads the last published commit.
func (c *Chain) Block(h int64) (*Block, error) {
	v := c.committed.Load()
	if v == nil {
		c.mu.RLock()
		v = &committedBlocks{blocks: c.blocks, base: c.base, height: c.height}
		c.mu.RUnlock()
	}
	if h <= 0 {
		h = v.height
	}
	if h > v.height {
		return nil, &FutureHeightError{Requested: h, Current: v.height}
	}
	if h < v.base {
		return nil, &PrunedHeightError{Requested: h, Base: v.base}
	}
	return v.blocks[h-v.base], nil
}

// FutureHeightError is CometBFT's error for heights above the tip.
type FutureHeightError struct{ Requested, Current int64 }

func (e *FutureHeightError) Error() string {
	return fmt.Sprintf("height %d must be less than or equal to the current blockchain height %d", e.Requested, e.Current)
}

// TxByHash finds a committed tx.
func (c *Chain) TxByHash(hash [32]byte) (*Block, int, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	loc, ok := c.txIndex[hash]
	if !ok {
		return nil, 0, false
	}
	return c.blockAt(loc.height), loc.index, true
}

// Query opens a read view at a height (0 = latest).
func (c *Chain) Query(height int64) (sim.Query, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if height <= 0 {
		height = c.height
	}
	if height > c.height {
		return nil, &FutureHeightError{Requested: height, Current: c.height}
	}
	if height < c.base {
		return nil, &PrunedHeightError{Requested: height, Base: c.base}
	}
	return &query{c: c, v: lockedView{c: c, height: height}, height: height}, nil
}

// QueryAt resolves x-cosmos-block-height.
func (c *Chain) QueryAt(r *http.Request) (sim.Query, error) {
	var h int64
	if s := r.Header.Get("x-cosmos-block-height"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("invalid height %q", s)
		}
		h = v
	}
	return c.Query(h)
}

// lockedView reads the store at a height under the read lock (for HTTP handlers).
type lockedView struct {
	c      *Chain
	height int64
}

func (l lockedView) get(key string) ([]byte, bool) {
	l.c.mu.RLock()
	defer l.c.mu.RUnlock()
	return l.c.st.get(key, l.height)
}

func (l lockedView) iterate(prefix string, fn func(string, []byte) bool) {
	type kv struct {
		k string
		v []byte
	}
	var all []kv
	l.c.mu.RLock()
	l.c.st.iterate(prefix, l.height, func(k string, v []byte) bool { all = append(all, kv{k, v}); return true })
	l.c.mu.RUnlock()
	for _, e := range all {
		if !fn(e.k, e.v) {
			return
		}
	}
}

type query struct {
	c      *Chain
	v      view
	height int64
}

func (q *query) ChainID() string       { return q.c.cfg.ChainID }
func (q *query) Height() int64         { return q.height }
func (q *query) AddressPrefix() string { return q.c.cfg.Bech32Prefix }
func (q *query) Store(module string) sim.KVReader {
	return readKV{v: q.v, prefix: module + "/"}
}
func (q *query) Balance(addr []byte, denom string) *big.Int { return balanceIn(q.v, addr, denom) }

// Balances lists an account's non-zero balances sorted by denom.
func Balances(q sim.Query, addr []byte) []Coin {
	var out []Coin
	prefix := "b/" + hex.EncodeToString(addr) + "/"
	q.Store("bank").Iterate(prefix, func(k string, v []byte) bool {
		amt, ok := new(big.Int).SetString(string(v), 10)
		if ok && amt.Sign() > 0 {
			out = append(out, Coin{Denom: k[len(prefix):], Amount: amt})
		}
		return true
	})
	return out
}

// Supply lists the total supply per denom.
func Supply(q sim.Query) []Coin {
	var out []Coin
	q.Store("bank").Iterate("s/", func(k string, v []byte) bool {
		amt, ok := new(big.Int).SetString(string(v), 10)
		if ok && amt.Sign() > 0 {
			out = append(out, Coin{Denom: k[2:], Amount: amt})
		}
		return true
	})
	return out
}

func balanceIn(v view, addr []byte, denom string) *big.Int {
	b, ok := v.get("bank/b/" + hex.EncodeToString(addr) + "/" + denom)
	if !ok {
		return new(big.Int)
	}
	amt, ok := new(big.Int).SetString(string(b), 10)
	if !ok {
		return new(big.Int)
	}
	return amt
}

type account struct {
	Number     uint64 `json:"number"`
	Sequence   uint64 `json:"sequence"`
	PubKeyType string `json:"pub_key_type,omitempty"`
	PubKey     []byte `json:"pub_key,omitempty"`
	Module     string `json:"module,omitempty"`
}

// Account is the auth state of an address.
type Account struct {
	Address      []byte
	Number       uint64
	Sequence     uint64
	PubKeyType   string
	PubKey       []byte
	ModuleName   string
	ContractCode bool
}

func getAccount(v view, addr []byte) (account, bool) {
	b, ok := v.get("auth/a/" + hex.EncodeToString(addr))
	if !ok {
		return account{}, false
	}
	var a account
	if err := jsonUnmarshal(b, &a); err != nil {
		return account{}, false
	}
	return a, true
}

// AccountAt reads an account from a query view.
func AccountAt(q sim.Query, addr []byte) (Account, bool) {
	b, ok := q.Store("auth").Get("a/" + hex.EncodeToString(addr))
	if !ok {
		return Account{}, false
	}
	var a account
	if err := jsonUnmarshal(b, &a); err != nil {
		return Account{}, false
	}
	return Account{Address: addr, Number: a.Number, Sequence: a.Sequence, PubKeyType: a.PubKeyType, PubKey: a.PubKey, ModuleName: a.Module}, true
}

// AllAccounts lists accounts sorted by address bytes.
func AllAccounts(q sim.Query) []Account {
	var out []Account
	q.Store("auth").Iterate("a/", func(k string, v []byte) bool {
		addr, err := hex.DecodeString(k[2:])
		if err != nil {
			return true
		}
		var a account
		if jsonUnmarshal(v, &a) == nil {
			out = append(out, Account{Address: addr, Number: a.Number, Sequence: a.Sequence, PubKeyType: a.PubKeyType, PubKey: a.PubKey, ModuleName: a.Module})
		}
		return true
	})
	return out
}

// AccountState returns the account number and sequence of an address (latest state).
func (c *Chain) AccountState(addr []byte) (number, sequence uint64, ok bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	a, ok := getAccount(heightView{c.st, c.height}, addr)
	return a.Number, a.Sequence, ok
}
