package api

import (
	"context"
	"errors"
	"math/big"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/store"
)

// The transaction, block, logs and contract modules.

type esStatus struct {
	IsError        string `json:"isError"`
	ErrDescription string `json:"errDescription"`
}

type esReceiptStatus struct {
	Status string `json:"status"`
}

// esReceipt reads the stored receipt of txhash; found is false for a hash not indexed.
func (s *server) esReceipt(ctx context.Context, q url.Values) (receipt, bool, error) {
	h, err := esHash(q.Get("txhash"))
	if err != nil {
		return receipt{}, false, err
	}
	t, err := s.cfg.Features.EVMTxs.EVMTx(ctx, h)
	if errors.Is(err, store.ErrNotFound) {
		return receipt{}, false, nil
	}
	if err != nil {
		return receipt{}, false, err
	}
	r, err := decodeReceipt(t)
	return r, err == nil, err
}

// esGetStatus: a hash not indexed answers "no error", as Etherscan does for a tx it does not
// know (pending or elsewhere). The receipt carries no revert reason, so a failed tx is
// described as reverted.
func (s *server) esGetStatus(ctx context.Context, q url.Values) (esEnvelope, error) {
	r, found, err := s.esReceipt(ctx, q)
	if err != nil {
		return esEnvelope{}, err
	}
	if found && r.failed() {
		return esOK(esStatus{IsError: "1", ErrDescription: "Reverted"}), nil
	}
	return esOK(esStatus{IsError: "0", ErrDescription: ""}), nil
}

// esReceiptStatus: "1" success, "0" failure, "" for a hash not indexed (Etherscan's empty
// status for a receipt it has none of).
func (s *server) esReceiptStatus(ctx context.Context, q url.Values) (esEnvelope, error) {
	r, found, err := s.esReceipt(ctx, q)
	if err != nil {
		return esEnvelope{}, err
	}
	st := ""
	if found {
		st = "1"
		if r.failed() {
			st = "0"
		}
	}
	return esOK(esReceiptStatus{Status: st}), nil
}

// esBlockByTime: the last block at or before timestamp (closest=before, the default) or the
// first at or after it; the result is the height as a string.
func (s *server) esBlockByTime(ctx context.Context, q url.Values) (esEnvelope, error) {
	ts, err := strconv.ParseInt(q.Get("timestamp"), 10, 64)
	if err != nil || ts < 0 || ts > 1<<40 {
		return esEnvelope{}, esErr(esBadTimestamp)
	}
	before := true
	switch strings.ToLower(q.Get("closest")) {
	case "", "before":
	case "after":
		before = false
	default:
		return esEnvelope{}, esErr(esBadClosest)
	}
	t := time.Unix(ts, 0)
	if before {
		t = time.Unix(ts, 999_999_999) // a block stamped within the asked second is "at" it
	}
	h, err := s.es().Range.BlockAtTime(ctx, t, before)
	if errors.Is(err, store.ErrNotFound) {
		return esEnvelope{}, esErr(esNoClosest)
	}
	if err != nil {
		return esEnvelope{}, err
	}
	return esOK(strconv.FormatInt(h, 10)), nil
}

type esBlockRewardJSON struct {
	BlockNumber          string `json:"blockNumber"`
	TimeStamp            string `json:"timeStamp"`
	BlockMiner           string `json:"blockMiner"`
	BlockReward          string `json:"blockReward"`
	Uncles               []any  `json:"uncles"`
	UncleInclusionReward string `json:"uncleInclusionReward"`
}

