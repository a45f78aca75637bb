// Package ethereum is the devnet's Ethereum chain: a plain Ethereum-style chain (not a Cosmos
// rollup) with native ETH, accounts and nonces, signed legacy and EIP-1559 transactions
// (verified with go-ethereum's signers), blocks with go-ethereum headers and hashes,
// receipts, logs and an Ethereum JSON-RPC server. Nothing runs EVM bytecode: contracts are
// Go pseudo-contracts (Contract) at fixed addresses — an ERC-20 here, the LayerZero
// endpoint and OFT adapter in bridge/layerzero — that read calldata by ABI selector and emit
// the logs their Solidity originals emit.
package ethereum

import (
	"maps"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// State is the chain's world state: ETH balances, nonces and every pseudo-contract's
// storage. It is small (a devnet's accounts and a few contracts), so a transaction runs on a
// copy that replaces the state only when it succeeds, and each block keeps its own copy for
// reads at that height.
type State struct {
	eth     map[common.Address]*big.Int
	nonce   map[common.Address]uint64
	storage map[common.Address]map[string]string
}

func newState() *State {
	return &State{eth: map[common.Address]*big.Int{}, nonce: map[common.Address]uint64{}, storage: map[common.Address]map[string]string{}}
}

func (s *State) clone() *State {
	c := &State{eth: make(map[common.Address]*big.Int, len(s.eth)), nonce: maps.Clone(s.nonce),
		storage: make(map[common.Address]map[string]string, len(s.storage))}
	for a, v := range s.eth {
		c.eth[a] = new(big.Int).Set(v)
	}
	for a, kv := range s.storage {
		c.storage[a] = maps.Clone(kv)
	}
	return c
}

// Balance is an account's ETH balance in wei.
func (s *State) Balance(a common.Address) *big.Int {
	if v, ok := s.eth[a]; ok {
		return new(big.Int).Set(v)
	}
	return new(big.Int)
}

// Nonce is an account's next nonce.
func (s *State) Nonce(a common.Address) uint64 { return s.nonce[a] }

// Get reads a contract's storage slot ("" when unset).
func (s *State) Get(contract common.Address, key string) string { return s.storage[contract][key] }

// Big reads a storage slot holding a decimal integer (0 when unset).
func (s *State) Big(contract common.Address, key string) *big.Int {
	v, ok := new(big.Int).SetString(s.Get(contract, key), 10)
	if !ok {
		return new(big.Int)
	}
	return v
}

func (s *State) set(contract common.Address, key, val string) {
	kv := s.storage[contract]
	if kv == nil {
		kv = map[string]string{}
		s.storage[contract] = kv
	}
	kv[key] = val
}

func (s *State) addETH(a common.Address, d *big.Int) bool {
	v := s.Balance(a)
	v.Add(v, d)
	if v.Sign() < 0 {
		return false
	}
	s.eth[a] = v
	return true
}

// Exec is one transaction's (or one eth_call's) view of the state: the contracts a
// pseudo-contract calls, storage writes, ETH moves and the logs it emits. A read-only Exec
// (eth_call) works on a copy that is thrown away.
type Exec struct {
	st        *State
	chain     *Chain
	logs      []*types.Log
	Height    int64  // the block the call runs in
	Time      uint64 // its timestamp
	gasUsed   uint64
	TxHash    common.Hash
	TxOrigin  common.Address
	Simulated bool // eth_call / eth_estimateGas: nothing is kept
}

// State is the state the call reads and writes.
func (x *Exec) State() *State { return x.st }

// Set writes a contract's storage slot.
func (x *Exec) Set(contract common.Address, key, val string) { x.st.set(contract, key, val) }

// SetBig writes a storage slot holding a decimal integer.
func (x *Exec) SetBig(contract common.Address, key string, v *big.Int) {
	x.st.set(contract, key, v.String())
}

// TransferETH moves wei between accounts; false when from lacks it.
func (x *Exec) TransferETH(from, to common.Address, v *big.Int) bool {
	if v.Sign() == 0 {
		return true
	}
	if !x.st.addETH(from, new(big.Int).Neg(v)) {
		return false
	}
	x.st.addETH(to, v)
	return true
}

// Emit appends a log of the running transaction.
func (x *Exec) Emit(addr common.Address, topics []common.Hash, data []byte) {
	x.logs = append(x.logs, &types.Log{Address: addr, Topics: topics, Data: data})
}

// UseGas adds gas the call consumes beyond the transaction's base cost.
func (x *Exec) UseGas(g uint64) { x.gasUsed += g }

// Call runs calldata against the contract at to, as from (a contract calling another one).
func (x *Exec) Call(from, to common.Address, value *big.Int, input []byte) ([]byte, error) {
	if value == nil {
		value = new(big.Int)
	}
	if !x.TransferETH(from, to, value) {
		return nil, ErrReverted
	}
	c, ok := x.chain.contracts[to]
	if !ok {
		if len(input) == 0 {
			return nil, nil
		}
		return nil, ErrReverted
	}
	return c.Call(x, from, value, input)
}
