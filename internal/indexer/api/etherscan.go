package api

import (
	"context"
	"encoding/hex"
	"errors"
	"math/big"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/rollgate/rollgate/internal/chain/evmrpc"
	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/store"
)

// Etherscan is the Etherscan-compatible API of an EVM chain (GET /api?module=…&action=…), the
// API side of the evm-txs extension: EVM tooling (Initia's SDK fetching ABIs, wallets, Foundry
// and Hardhat plugins, ethers' EtherscanProvider) reads an explorer through it. Field names,
// envelope and error strings follow Etherscan's API documentation (docs/indexer-api.md cites
// each page); every answer is HTTP 200 with the envelope, as at Etherscan.
type Etherscan struct {
	// Range reads the EVM tables by block range and block heights by time.
	Range store.EVMRangeReader
	// RPC is the chain's Ethereum JSON-RPC: the tx bodies (nonce, value, gas, input) of rows
	// stored before migration 0014 (the later ones keep them; see txContext), token metadata
	// (name, symbol, decimals) and balances when the rich list does not keep the native coin.
	// Nil: the actions that need it answer an error envelope saying so.
	RPC *evmrpc.Client
	// ABIs are the contract ABIs the operator supplied, by lowercase 0x address (getabi,
	// getsourcecode, functionName); see LoadABIs.
	ABIs map[string]ContractABI
	// NativeDenom is the rich-list denom (or alias) of the coin eth_getBalance reports, e.g.
	// the fee denom; with the rich list kept, balance reads it there. "": from the JSON-RPC.
	NativeDenom string
}

// The envelope's strings. Those marked (docs) are Etherscan's wording from its API
// documentation (the common error messages page, the endpoint pages); (answers) are Etherscan's
// answers as its clients report them; the others are rollgate's, for conditions Etherscan's
// documentation does not name, in the same "Error! …" form. docs/indexer-api.md lists the
// sources.
const (
	esMsgOK          = "OK"
	esMsgNOTOK       = "NOTOK"
	esNoTxs          = "No transactions found"                                                                // (docs)
	esNoRecords      = "No records found"                                                                     // (docs)
	esBadModule      = "Error! Missing Or invalid Module name"                                                // (answers)
	esBadAction      = "Error! Missing Or invalid Action name"                                                // (docs)
	esBadAddress     = "Error! Invalid address format"                                                        // (docs)
	esNotVerified    = "Contract source code not verified"                                                    // (docs)
	esWindow         = "Result window is too large, PageNo x Offset size must be less than or equal to 10000" // (answers)
	esTimeout        = "Query Timeout occured. Please select a smaller result dataset"                        // (docs)
	esNoClosest      = "Error! No closest block found"                                                        // (answers)
	esBadTxHash      = "Error! Invalid transaction hash"
	esBadBlock       = "Error! Invalid block number"
	esBadPage        = "Error! Invalid page or offset"
	esBadSort        = "Error! Invalid sort order, use asc or desc"
	esBadTag         = "Error! Invalid tag, only latest is supported"
	esBadTimestamp   = "Error! Invalid timestamp"
	esBadClosest     = "Error! Invalid closest, use before or after"
	esBadTopic       = "Error! Invalid topic"
	esBadOperator    = "Error! Invalid topic operator, use and or or"
	esNeedAddrTopic  = "Error! Missing address or topic"
	esTooMany        = "Error! Too many addresses, at most 20"
	esNoBlock        = "Error! Block not found"
	esNoRPC          = "Error! This rollgate has no JSON-RPC endpoint for this action (--json-rpc-url)"
	esChainFailed    = "Error! The chain's JSON-RPC did not answer, try again"
	esWindowMax      = 10000 // page × offset, as at Etherscan
	esLogsMax        = 1000  // getLogs records per call, as at Etherscan
	esBalanceMultiAt = 20    // balancemulti addresses, as at Etherscan
	// esScanMax bounds the stored rows one request reads to find its page (txs whose logs or
	// frames are expanded and filtered); past it the answer is Etherscan's query timeout.
	esScanMax = 50000
)

// esEnvelope is Etherscan's answer: status "1" and message "OK" with a result, or status "0"
// with a message and, for errors, the cause in result.
type esEnvelope struct {
	Status  string `json:"status"`
	Message string `json:"message"`
	Result  any    `json:"result"`
}

func esOK(result any) esEnvelope { return esEnvelope{Status: "1", Message: esMsgOK, Result: result} }