// esBlockReward: a rollup mints no block reward and has no uncles, so what its block pays is
// the fees of its EVM txs (gasUsed × effectiveGasPrice summed), Etherscan's reward less the
// static part. blockMiner is the block's fee recipient from the chain (eth_getBlockByNumber's
// miner; asked with full txs, the one form the tx lists ask too)
// when the JSON-RPC is configured, else "".
func (s *server) esBlockReward(ctx context.Context, q url.Values) (esEnvelope, error) {
	h, err := strconv.ParseInt(q.Get("blockno"), 10, 64)
	if err != nil || h < 1 {
		return esEnvelope{}, esErr(esBadBlock)
	}
	b, err := s.store.Block(ctx, h)
	if errors.Is(err, store.ErrNotFound) || store.IsPruned(err) {
		return esEnvelope{}, esErr(esNoBlock)
	}
	if err != nil {
		return esEnvelope{}, err
	}
	fees := new(big.Int)
	rng := store.EVMRange{FromHeight: h, ToHeight: h}
	all, err := collect(ctx, s.es().Range.EVMTxsInRange, rng, esPage{page: 1, offset: esWindowMax}, func(t store.TxRecord) ([]receipt, error) {
		r, err := decodeReceipt(t)
		return []receipt{r}, err
	})
	if err != nil {
		return esEnvelope{}, err
	}
	for _, r := range all {
		g, _ := new(big.Int).SetString(hexDec(r.GasUsed), 10)
		p, _ := new(big.Int).SetString(hexDec(r.EffectiveGasPrice), 10)
		if g != nil && p != nil {
			fees.Add(fees, g.Mul(g, p))
		}
	}
	miner := ""
	if s.es().RPC != nil {
		blk, err := s.es().RPC.BlockByNumber(ctx, h, true)
		if err != nil {
			if ce := chainErr(err); errors.As(ce, new(*esChainError)) {
				return esEnvelope{}, ce
			}
		} else {
			miner = strings.ToLower(blk.Miner)
		}
	}
	return esOK(esBlockRewardJSON{BlockNumber: strconv.FormatInt(h, 10), TimeStamp: strconv.FormatInt(b.Time.Unix(), 10),
		BlockMiner: miner, BlockReward: fees.String(), Uncles: []any{}, UncleInclusionReward: "0"}), nil
}

// esLog is one getLogs record: quantities in hex, as Etherscan's logs page shows them.
type esLog struct {
	Address          string   `json:"address"`
	Topics           []string `json:"topics"`
	Data             string   `json:"data"`
	BlockNumber      string   `json:"blockNumber"`
	BlockHash        string   `json:"blockHash"`
	TimeStamp        string   `json:"timeStamp"`
	GasPrice         string   `json:"gasPrice"`
	GasUsed          string   `json:"gasUsed"`
	LogIndex         string   `json:"logIndex"`
	TransactionHash  string   `json:"transactionHash"`
	TransactionIndex string   `json:"transactionIndex"`
}

// topicFilter is getLogs' topic0..topic3 with the pairwise operators topicA_B_opr; the given
// topics are combined left to right, each with its predecessor's operator ("and" when absent).
type topicFilter struct {
	idx  []int
	want []string
	or   []bool // or[k]: topic idx[k] joins with "or"
}

func parseTopics(q url.Values) (topicFilter, error) {
	var f topicFilter
	for i := 0; i < 4; i++ {
		v := q.Get("topic" + strconv.Itoa(i))
		if v == "" {
			continue
		}
		v = strings.ToLower(v)
		if len(v) != 66 || !strings.HasPrefix(v, "0x") || !isHex(v[2:]) {
			return f, esErr(esBadTopic)
		}
		or := false
		if len(f.idx) > 0 {
			op := strings.ToLower(q.Get("topic" + strconv.Itoa(f.idx[len(f.idx)-1]) + "_" + strconv.Itoa(i) + "_opr"))
			switch op {
			case "", "and":
			case "or":
				or = true
			default:
				return f, esErr(esBadOperator)
			}
		}
		f.idx, f.want, f.or = append(f.idx, i), append(f.want, v), append(f.or, or)
	}
	return f, nil
}

