package api

import (
	"context"
	"math/big"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/jsonx"
	"github.com/rollgate/rollgate/internal/store"
)

// The account module: balance, balancemulti, txlist, txlistinternal, tokentx, tokennfttx.
// Field names and order are those of Etherscan's Accounts page; every value is a string.

// erc20/721 Transfer(address,address,uint256): the event's topic0.
const transferTopic = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"

func (s *server) es() *Etherscan { return s.cfg.Features.Etherscan }

// balances reads native balances: from the rich list when it keeps the native coin, else from
// the chain's JSON-RPC.
func (s *server) esBalances(ctx context.Context, addrs [][]byte) ([]*big.Int, error) {
	e := s.es()
	if rl := s.cfg.Features.RichList; rl != nil && e.NativeDenom != "" {
		denom := e.NativeDenom
		if d, err := rl.RichListAlias(ctx, strings.ToLower(denom)); err != nil {
			return nil, err
		} else if d != "" {
			denom = d
		}
		out := make([]*big.Int, len(addrs))
		complete := true
		for i, a := range addrs {
			bs, err := rl.Balances(ctx, a)
			if err != nil {
				return nil, err
			}
			out[i] = new(big.Int)
			for _, b := range bs.Balances {
				if b.Denom == denom {
					out[i] = b.Amount
				}
			}
			complete = complete && (!bs.Truncated || out[i].Sign() > 0)
		}
		if complete || e.RPC == nil {
			return out, nil
		}
	}
	hexes := make([]string, len(addrs))
	for i, a := range addrs {
		hexes[i] = address.Hex(a)
	}
	return e.rpcBalances(ctx, hexes)
}

func esTag(q url.Values) error {
	if t := q.Get("tag"); t != "" && t != "latest" {
		return esErr(esBadTag)
	}
	return nil
}

func (s *server) esBalance(ctx context.Context, q url.Values) (esEnvelope, error) {
	a, err := esAddress(q.Get("address"))
	if err != nil {
		return esEnvelope{}, err
	}
	if err := esTag(q); err != nil {
		return esEnvelope{}, err
	}
	bs, err := s.esBalances(ctx, [][]byte{a})
	if err != nil {
		return esEnvelope{}, err
	}
	return esOK(bs[0].String()), nil
}

type esAccountBalance struct {
	Account string `json:"account"`
	Balance string `json:"balance"`
}

func (s *server) esBalanceMulti(ctx context.Context, q url.Values) (esEnvelope, error) {
	parts := strings.Split(q.Get("address"), ",")
	if len(parts) > esBalanceMultiAt {
		return esEnvelope{}, esErr(esTooMany)
	}
	addrs := make([][]byte, len(parts))
	for i, p := range parts {
		a, err := esAddress(strings.TrimSpace(p))
		if err != nil {
			return esEnvelope{}, err
		}
		addrs[i] = a
	}
	if err := esTag(q); err != nil {
		return esEnvelope{}, err
	}
	bs, err := s.esBalances(ctx, addrs)
	if err != nil {
		return esEnvelope{}, err
	}
	out := make([]esAccountBalance, len(parts))
	for i := range parts {
		out[i] = esAccountBalance{Account: strings.TrimSpace(parts[i]), Balance: bs[i].String()}
	}
	return esOK(out), nil
}

// receipt is the stored EvmTx object (the receipt's fields).
type receipt struct {
	BlockHash         string   `json:"blockHash"`
	BlockNumber       string   `json:"blockNumber"`
	ContractAddress   *string  `json:"contractAddress"`
	CumulativeGasUsed string   `json:"cumulativeGasUsed"`
	EffectiveGasPrice string   `json:"effectiveGasPrice"`
	From              string   `json:"from"`
	GasUsed           string   `json:"gasUsed"`
	Logs              []ethLog `json:"logs"`
	Status            string   `json:"status"`
	To                string   `json:"to"`
	TransactionHash   string   `json:"transactionHash"`
	TransactionIndex  string   `json:"transactionIndex"`
	// The explorer keys (migration 0014) that the reads asking for them append
	// (store.EVMRange.Explorer): the tx body as the node's eth_getBlockByNumber gave it at
	// ingestion, verbatim, and the block time (RFC 3339). Empty on a row stored before 0014
	// (explorer NULL) and on one whose tx the block fetch did not hold.
	Nonce     string `json:"nonce"`
	Value     string `json:"value"`
	Gas       string `json:"gas"`
	Input     string `json:"input"`
	Timestamp string `json:"timestamp"`
	height    int64
}