func esFail(cause string) esEnvelope {
	return esEnvelope{Status: "0", Message: esMsgNOTOK, Result: cause}
}

// esList is a list answer: OK with items, or Etherscan's status "0" with an empty list and
// the "nothing found" message of the action.
func esList[T any](items []T, none string) esEnvelope {
	if len(items) == 0 {
		return esEnvelope{Status: "0", Message: none, Result: []T{}}
	}
	return esOK(items)
}

// esError carries an envelope up from a helper; any other error is the store's or the chain's.
type esError struct{ env esEnvelope }

func (e *esError) Error() string { return e.env.Result.(string) }

func esErr(cause string) error { return &esError{esFail(cause)} }

type esAction func(ctx context.Context, q url.Values) (esEnvelope, error)

// etherscanRoutes is GET /api on a chain whose profile hands the API an Etherscan part.
func (s *server) etherscanRoutes() []httpapi.Route {
	if s.cfg.Features.Etherscan == nil {
		return nil
	}
	return []httpapi.Route{{Pattern: "GET /api", Handler: s.etherscan, InSpec: true}}
}

func (s *server) esActions() map[string]esAction {
	return map[string]esAction{
		"account.balance":                s.esBalance,
		"account.balancemulti":           s.esBalanceMulti,
		"account.txlist":                 s.esTxList,
		"account.txlistinternal":         s.esTxListInternal,
		"account.tokentx":                func(ctx context.Context, q url.Values) (esEnvelope, error) { return s.esTokenTx(ctx, q, false) },
		"account.tokennfttx":             func(ctx context.Context, q url.Values) (esEnvelope, error) { return s.esTokenTx(ctx, q, true) },
		"transaction.getstatus":          s.esGetStatus,
		"transaction.gettxreceiptstatus": s.esReceiptStatus,
		"block.getblocknobytime":         s.esBlockByTime,
		"block.getblockreward":           s.esBlockReward,
		"logs.getlogs":                   s.esGetLogs,
		"contract.getabi":                s.esGetABI,
		"contract.getsourcecode":         s.esGetSourceCode,
	}
}

var esModules = map[string]bool{"account": true, "transaction": true, "block": true, "logs": true, "contract": true}

// etherscan: GET /api. Module and action names are matched case-insensitively (getLogs is
// documented in camel case, the others in lower case); unknown parameters (apikey, chainid)
// are ignored.
func (s *server) etherscan(r *http.Request) (any, error) {
	q := query(r.URL.RawQuery)
	module := strings.ToLower(q.Get("module"))
	if !esModules[module] {
		return esFail(esBadModule), nil
	}
	act, ok := s.esActions()[module+"."+strings.ToLower(q.Get("action"))]
	if !ok {
		return esFail(esBadAction), nil
	}
	env, err := act(r.Context(), q)
	var ee *esError
	if errors.As(err, &ee) {
		return ee.env, nil
	}
	var ce *esChainError
	if errors.As(err, &ce) {
		return esFail(esChainFailed), nil
	}
	if err != nil {
		return nil, err // the store's: httpapi's 503/504 mapping
	}
	return env, nil
}

// esChainError is a JSON-RPC call that got no answer (the node away, a timeout): the client
// may retry. A call the node answered with an error (a revert) is not one.
type esChainError struct{ err error }

func (e *esChainError) Error() string { return "etherscan: chain: " + e.err.Error() }
func (e *esChainError) Unwrap() error { return e.err }

// chainErr classifies a JSON-RPC failure: answered errors (reverts, unknown methods) stay as
// they are for the caller to judge, the others become esChainError.
func chainErr(err error) error {
	var re *evmrpc.RPCError
	if err == nil || errors.As(err, &re) || errors.Is(err, evmrpc.ErrNotFound) {
		return err
	}
	return &esChainError{err}
}

// esAddress parses an Etherscan address parameter: 0x and 40 hex digits, any case.
func esAddress(s string) ([]byte, error) {
	if len(s) != 42 || (s[:2] != "0x" && s[:2] != "0X") {
		return nil, esErr(esBadAddress)
	}
	b, err := hex.DecodeString(s[2:])
	if err != nil {
		return nil, esErr(esBadAddress)
	}
	return b, nil
}

func esHash(s string) ([]byte, error) {
	h := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	b, err := hex.DecodeString(h)
	if err != nil || len(b) != 32 {
		return nil, esErr(esBadTxHash)
	}
	return b, nil
}

