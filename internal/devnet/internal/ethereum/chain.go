package ethereum

import (
	"errors"
	"fmt"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// ErrReverted is a pseudo-contract's revert.
var ErrReverted = errors.New("execution reverted")

// Contract is a pseudo-contract: it answers calldata by ABI selector, reading and writing
// its storage through the Exec. A view answers without writing; a revert returns an error
// and the transaction's writes and logs are dropped.
type Contract interface {
	Call(x *Exec, from common.Address, value *big.Int, input []byte) ([]byte, error)
}

// Genesis seeds a contract's storage and balances once, before block 1.
type Genesis interface {
	InitGenesis(x *Exec) error
}

// Config configures the chain.
type Config struct {
	ChainID     uint64 // eth_chainId
	GenesisTime time.Time
	// BaseFee is every block's base fee (wei per gas); wallets read it from
	// eth_gasPrice / eth_feeHistory. Default 1 gwei.
	BaseFee *big.Int
	// Accounts are funded with ETH at genesis.
	Accounts map[common.Address]*big.Int
	// Contracts are placed at genesis at their addresses; those that are a Genesis seed
	// their state, in address order.
	Contracts map[common.Address]Contract
	// Keep is how many past blocks keep their state for reads at their height (default 1024).
	Keep int
}

// Block is one produced block.
type Block struct {
	Header   *types.Header
	Hash     common.Hash
	Txs      []*types.Transaction
	From     []common.Address
	Receipts []*types.Receipt
	state    *State
}

// Coinbase receives the fees (the devnet's one validator).
var Coinbase = common.HexToAddress("0x0000000000000000000000000000000000c0ffee")

// Chain is a running Ethereum chain. Safe for concurrent use.
type Chain struct {
	cfg       Config
	signer    types.Signer
	contracts map[common.Address]Contract

	mu      sync.RWMutex
	blocks  []*Block // blocks[0] is genesis (height 0)
	byHash  map[common.Hash]int64
	txIndex map[common.Hash]txLoc
	state   *State // after the last block
	pending []*types.Transaction
	pfrom   []common.Address
}

type txLoc struct {
	height int64
	index  int
}

// New builds the chain and its genesis block.
func New(cfg Config) (*Chain, error) {
	if cfg.ChainID == 0 {
		return nil, errors.New("ethereum: chain id required")
	}
	if cfg.BaseFee == nil {
		cfg.BaseFee = big.NewInt(1_000_000_000)
	}
	if cfg.Keep <= 0 {
		cfg.Keep = 1024
	}
	if cfg.GenesisTime.IsZero() {
		cfg.GenesisTime = time.Now().UTC().Truncate(time.Second)
	}
	c := &Chain{cfg: cfg, signer: types.LatestSignerForChainID(new(big.Int).SetUint64(cfg.ChainID)),
		contracts: cfg.Contracts, byHash: map[common.Hash]int64{}, txIndex: map[common.Hash]txLoc{}, state: newState()}
	if c.contracts == nil {
		c.contracts = map[common.Address]Contract{}
	}
	for a, v := range cfg.Accounts {
		c.state.addETH(a, v)
	}
	x := &Exec{st: c.state, chain: c, Time: uint64(cfg.GenesisTime.Unix())}
	for _, a := range sortedAddrs(c.contracts) {
		if g, ok := c.contracts[a].(Genesis); ok {
			if err := g.InitGenesis(x); err != nil {
				return nil, fmt.Errorf("ethereum: genesis of %s: %w", a.Hex(), err)
			}
		}
	}
	h := &types.Header{Number: new(big.Int), Time: uint64(cfg.GenesisTime.Unix()), GasLimit: 30_000_000,
		Difficulty: new(big.Int), BaseFee: cfg.BaseFee, Coinbase: Coinbase, UncleHash: types.EmptyUncleHash,
		TxHash: types.EmptyTxsHash, ReceiptHash: types.EmptyReceiptsHash, Root: c.state.root()}
	c.addBlock(&Block{Header: h, Hash: h.Hash(), state: c.state.clone()})
	return c, nil
}

// ChainID is the EIP-155 chain id.
func (c *Chain) ChainID() uint64 { return c.cfg.ChainID }

// BaseFee is the base fee of every block.
func (c *Chain) BaseFee() *big.Int { return new(big.Int).Set(c.cfg.BaseFee) }

// Height is the latest block number.
func (c *Chain) Height() int64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return int64(len(c.blocks) - 1)
}