func isHex(s string) bool {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func (f topicFilter) match(topics []string) bool {
	if len(f.idx) == 0 {
		return true
	}
	ok := false
	for k, i := range f.idx {
		m := i < len(topics) && strings.ToLower(topics[i]) == f.want[k]
		switch {
		case k == 0:
			ok = m
		case f.or[k]:
			ok = ok || m
		default:
			ok = ok && m
		}
	}
	return ok
}

// esGetLogs: the logs of the stored receipts in [fromBlock, toBlock] from address and/or
// matching the topics, 1,000 per page at most. With an address the walk is that address's txs
// (a log's address is one of its tx's accounts); with topics alone it is every tx of the range,
// bounded by esScanMax.
func (s *server) esGetLogs(ctx context.Context, q url.Values) (esEnvelope, error) {
	var addr []byte
	var err error
	if v := q.Get("address"); v != "" {
		if addr, err = esAddress(v); err != nil {
			return esEnvelope{}, err
		}
	}
	tf, err := parseTopics(q)
	if err != nil {
		return esEnvelope{}, err
	}
	if addr == nil && len(tf.idx) == 0 {
		return esEnvelope{}, esErr(esNeedAddrTopic)
	}
	rng, err := esRange(q, "fromBlock", "toBlock")
	if err != nil {
		return esEnvelope{}, err
	}
	p, err := esPaging(q, esLogsMax)
	if err != nil {
		return esEnvelope{}, err
	}
	p.desc = false // getLogs has no sort: block order
	rng.Account = addr
	type hit struct {
		r receipt
		l ethLog
	}
	hits, err := collect(ctx, s.es().Range.EVMTxsInRange, rng, p, func(t store.TxRecord) ([]hit, error) {
		r, err := decodeReceipt(t)
		if err != nil {
			return nil, err
		}
		var out []hit
		for _, l := range r.Logs {
			if addr != nil && !eqAddr(strings.ToLower(l.Address), addr) {
				continue
			}
			if tf.match(l.Topics) {
				out = append(out, hit{r, l})
			}
		}
		return out, nil
	})
	if err != nil {
		return esEnvelope{}, err
	}
	hs := make([]int64, len(hits))
	for i, h := range hits {
		hs[i] = h.r.height
	}
	c, err := s.txContext(ctx, hs, nil)
	if err != nil {
		return esEnvelope{}, err
	}
	out := make([]esLog, len(hits))
	for i, h := range hits {
		topics := h.l.Topics
		if topics == nil {
			topics = []string{}
		}
		out[i] = esLog{Address: strings.ToLower(h.l.Address), Topics: topics, Data: h.l.Data, BlockNumber: h.l.BlockNumber,
			BlockHash: h.l.BlockHash, TimeStamp: "0x" + strconv.FormatInt(c.times[h.r.height], 16),
			GasPrice: h.r.EffectiveGasPrice, GasUsed: h.r.GasUsed, LogIndex: h.l.LogIndex,
			TransactionHash: h.l.TransactionHash, TransactionIndex: h.l.TransactionIndex}
	}
	return esList(out, esNoRecords), nil
}

// esGetABI answers the ABI the operator supplied for the address, as a JSON string (as
// Etherscan's result is), or Etherscan's "not verified" error.
func (s *server) esGetABI(ctx context.Context, q url.Values) (esEnvelope, error) {
	a, err := esAddress(q.Get("address"))
	if err != nil {
		return esEnvelope{}, err
	}
	abi, ok := s.es().ABIs[address.Hex(a)]
	if !ok {
		return esFail(esNotVerified), nil
	}
	return esOK(string(abi.ABI)), nil
}

// esSourceCode is one getsourcecode record, fields in Etherscan's order.
type esSourceCode struct {
	SourceCode           string `json:"SourceCode"`
	ABI                  string `json:"ABI"`
	ContractName         string `json:"ContractName"`
	CompilerVersion      string `json:"CompilerVersion"`
	OptimizationUsed     string `json:"OptimizationUsed"`
	Runs                 string `json:"Runs"`
	ConstructorArguments string `json:"ConstructorArguments"`
	EVMVersion           string `json:"EVMVersion"`
	Library              string `json:"Library"`
	LicenseType          string `json:"LicenseType"`
	Proxy                string `json:"Proxy"`
	Implementation       string `json:"Implementation"`
	SwarmSource          string `json:"SwarmSource"`
}

// esGetSourceCode: rollgate verifies nothing, so SourceCode is always ""; an address without
// a supplied ABI answers Etherscan's unverified record (status "1", ABI "Contract source code
// not verified"), one with an ABI that ABI and the contract name the operator gave.
func (s *server) esGetSourceCode(ctx context.Context, q url.Values) (esEnvelope, error) {
	a, err := esAddress(q.Get("address"))
	if err != nil {
		return esEnvelope{}, err
	}
	rec := esSourceCode{ABI: esNotVerified, EVMVersion: "Default", LicenseType: "Unknown", Proxy: "0"}
	if abi, ok := s.es().ABIs[address.Hex(a)]; ok {
		rec.ABI, rec.ContractName = string(abi.ABI), abi.Name
	}
	return esOK([]esSourceCode{rec}), nil
}
