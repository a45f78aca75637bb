package api

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/rollgate/rollgate/internal/chain/evmrpc"
	"github.com/rollgate/rollgate/internal/jsonx"
)

// What the Etherscan answers read from the chain's JSON-RPC: the fields a receipt does not
// carry (a tx's nonce, value, gas limit and input) for rows stored before migration 0014 alone
// (later rows keep them among their explorer keys), token metadata, and native balances when
// the rich list does not keep them. Each is one batch per answer, never a call per row.

// txBody is the part of eth_getBlockByNumber's full tx object the account lists need.
type txBody struct {
	Hash     string `json:"hash"`
	Nonce    string `json:"nonce"`
	Value    string `json:"value"`
	Gas      string `json:"gas"`
	GasPrice string `json:"gasPrice"`
	Input    string `json:"input"`
}

// esRPCBatch bounds one JSON-RPC batch.
const esRPCBatch = 100

func (e *Etherscan) rpc() (*evmrpc.Client, error) {
	if e.RPC == nil {
		return nil, esErr(esNoRPC)
	}
	return e.RPC, nil
}

// txBodies returns the txs of the blocks at heights, by lowercase hash: one
// eth_getBlockByNumber(h, true) batch per esRPCBatch heights. Only the blocks of rows without
// a stored body are asked (see txContext).
func (e *Etherscan) txBodies(ctx context.Context, heights []int64) (map[string]txBody, error) {
	c, err := e.rpc()
	if err != nil {
		return nil, err
	}
	out := map[string]txBody{}
	for start := 0; start < len(heights); start += esRPCBatch {
		hs := heights[start:min(start+esRPCBatch, len(heights))]
		type blk struct {
			Transactions []txBody `json:"transactions"`
		}
		res := make([]json.RawMessage, len(hs))
		reqs := make([]evmrpc.Request, len(hs))
		for i, h := range hs {
			reqs[i] = evmrpc.Request{Method: "eth_getBlockByNumber", Params: []any{evmrpc.BlockTag(h), true}, Result: &res[i]}
		}
		if err := c.Batch(ctx, reqs); err != nil {
			return nil, chainErr(err)
		}
		for i := range reqs {
			if reqs[i].Error != nil {
				return nil, &esChainError{reqs[i].Error}
			}
			var b blk
			if err := jsonx.Unmarshal(res[i], &b); err != nil {
				return nil, &esChainError{err}
			}
			for _, t := range b.Transactions {
				out[strings.ToLower(t.Hash)] = t
			}
		}
	}
	return out, nil
}

// tokenMeta is a token contract's name, symbol and decimals, "" where the contract does not
// answer the call (Etherscan shows them empty then too).
type tokenMeta struct{ name, symbol, decimals string }

// tokenCache keeps token metadata per process: contracts do not rename themselves in practice,
// and a page of transfers names few contracts. Bounded; dropped whole when full.
type tokenCache struct {
	mu sync.Mutex
	m  map[string]tokenMeta
}

const tokenCacheMax = 4096

var tokens = &tokenCache{m: map[string]tokenMeta{}}

// The selectors of name(), symbol() and decimals() (the first four bytes of the Keccak-256 of
// each signature, as ERC-20 and ERC-721 define them).
const (
	selName     = "0x06fdde03"
	selSymbol   = "0x95d89b41"
	selDecimals = "0x313ce567"
)