// Block returns block h (nil when not produced, or when its state is no longer kept and
// state is asked for — blocks themselves are all kept).
func (c *Chain) Block(h int64) *Block {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if h < 0 || h >= int64(len(c.blocks)) {
		return nil
	}
	return c.blocks[h]
}

// BlockByHash returns a block by its hash.
func (c *Chain) BlockByHash(hash common.Hash) *Block {
	c.mu.RLock()
	defer c.mu.RUnlock()
	h, ok := c.byHash[hash]
	if !ok {
		return nil
	}
	return c.blocks[h]
}

// Tx finds a mined transaction: its block and index.
func (c *Chain) Tx(hash common.Hash) (*Block, int, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	l, ok := c.txIndex[hash]
	if !ok {
		return nil, 0, false
	}
	return c.blocks[l.height], l.index, true
}

// PendingTx finds a transaction waiting in the mempool.
func (c *Chain) PendingTx(hash common.Hash) (*types.Transaction, common.Address, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for i, t := range c.pending {
		if t.Hash() == hash {
			return t, c.pfrom[i], true
		}
	}
	return nil, common.Address{}, false
}

// StateAt is the state after block h (false when h is not produced or its state is no
// longer kept).
func (c *Chain) StateAt(h int64) (*State, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if h < 0 || h >= int64(len(c.blocks)) || c.blocks[h].state == nil {
		return nil, false
	}
	return c.blocks[h].state, true
}

// PendingNonce is an account's next nonce counting its transactions in the mempool.
func (c *Chain) PendingNonce(a common.Address) uint64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	n := c.state.Nonce(a)
	for i, f := range c.pfrom {
		if f == a && c.pending[i].Nonce() >= n {
			n = c.pending[i].Nonce() + 1
		}
	}
	return n
}