type ethLog struct {
	Address          string   `json:"address"`
	Topics           []string `json:"topics"`
	Data             string   `json:"data"`
	BlockNumber      string   `json:"blockNumber"`
	TransactionHash  string   `json:"transactionHash"`
	TransactionIndex string   `json:"transactionIndex"`
	BlockHash        string   `json:"blockHash"`
	LogIndex         string   `json:"logIndex"`
}

func decodeReceipt(t store.TxRecord) (receipt, error) {
	var r receipt
	if err := jsonx.Unmarshal(t.JSON, &r); err != nil {
		return r, err
	}
	r.height = t.Height
	return r, nil
}

func (r receipt) contract() string {
	if r.ContractAddress == nil {
		return ""
	}
	return strings.ToLower(*r.ContractAddress)
}

func (r receipt) failed() bool { return hexInt(r.Status) == 0 }

// hasBody: the row carries its tx body among its explorer keys. The node gives every tx
// object a nonce, so an explorer without one held no tx object (or there is no explorer).
func (r receipt) hasBody() bool { return r.Nonce != "" }

// esTx is one txlist record, fields in Etherscan's order.
type esTx struct {
	BlockNumber       string `json:"blockNumber"`
	TimeStamp         string `json:"timeStamp"`
	Hash              string `json:"hash"`
	Nonce             string `json:"nonce"`
	BlockHash         string `json:"blockHash"`
	TransactionIndex  string `json:"transactionIndex"`
	From              string `json:"from"`
	To                string `json:"to"`
	Value             string `json:"value"`
	Gas               string `json:"gas"`
	GasPrice          string `json:"gasPrice"`
	IsError           string `json:"isError"`
	TxReceiptStatus   string `json:"txreceipt_status"`
	Input             string `json:"input"`
	ContractAddress   string `json:"contractAddress"`
	CumulativeGasUsed string `json:"cumulativeGasUsed"`
	GasUsed           string `json:"gasUsed"`
	Confirmations     string `json:"confirmations"`
	MethodID          string `json:"methodId"`
	FunctionName      string `json:"functionName"`
}

// esTxContext is what records of one answer share: block times, tx bodies, the indexed height.
type esTxContext struct {
	times   map[int64]int64   // height → unix seconds
	bodies  map[string]txBody // the node's, by lowercase hash: only for rows without a stored body
	indexed int64
}

// txContext reads, for the heights of the records, the block times and the indexed height;
// rs are the receipts of an answer that shows tx bodies (nil for one that does not).
//
// A tx body (nonce, value, gas, input) and the block time are read from the receipt's own
// explorer keys (migration 0014), so a page whose rows all carry them costs no read beyond
// its rows and the indexed height, and no JSON-RPC call. Only rows without a body among
// their keys ask the node, one eth_getBlockByNumber batch for their blocks alone: those
// stored before 0014 (explorer NULL; there is no backfill, the store does not keep the node's
// tx objects) and those whose tx the ingestion's block fetch did not hold. Heights without a
// stored time (explorer NULL) read the block table, in one read. Either way the bytes are the
// same: the explorer keys are the node's strings, its time the block's.
func (s *server) txContext(ctx context.Context, heights []int64, rs []receipt) (esTxContext, error) {
	c := esTxContext{times: map[int64]int64{}}
	var nodeHeights []int64
	for _, r := range rs {
		if !r.hasBody() {
			nodeHeights = append(nodeHeights, r.height)
		}
		if _, ok := c.times[r.height]; ok || r.Timestamp == "" {
			continue
		}
		if t, err := time.Parse(time.RFC3339Nano, r.Timestamp); err == nil {
			c.times[r.height] = t.Unix()
		}
	}
	var timeless []int64
	for _, h := range heights {
		if _, ok := c.times[h]; !ok {
			timeless = append(timeless, h)
		}
	}
	if len(timeless) > 0 {
		ts, err := s.es().Range.BlockTimes(ctx, uniqueHeights(timeless))
		if err != nil {
			return c, err
		}
		for h, t := range ts {
			c.times[h] = t.Unix()
		}
	}
	var err error
	if c.indexed, err = s.indexed(ctx); err != nil {
		return c, err
	}
	if len(nodeHeights) > 0 {
		if c.bodies, err = s.es().txBodies(ctx, uniqueHeights(nodeHeights)); err != nil {
			return c, err
		}
	}
	return c, nil
}