// tokenMetas returns the metadata of the contracts (lowercase 0x), reading the unknown ones in
// one batch of eth_call at height at (the indexed height: the chain as the answer's records
// stand).
func (e *Etherscan) tokenMetas(ctx context.Context, contracts []string, nft bool, at int64) (map[string]tokenMeta, error) {
	out := map[string]tokenMeta{}
	var missing []string
	tokens.mu.Lock()
	for _, a := range contracts {
		if m, ok := tokens.m[a+nftKey(nft)]; ok {
			out[a] = m
		} else {
			missing = append(missing, a)
		}
	}
	tokens.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	c, err := e.rpc()
	if err != nil {
		return nil, err
	}
	sels := []string{selName, selSymbol, selDecimals}
	if nft {
		sels = sels[:2]
	}
	for start := 0; start < len(missing); start += esRPCBatch / 3 {
		as := missing[start:min(start+esRPCBatch/3, len(missing))]
		res := make([]string, len(as)*len(sels))
		reqs := make([]evmrpc.Request, 0, len(res))
		for i, a := range as {
			for j, sel := range sels {
				reqs = append(reqs, evmrpc.Request{Method: "eth_call", Params: []any{map[string]string{"to": a, "data": sel}, evmrpc.BlockTag(at)}, Result: &res[i*len(sels)+j]})
			}
		}
		if err := c.Batch(ctx, reqs); err != nil {
			return nil, chainErr(err)
		}
		tokens.mu.Lock()
		if len(tokens.m) > tokenCacheMax {
			tokens.m = map[string]tokenMeta{}
		}
		for i, a := range as {
			var m tokenMeta
			for j := range sels {
				k := i*len(sels) + j
				if err := reqs[k].Error; err != nil {
					if ce := chainErr(err); errors.As(ce, new(*esChainError)) {
						tokens.mu.Unlock()
						return nil, ce
					}
					continue // the contract reverted: no such function
				}
				switch j {
				case 0:
					m.name = abiString(res[k])
				case 1:
					m.symbol = abiString(res[k])
				case 2:
					m.decimals = abiUint(res[k])
				}
			}
			if nft {
				m.decimals = "0"
			}
			tokens.m[a+nftKey(nft)] = m
			out[a] = m
		}
		tokens.mu.Unlock()
	}
	return out, nil
}

func nftKey(nft bool) string {
	if nft {
		return "/721"
	}
	return ""
}

// abiString decodes an ABI-encoded string return value, or a bytes32 one (older tokens); ""
// for anything else.
func abiString(h string) string {
	b, err := hex.DecodeString(strings.TrimPrefix(h, "0x"))
	if err != nil {
		return ""
	}
	if len(b) == 32 { // bytes32, NUL-padded
		s := strings.TrimRight(string(b), "\x00")
		if utf8.ValidString(s) {
			return s
		}
		return ""
	}
	if len(b) < 64 {
		return ""
	}
	off := new(big.Int).SetBytes(b[:32])
	if !off.IsInt64() || off.Int64()+32 > int64(len(b)) {
		return ""
	}
	o := off.Int64()
	n := new(big.Int).SetBytes(b[o : o+32])
	if !n.IsInt64() || o+32+n.Int64() > int64(len(b)) {
		return ""
	}
	s := string(b[o+32 : o+32+n.Int64()])
	if !utf8.ValidString(s) {
		return ""
	}
	return s
}

func abiUint(h string) string {
	b, err := hex.DecodeString(strings.TrimPrefix(h, "0x"))
	if err != nil || len(b) != 32 {
		return ""
	}
	return new(big.Int).SetBytes(b).String()
}

// rpcBalances reads native balances with one eth_getBalance batch.
func (e *Etherscan) rpcBalances(ctx context.Context, addrs []string) ([]*big.Int, error) {
	c, err := e.rpc()
	if err != nil {
		return nil, err
	}
	res := make([]string, len(addrs))
	reqs := make([]evmrpc.Request, len(addrs))
	for i, a := range addrs {
		reqs[i] = evmrpc.Request{Method: "eth_getBalance", Params: []any{a, "latest"}, Result: &res[i]}
	}
	if err := c.Batch(ctx, reqs); err != nil {
		return nil, chainErr(err)
	}
	out := make([]*big.Int, len(addrs))
	for i := range reqs {
		if reqs[i].Error != nil {
			return nil, &esChainError{reqs[i].Error}
		}
		n, ok := new(big.Int).SetString(strings.TrimPrefix(res[i], "0x"), 16)
		if !ok {
			if strings.TrimPrefix(res[i], "0x") != "" {
				return nil, &esChainError{errors.New("eth_getBalance: not a quantity: " + clip(res[i]))}
			}
			n = new(big.Int)
		}
		out[i] = n
	}
	return out, nil
}