// Submit checks a signed transaction as a node's txpool does (chain id, signature, nonce,
// funds for gas and value, fee cap over the base fee) and queues it for the next block.
func (c *Chain) Submit(tx *types.Transaction) (common.Address, error) {
	if id := tx.ChainId(); tx.Protected() && id.Uint64() != c.cfg.ChainID {
		return common.Address{}, fmt.Errorf("invalid chain id %s, want %d", id, c.cfg.ChainID)
	}
	if !tx.Protected() && tx.Type() == types.LegacyTxType {
		// Pre-EIP-155 legacy txs replay across chains; nodes refuse them by default.
		return common.Address{}, errors.New("only replay-protected (EIP-155) transactions allowed over RPC")
	}
	switch tx.Type() {
	case types.LegacyTxType, types.AccessListTxType, types.DynamicFeeTxType:
	default:
		return common.Address{}, fmt.Errorf("transaction type %d not supported", tx.Type())
	}
	from, err := types.Sender(c.signer, tx)
	if err != nil {
		return common.Address{}, fmt.Errorf("invalid sender: %w", err)
	}
	if tx.GasFeeCap().Cmp(c.cfg.BaseFee) < 0 {
		return from, fmt.Errorf("max fee per gas less than block base fee: address %s, maxFeePerGas: %s, baseFee: %s", from.Hex(), tx.GasFeeCap(), c.cfg.BaseFee)
	}
	if tx.Gas() < intrinsicGas(tx) {
		return from, fmt.Errorf("intrinsic gas too low: gas %d, minimum needed %d", tx.Gas(), intrinsicGas(tx))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.pending {
		if t.Hash() == tx.Hash() {
			return from, errors.New("already known")
		}
	}
	next := c.state.Nonce(from)
	for i, f := range c.pfrom {
		if f == from && c.pending[i].Nonce() >= next {
			next = c.pending[i].Nonce() + 1
		}
	}
	if tx.Nonce() < c.state.Nonce(from) {
		return from, fmt.Errorf("nonce too low: address %s, tx: %d state: %d", from.Hex(), tx.Nonce(), c.state.Nonce(from))
	}
	if tx.Nonce() != next {
		// The devnet keeps no queue of future nonces: a gap would never fill by itself.
		return from, fmt.Errorf("nonce too high: address %s, tx: %d next: %d", from.Hex(), tx.Nonce(), next)
	}
	cost := new(big.Int).Mul(tx.GasFeeCap(), new(big.Int).SetUint64(tx.Gas()))
	cost.Add(cost, tx.Value())
	if c.state.Balance(from).Cmp(cost) < 0 {
		return from, fmt.Errorf("insufficient funds for gas * price + value: address %s have %s want %s", from.Hex(), c.state.Balance(from), cost)
	}
	c.pending = append(c.pending, tx)
	c.pfrom = append(c.pfrom, from)
	return from, nil
}

// intrinsicGas is the base cost of a transaction: 21000, plus calldata (4 per zero byte,
// 16 per other byte).
func intrinsicGas(tx *types.Transaction) uint64 {
	g := uint64(21000)
	for _, b := range tx.Data() {
		if b == 0 {
			g += 4
		} else {
			g += 16
		}
	}
	return g
}

// callGas is what a contract call costs beyond the intrinsic gas when its contract does not
// count its own: a flat amount, as there is no bytecode to meter.
const callGas = 40_000

// ProduceBlock executes the mempool into a new block at time now.
func (c *Chain) ProduceBlock(now time.Time) *Block {
	c.mu.Lock()
	defer c.mu.Unlock()
	parent := c.blocks[len(c.blocks)-1]
	height := int64(len(c.blocks))
	ts := uint64(now.Unix())
	if ts < parent.Header.Time {
		// Blocks come faster than a second apart: timestamps are seconds, so several blocks
		// may share one (as Anvil's sub-second interval mining gives), never go back.
		ts = parent.Header.Time
	}
	b := &Block{}
	var cum uint64
	for i, tx := range c.pending {
		from := c.pfrom[i]
		if tx.Nonce() != c.state.Nonce(from) {
			continue // a replaced or stale nonce: dropped as a txpool would
		}
		r := c.apply(tx, from, height, ts, len(b.Txs))
		cum += r.GasUsed
		r.CumulativeGasUsed = cum
		b.Txs = append(b.Txs, tx)
		b.From = append(b.From, from)
		b.Receipts = append(b.Receipts, r)
	}
	c.pending, c.pfrom = nil, nil
	h := &types.Header{ParentHash: parent.Hash, Number: big.NewInt(height), Time: ts, GasLimit: 30_000_000, GasUsed: cum,
		Difficulty: new(big.Int), BaseFee: c.cfg.BaseFee, Coinbase: Coinbase, UncleHash: types.EmptyUncleHash, Root: c.state.root(),
		TxHash:      types.DeriveSha(types.Transactions(b.Txs), &listHasher{}),
		ReceiptHash: types.DeriveSha(types.Receipts(b.Receipts), &listHasher{}),
		Bloom:       types.CreateBloom(&types.Receipt{Logs: allLogs(b.Receipts)})}
	b.Header, b.Hash, b.state = h, h.Hash(), c.state.clone()
	for i, r := range b.Receipts {
		r.BlockHash, r.BlockNumber, r.TransactionIndex = b.Hash, big.NewInt(height), uint(i)
		for _, l := range r.Logs {
			l.BlockHash, l.BlockNumber, l.TxHash, l.TxIndex = b.Hash, uint64(height), r.TxHash, uint(i)
		}
	}
	c.addBlock(b)
	return b
}

func allLogs(rs []*types.Receipt) []*types.Log {
	var out []*types.Log
	for _, r := range rs {
		out = append(out, r.Logs...)
	}
	return out
}

// apply runs one transaction on the chain state: the fee is charged and the nonce moves
// whatever happens; the call's writes stay only when it succeeds.
func (c *Chain) apply(tx *types.Transaction, from common.Address, height int64, ts uint64, index int) *types.Receipt {
	price := effectivePrice(tx, c.cfg.BaseFee)
	c.state.nonce[from] = tx.Nonce() + 1
	work := c.state.clone()
	x := &Exec{st: work, chain: c, Height: height, Time: ts, TxHash: tx.Hash(), TxOrigin: from}
	gas := intrinsicGas(tx)
	var err error
	var created common.Address
	switch {
	case tx.To() == nil:
		err = errors.New("contract creation is not supported: the chain runs no bytecode")
	default:
		if _, isContract := c.contracts[*tx.To()]; isContract {
			gas += callGas
		}
		_, err = x.Call(from, *tx.To(), tx.Value(), tx.Data())
	}
	gas += x.gasUsed
	status := types.ReceiptStatusSuccessful
	if gas > tx.Gas() {
		gas, err = tx.Gas(), errors.New("out of gas")
	}
	if err != nil {
		status, x.logs = types.ReceiptStatusFailed, nil
	} else {
		c.state = work
	}
	fee := new(big.Int).Mul(price, new(big.Int).SetUint64(gas))
	c.state.addETH(from, new(big.Int).Neg(fee))
	c.state.addETH(Coinbase, fee)
	for i, l := range x.logs {
		l.Index = uint(i) // block-wide indexes are fixed below in addBlock
	}
	r := &types.Receipt{Type: tx.Type(), Status: status, GasUsed: gas, Logs: x.logs, TxHash: tx.Hash(),
		EffectiveGasPrice: price, ContractAddress: created}
	if r.Logs == nil {
		r.Logs = []*types.Log{}
	}
	r.Bloom = types.CreateBloom(r)
	return r
}

// effectivePrice is what a tx pays per gas: its gas price, or for EIP-1559 min(fee cap,
// base fee + tip).
func effectivePrice(tx *types.Transaction, base *big.Int) *big.Int {
	if tx.Type() == types.DynamicFeeTxType {
		p := new(big.Int).Add(base, tx.GasTipCap())
		if p.Cmp(tx.GasFeeCap()) > 0 {
			p.Set(tx.GasFeeCap())
		}
		return p
	}
	return new(big.Int).Set(tx.GasPrice())
}

func (c *Chain) addBlock(b *Block) {
	h := b.Header.Number.Int64()
	var n uint
	for i, t := range b.Txs {
		c.txIndex[t.Hash()] = txLoc{h, i}
		for _, l := range b.Receipts[i].Logs {
			l.Index = n
			n++
		}
	}
	c.blocks = append(c.blocks, b)
	c.byHash[b.Hash] = h
	if old := len(c.blocks) - 1 - c.cfg.Keep; old > 0 {
		c.blocks[old].state = nil
	}
}

// Simulate runs a call on a copy of the state after block h (eth_call, eth_estimateGas):
// its answer, its gas and its error.
func (c *Chain) Simulate(h int64, from common.Address, to *common.Address, value *big.Int, data []byte) ([]byte, uint64, error) {
	st, ok := c.StateAt(h)
	if !ok {
		return nil, 0, errors.New("header not found")
	}
	b := c.Block(h)
	x := &Exec{st: st.clone(), chain: c, Height: h, Time: b.Header.Time, Simulated: true, TxOrigin: from}
	gas := uint64(21000)
	for _, by := range data {
		if by == 0 {
			gas += 4
		} else {
			gas += 16
		}
	}
	if to == nil {
		return nil, gas, errors.New("contract creation is not supported: the chain runs no bytecode")
	}
	if _, isContract := c.contracts[*to]; isContract {
		gas += callGas
	}
	if value == nil {
		value = new(big.Int)
	}
	ret, err := x.Call(from, *to, value, data)
	return ret, gas + x.gasUsed, err
}

// IsContract reports whether a pseudo-contract lives at a.
func (c *Chain) IsContract(a common.Address) bool {
	_, ok := c.contracts[a]
	return ok
}

// root is a digest of the state standing in for the state root (there is no trie): equal
// states give equal roots.
func (s *State) root() common.Hash {
	var buf []byte
	for _, a := range sortedKeys(s.eth) {
		buf = append(buf, a.Bytes()...)
		buf = append(buf, s.eth[a].Bytes()...)
	}
	for _, a := range sortedKeys(s.nonce) {
		buf = append(buf, a.Bytes()...)
		buf = fmt.Appendf(buf, "%d", s.nonce[a])
	}
	for _, a := range sortedKeys(s.storage) {
		buf = append(buf, a.Bytes()...)
		for _, k := range sortedStrings(s.storage[a]) {
			buf = append(buf, k...)
			buf = append(buf, s.storage[a][k]...)
		}
	}
	return crypto.Keccak256Hash(buf)
}

// listHasher stands in for the Merkle-Patricia trie DeriveSha builds (the trie package would
// pull in a database layer): a keccak over the indexed encodings, so equal lists give equal
// roots and the header hashes stay stable; the empty list keeps Ethereum's empty root.
type listHasher struct{ buf []byte }

func (l *listHasher) Reset() { l.buf = l.buf[:0] }

func (l *listHasher) Update(k, v []byte) error {
	l.buf = append(append(l.buf, k...), v...)
	return nil
}

func (l *listHasher) Hash() common.Hash {
	if len(l.buf) == 0 {
		return types.EmptyRootHash
	}
	return crypto.Keccak256Hash(l.buf)
}