// esBlockParam parses a block number parameter: a non-negative decimal integer, or "latest"
// (-1). Empty gives def.
func esBlockParam(s string, def int64) (int64, error) {
	switch s {
	case "":
		return def, nil
	case "latest":
		return -1, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, esErr(esBadBlock)
	}
	return n, nil
}

// esPage is Etherscan's paging: page from 1, offset records per page, page × offset at most
// 10,000; offset 0 or absent is the most the action returns in one call.
type esPage struct {
	page, offset int
	desc         bool
}

func (p esPage) skip() int { return (p.page - 1) * p.offset }

func esPaging(q url.Values, max int) (esPage, error) {
	p := esPage{page: 1, offset: max}
	if v := q.Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return p, esErr(esBadPage)
		}
		p.page = max1(n)
	}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return p, esErr(esBadPage)
		}
		if n > 0 {
			p.offset = min(n, max)
		}
	}
	if int64(p.page)*int64(p.offset) > esWindowMax {
		return p, esErr(esWindow)
	}
	switch strings.ToLower(q.Get("sort")) {
	case "", "asc":
	case "desc":
		p.desc = true
	default:
		return p, esErr(esBadSort)
	}
	return p, nil
}

func max1(n int) int {
	if n < 1 {
		return 1
	}
	return n
}

// esRange is the startblock/endblock (or fromBlock/toBlock) pair as a store range; "latest"
// and absent ends are open.
func esRange(q url.Values, from, to string) (store.EVMRange, error) {
	lo, err := esBlockParam(q.Get(from), 0)
	if err != nil {
		return store.EVMRange{}, err
	}
	hi, err := esBlockParam(q.Get(to), -1)
	if err != nil {
		return store.EVMRange{}, err
	}
	r := store.EVMRange{FromHeight: max(lo, 0)}
	if hi >= 0 {
		r.ToHeight = hi
		if hi < lo || hi == 0 {
			r.ToHeight, r.FromHeight = -1, 1 // an empty range: no height is both ≥ lo and ≤ hi
		}
	}
	return r, nil
}

// collect walks the rows of rng in the page's order, chunk by chunk, expanding each row into
// items (0 or more) and keeping those of the requested page: skip() items are passed over,
// offset items kept. The walk ends at the page's last item, the range's end, or esScanMax rows
// (then Etherscan's query timeout).
func collect[T any](ctx context.Context, read func(context.Context, store.EVMRange) ([]store.TxRecord, error), rng store.EVMRange, p esPage, expand func(store.TxRecord) ([]T, error)) ([]T, error) {
	if rng.ToHeight < 0 {
		return nil, nil
	}
	rng.Desc = p.desc
	skip, want := p.skip(), p.offset
	var out []T
	scanned := 0
	for {
		rng.Limit = min(500, want+skip+1)
		rows, err := read(ctx, rng)
		if err != nil {
			return nil, err
		}
		for _, row := range rows {
			items, err := expand(row)
			if err != nil {
				return nil, err
			}
			if p.desc {
				reverse(items)
			}
			for _, it := range items {
				if skip > 0 {
					skip--
					continue
				}
				out = append(out, it)
				if len(out) == want {
					return out, nil
				}
			}
		}
		scanned += len(rows)
		if len(rows) < rng.Limit {
			return out, nil
		}
		if scanned >= esScanMax {
			return nil, esErr(esTimeout)
		}
		rng.After = rows[len(rows)-1].Sequence
	}
}

func reverse[T any](s []T) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}

// hexDec renders a 0x quantity in decimal, as Etherscan's account lists do ("" stays "").
func hexDec(s string) string {
	h := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if h == "" {
		if s == "" {
			return ""
		}
		return "0"
	}
	n, ok := new(big.Int).SetString(h, 16)
	if !ok {
		return ""
	}
	return n.String()
}

func hexInt(s string) int64 {
	n, err := strconv.ParseInt(strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X"), 16, 64)
	if err != nil {
		return 0
	}
	return n
}

func eqAddr(a string, b []byte) bool {
	if len(a) != 42 {
		return false
	}
	x, err := hex.DecodeString(a[2:])
	return err == nil && string(x) == string(b)
}

// indexed is the indexed height, for confirmations.
func (s *server) indexed(ctx context.Context) (int64, error) { return s.store.IndexedHeight(ctx) }