// body is r's tx body: its stored one, else the node's.
func (c esTxContext) body(r receipt) txBody {
	if r.hasBody() {
		return txBody{Hash: r.TransactionHash, Nonce: r.Nonce, Value: r.Value, Gas: r.Gas, Input: r.Input}
	}
	return c.bodies[strings.ToLower(r.TransactionHash)]
}

func uniqueHeights(hs []int64) []int64 {
	seen := map[int64]bool{}
	var out []int64
	for _, h := range hs {
		if !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func (c esTxContext) ts(h int64) string { return strconv.FormatInt(c.times[h], 10) }

func (c esTxContext) confirmations(h int64) string {
	return strconv.FormatInt(max(c.indexed-h+1, 0), 10)
}

// methodID is the input's selector ("0x" for a plain transfer), functionName the ABI's
// signature for it when the operator supplied the contract's ABI.
func (s *server) method(to, input string) (string, string) {
	if len(input) < 10 {
		return "0x", ""
	}
	id := strings.ToLower(input[:10])
	if abi, ok := s.es().ABIs[strings.ToLower(to)]; ok {
		return id, abi.functions[id]
	}
	return id, ""
}

func (s *server) esTxList(ctx context.Context, q url.Values) (esEnvelope, error) {
	a, err := esAddress(q.Get("address"))
	if err != nil {
		return esEnvelope{}, err
	}
	rng, err := esRange(q, "startblock", "endblock")
	if err != nil {
		return esEnvelope{}, err
	}
	p, err := esPaging(q, esWindowMax)
	if err != nil {
		return esEnvelope{}, err
	}
	rng.Account, rng.Explorer = a, true
	// The account's edges also hold the txs whose logs name it (transfers to it): txlist
	// keeps those it sent, received or created, as Etherscan's "normal" transactions.
	recs, err := collect(ctx, s.es().Range.EVMTxsInRange, rng, p, func(t store.TxRecord) ([]receipt, error) {
		r, err := decodeReceipt(t)
		if err != nil {
			return nil, err
		}
		if eqAddr(r.From, a) || eqAddr(r.To, a) || eqAddr(r.contract(), a) {
			return []receipt{r}, nil
		}
		return nil, nil
	})
	if err != nil {
		return esEnvelope{}, err
	}
	hs := make([]int64, len(recs))
	for i, r := range recs {
		hs[i] = r.height
	}
	c, err := s.txContext(ctx, hs, recs)
	if err != nil {
		return esEnvelope{}, err
	}
	out := make([]esTx, len(recs))
	for i, r := range recs {
		b := c.body(r)
		mid, fn := s.method(r.To, b.Input)
		isErr, st := "0", "1"
		if r.failed() {
			isErr, st = "1", "0"
		}
		out[i] = esTx{BlockNumber: strconv.FormatInt(r.height, 10), TimeStamp: c.ts(r.height), Hash: r.TransactionHash,
			Nonce: hexDec(b.Nonce), BlockHash: r.BlockHash, TransactionIndex: hexDec(r.TransactionIndex), From: r.From, To: r.To,
			Value: hexDec(b.Value), Gas: hexDec(b.Gas), GasPrice: hexDec(r.EffectiveGasPrice), IsError: isErr, TxReceiptStatus: st,
			Input: b.Input, ContractAddress: r.contract(), CumulativeGasUsed: hexDec(r.CumulativeGasUsed), GasUsed: hexDec(r.GasUsed),
			Confirmations: c.confirmations(r.height), MethodID: mid, FunctionName: fn}
	}
	return esList(out, esNoTxs), nil
}

// internalFrame is the stored internal tx object.
type internalFrame struct {
	Height      int64  `json:"height"`
	Hash        string `json:"hash"`
	ParentIndex int    `json:"parent_index"`
	Index       int    `json:"index"`
	Type        string `json:"type"`
	From        string `json:"from"`
	To          string `json:"to"`
	Input       string `json:"input"`
	Value       string `json:"value"`
	Gas         string `json:"gas"`
	GasUsed     string `json:"gasUsed"`
}

// esInternalTx is one txlistinternal record; by txhash Etherscan leaves out hash (the one
// asked), so Hash is omitted then.
type esInternalTx struct {
	BlockNumber     string `json:"blockNumber"`
	TimeStamp       string `json:"timeStamp"`
	Hash            string `json:"hash,omitempty"`
	From            string `json:"from"`
	To              string `json:"to"`
	Value           string `json:"value"`
	ContractAddress string `json:"contractAddress"`
	Input           string `json:"input"`
	Type            string `json:"type"`
	Gas             string `json:"gas"`
	GasUsed         string `json:"gasUsed"`
	TraceID         string `json:"traceId"`
	IsError         string `json:"isError"`
	ErrCode         string `json:"errCode"`
}

// esTxListInternal lists internal txs by address, by txhash, or by block range alone. The
// top call frame is the tx itself (in txlist), so only nested frames are listed, as at
// Etherscan. Frames of reverted calls are not kept by the trace follower, so isError is "0".
func (s *server) esTxListInternal(ctx context.Context, q url.Values) (esEnvelope, error) {
	var rng store.EVMRange
	var byHash bool
	var acct []byte
	switch {
	case q.Get("txhash") != "":
		h, err := esHash(q.Get("txhash"))
		if err != nil {
			return esEnvelope{}, err
		}
		rng.Hash, byHash = h, true
	default:
		var err error
		if rng, err = esRange(q, "startblock", "endblock"); err != nil {
			return esEnvelope{}, err
		}
		if v := q.Get("address"); v != "" {
			if acct, err = esAddress(v); err != nil {
				return esEnvelope{}, err
			}
			rng.Account = acct
		}
	}
	p, err := esPaging(q, esWindowMax)
	if err != nil {
		return esEnvelope{}, err
	}
	frames, err := collect(ctx, s.es().Range.InternalTxsInRange, rng, p, func(t store.TxRecord) ([]internalFrame, error) {
		var f internalFrame
		if err := jsonx.Unmarshal(t.JSON, &f); err != nil {
			return nil, err
		}
		if f.ParentIndex < 0 || (acct != nil && !eqAddr(f.From, acct) && !eqAddr(f.To, acct)) {
			return nil, nil
		}
		return []internalFrame{f}, nil
	})
	if err != nil {
		return esEnvelope{}, err
	}
	hs := make([]int64, len(frames))
	for i, f := range frames {
		hs[i] = f.Height
	}
	c, err := s.txContext(ctx, hs, nil)
	if err != nil {
		return esEnvelope{}, err
	}
	out := make([]esInternalTx, len(frames))
	for i, f := range frames {
		typ := strings.ToLower(f.Type)
		it := esInternalTx{BlockNumber: strconv.FormatInt(f.Height, 10), TimeStamp: c.ts(f.Height), From: f.From, To: f.To,
			Value: hexDec(f.Value), Input: f.Input, Type: typ, Gas: hexDec(f.Gas), GasUsed: hexDec(f.GasUsed),
			TraceID: strconv.Itoa(f.Index), IsError: "0"}
		if strings.HasPrefix(typ, "create") {
			it.ContractAddress, it.To = f.To, ""
		}
		if !byHash {
			it.Hash = f.Hash
		}
		out[i] = it
	}
	return esList(out, esNoTxs), nil
}

// esTokenTransfer is one tokentx (ERC-20) or tokennfttx (ERC-721) record.
type esTokenTransfer struct {
	BlockNumber       string `json:"blockNumber"`
	TimeStamp         string `json:"timeStamp"`
	Hash              string `json:"hash"`
	Nonce             string `json:"nonce"`
	BlockHash         string `json:"blockHash"`
	From              string `json:"from"`
	ContractAddress   string `json:"contractAddress"`
	To                string `json:"to"`
	Value             string `json:"value,omitempty"`
	TokenID           string `json:"tokenID,omitempty"`
	TokenName         string `json:"tokenName"`
	TokenSymbol       string `json:"tokenSymbol"`
	TokenDecimal      string `json:"tokenDecimal"`
	TransactionIndex  string `json:"transactionIndex"`
	Gas               string `json:"gas"`
	GasPrice          string `json:"gasPrice"`
	GasUsed           string `json:"gasUsed"`
	CumulativeGasUsed string `json:"cumulativeGasUsed"`
	Input             string `json:"input"`
	MethodID          string `json:"methodId"`
	FunctionName      string `json:"functionName"`
	Confirmations     string `json:"confirmations"`
}

type transfer struct {
	r        receipt
	l        ethLog
	from, to string
	amount   string // value (ERC-20) or token id (ERC-721), decimal
}

// topicAddr is the address in an indexed address topic.
func topicAddr(t string) string {
	if len(t) != 66 {
		return ""
	}
	return "0x" + strings.ToLower(t[26:])
}

// transfers are the receipt's Transfer logs of one standard: ERC-20 has from and to indexed
// and the value in data (three topics), ERC-721 the token id indexed too (four topics).
func transfers(r receipt, nft bool) []transfer {
	var out []transfer
	want := 3
	if nft {
		want = 4
	}
	for _, l := range r.Logs {
		if len(l.Topics) != want || strings.ToLower(l.Topics[0]) != transferTopic {
			continue
		}
		t := transfer{r: r, l: l, from: topicAddr(l.Topics[1]), to: topicAddr(l.Topics[2])}
		if nft {
			t.amount = hexDec(l.Topics[3])
		} else {
			t.amount = hexDec(l.Data)
			if len(strings.TrimPrefix(l.Data, "0x")) != 64 {
				continue // not an ERC-20 value word
			}
		}
		out = append(out, t)
	}
	return out
}

// esTokenTx lists token transfers by address, by contractaddress, or both. Transfers are
// read from the receipts' logs: an address in a Transfer topic is one of the tx's accounts,
// so either filter is a walk of that account's txs.
func (s *server) esTokenTx(ctx context.Context, q url.Values, nft bool) (esEnvelope, error) {
	var acct, contract []byte
	var err error
	if v := q.Get("address"); v != "" {
		if acct, err = esAddress(v); err != nil {
			return esEnvelope{}, err
		}
	}
	if v := q.Get("contractaddress"); v != "" {
		if contract, err = esAddress(v); err != nil {
			return esEnvelope{}, err
		}
	}
	if acct == nil && contract == nil {
		return esEnvelope{}, esErr(esBadAddress)
	}
	rng, err := esRange(q, "startblock", "endblock")
	if err != nil {
		return esEnvelope{}, err
	}
	p, err := esPaging(q, esWindowMax)
	if err != nil {
		return esEnvelope{}, err
	}
	rng.Account, rng.Explorer = acct, true
	if acct == nil {
		rng.Account = contract
	}
	ts, err := collect(ctx, s.es().Range.EVMTxsInRange, rng, p, func(t store.TxRecord) ([]transfer, error) {
		r, err := decodeReceipt(t)
		if err != nil {
			return nil, err
		}
		var out []transfer
		for _, x := range transfers(r, nft) {
			if contract != nil && !eqAddr(strings.ToLower(x.l.Address), contract) {
				continue
			}
			if acct != nil && !eqAddr(x.from, acct) && !eqAddr(x.to, acct) {
				continue
			}
			out = append(out, x)
		}
		return out, nil
	})
	if err != nil {
		return esEnvelope{}, err
	}
	hs := make([]int64, len(ts))
	rs := make([]receipt, len(ts))
	var contracts []string
	seen := map[string]bool{}
	for i, t := range ts {
		hs[i], rs[i] = t.r.height, t.r
		if c := strings.ToLower(t.l.Address); !seen[c] {
			seen[c] = true
			contracts = append(contracts, c)
		}
	}
	c, err := s.txContext(ctx, hs, rs)
	if err != nil {
		return esEnvelope{}, err
	}
	metas, err := s.es().tokenMetas(ctx, contracts, nft, c.indexed)
	if err != nil {
		return esEnvelope{}, err
	}
	out := make([]esTokenTransfer, len(ts))
	for i, t := range ts {
		b := c.body(t.r)
		m := metas[strings.ToLower(t.l.Address)]
		mid, fn := s.method(t.r.To, b.Input)
		x := esTokenTransfer{BlockNumber: strconv.FormatInt(t.r.height, 10), TimeStamp: c.ts(t.r.height), Hash: t.r.TransactionHash,
			Nonce: hexDec(b.Nonce), BlockHash: t.r.BlockHash, From: t.from, ContractAddress: strings.ToLower(t.l.Address), To: t.to,
			TokenName: m.name, TokenSymbol: m.symbol, TokenDecimal: m.decimals, TransactionIndex: hexDec(t.r.TransactionIndex),
			Gas: hexDec(b.Gas), GasPrice: hexDec(t.r.EffectiveGasPrice), GasUsed: hexDec(t.r.GasUsed),
			CumulativeGasUsed: hexDec(t.r.CumulativeGasUsed), Input: b.Input, MethodID: mid, FunctionName: fn,
			Confirmations: c.confirmations(t.r.height)}
		if nft {
			x.TokenID = t.amount
		} else {
			x.Value = t.amount
		}
		out[i] = x
	}
	return esList(out, esNoTxs), nil
}
