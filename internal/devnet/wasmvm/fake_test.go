package wasmvm

import (
	"fmt"
	"google.golang.org/protobuf/proto"
	"maps"
	"math/big"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/devnet/sim"
)

// memKV is a sorted-on-iterate in-memory KV.
type memKV map[string][]byte

func (m memKV) Get(k string) ([]byte, bool) { v, ok := m[k]; return v, ok }
func (m memKV) Set(k string, v []byte)      { m[k] = append([]byte(nil), v...) }
func (m memKV) Delete(k string)             { delete(m, k) }
func (m memKV) Iterate(prefix string, fn func(string, []byte) bool) {
	keys := slices.Sorted(maps.Keys(m))
	for _, k := range keys {
		if strings.HasPrefix(k, prefix) && !fn(k, m[k]) {
			return
		}
	}
}

type balKey struct {
	addr  string
	denom string
}

// fakeChain is a minimal engine: balances, one module store, events, snapshots per height.
type fakeChain struct {
	height   int64
	kv       memKV
	bal      map[balKey]*big.Int
	events   []sim.Event
	txHash   []byte
	flavor   sim.BankFlavor
	gas      uint64
	history  map[int64]memKV
	balHist  map[int64]map[balKey]*big.Int
	useQuiet bool
	now      time.Time
	response proto.Message
}

func (f *fakeChain) SetMsgResponse(m proto.Message) { f.response = m }

func newFakeChain() *fakeChain {
	return &fakeChain{height: 1, kv: memKV{}, bal: map[balKey]*big.Int{}, history: map[int64]memKV{}, balHist: map[int64]map[balKey]*big.Int{}, useQuiet: true}
}

func (f *fakeChain) ChainID() string       { return "local-wasm-1" }
func (f *fakeChain) Height() int64         { return f.height }
func (f *fakeChain) Time() time.Time       { return f.now }
func (f *fakeChain) TxHash() []byte        { return f.txHash }
func (f *fakeChain) AddressPrefix() string { return "init" }
func (f *fakeChain) Emit(ev sim.Event)     { f.events = append(f.events, ev) }
func (f *fakeChain) Store(string) sim.KV   { return f.kv }
func (f *fakeChain) ConsumeGas(g uint64)   { f.gas += g }
func (f *fakeChain) Balance(a []byte, d string) *big.Int {
	if v, ok := f.bal[balKey{string(a), d}]; ok {
		return new(big.Int).Set(v)
	}
	return new(big.Int)
}

func (f *fakeChain) add(a []byte, c sim.Coin, sign int) error {
	k := balKey{string(a), c.Denom}
	v := f.Balance(a, c.Denom)
	if sign < 0 {
		if v.Cmp(c.Amount) < 0 {
			return &sim.CodedError{Codespace: "sdk", Code: 5, Log: "insufficient funds"}
		}
		v.Sub(v, c.Amount)
	} else {
		v.Add(v, c.Amount)
	}
	f.bal[k] = v
	return nil
}

func (f *fakeChain) SendQuiet(from, to []byte, coins []sim.Coin) error {
	for _, c := range coins {
		if err := f.add(from, c, -1); err != nil {
			return err
		}
		_ = f.add(to, c, 1)
	}
	return nil
}
func (f *fakeChain) MintQuiet(to []byte, coins []sim.Coin) error {
	for _, c := range coins {
		_ = f.add(to, c, 1)
	}
	return nil
}
func (f *fakeChain) BurnQuiet(from []byte, coins []sim.Coin) error {
	for _, c := range coins {
		if err := f.add(from, c, -1); err != nil {
			return err
		}
	}
	return nil
}
func (f *fakeChain) Send(from, to []byte, coins []sim.Coin) error {
	if f.flavor != nil {
		for _, e := range f.flavor.SendEvents("init", from, to, coins) {
			f.Emit(e)
		}
	}
	return f.SendQuiet(from, to, coins)
}
func (f *fakeChain) Mint(to []byte, coins []sim.Coin) error { return f.MintQuiet(to, coins) }
func (f *fakeChain) Burn(from []byte, coins []sim.Coin) error {
	return f.BurnQuiet(from, coins)
}

// commit snapshots the state as of the current height and moves to the next one.
func (f *fakeChain) commit() {
	f.history[f.height] = maps.Clone(f.kv)
	b := map[balKey]*big.Int{}
	for k, v := range f.bal {
		b[k] = new(big.Int).Set(v)
	}
	f.balHist[f.height] = b
	f.height++
}

type fakeQuery struct {
	h   int64
	kv  memKV
	bal map[balKey]*big.Int
}

func (q fakeQuery) ChainID() string           { return "local-wasm-1" }
func (q fakeQuery) Height() int64             { return q.h }
func (q fakeQuery) AddressPrefix() string     { return "init" }
func (q fakeQuery) Store(string) sim.KVReader { return q.kv }
func (q fakeQuery) Balance(a []byte, d string) *big.Int {
	if v, ok := q.bal[balKey{string(a), d}]; ok {
		return new(big.Int).Set(v)
	}
	return new(big.Int)
}

// queryAt resolves x-cosmos-block-height against the committed snapshots (0 or absent = latest).
func (f *fakeChain) queryAt(r *http.Request) (sim.Query, error) {
	latest := f.height - 1
	h := latest
	if r == nil {
		return fakeQuery{h: latest, kv: f.history[latest], bal: f.balHist[latest]}, nil
	}
	if s := r.Header.Get("x-cosmos-block-height"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("bad height %q", s)
		}
		if v > latest {
			return nil, &sim.CodedError{Codespace: "sdk", Code: 26, Log: "invalid height: cannot query with height in the future; please provide a valid height"}
		}
		if v > 0 {
			h = v
		}
	}
	hs := slices.Sorted(maps.Keys(f.history))
	i := sort.Search(len(hs), func(i int) bool { return hs[i] > h }) - 1
	if i < 0 {
		return fakeQuery{h: h, kv: memKV{}}, nil
	}
	return fakeQuery{h: h, kv: f.history[hs[i]], bal: f.balHist[hs[i]]}, nil
}
