package track

// The scanner of EVM chains (registry chain_type "evm", e.g. an Ethereum chain): what a
// LayerZero hop needs of them, over their Ethereum JSON-RPC. A pass asks the tip, then
//
//   - eth_getLogs of the registry's OFT contracts on the chain for OFTSent / OFTReceived over
//     the next blocks (at most evmLogRange of them: nodes refuse or time out on wide ranges),
//   - eth_getTransactionReceipt, in one batch, of each tracked tx not seen yet (its status is
//     the tx row's code; its OFT logs are stored with it, so the hop starts even when its
//     contract is not listed),
//   - eth_getBlockByNumber of the blocks those came from, for their time,
//
// and stores them as the CometBFT scanner does (SaveBlocks under the chain's scan lease, the
// cursor at the last block read). A tx's hash is kept as every hash is (NormalizeHash) and
// shown as EVM tools do, 0x and lower case (evmChainTx).

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rollgate/rollgate/internal/chain/evmrpc"
	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/chain/reach"
	"github.com/rollgate/rollgate/internal/router/bridge"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// evmLogRange bounds the blocks of one eth_getLogs.
const evmLogRange = 500

// Topics of the OFT events (IOFT.sol: OFTSent(bytes32 indexed guid, uint32 dstEid, address
// indexed fromAddress, uint256 amountSentLD, uint256 amountReceivedLD), OFTReceived(bytes32
// indexed guid, uint32 srcEid, address indexed toAddress, uint256 amountReceivedLD)).
var (
	topicOFTSent     = crypto.Keccak256Hash([]byte("OFTSent(bytes32,uint32,address,uint256,uint256)")).Hex()
	topicOFTReceived = crypto.Keccak256Hash([]byte("OFTReceived(bytes32,uint32,address,uint256)")).Hex()
)

// evmClients are the JSON-RPC clients of the EVM chains, by chain id.
type evmClients struct {
	mu sync.Mutex
	m  map[string]*evmrpc.Client
}

// evmClient is the JSON-RPC client of an EVM chain (ErrUnknownChain for any other chain).
func (t *Tracker) evmClient(chainID string) (*evmrpc.Client, error) {
	c := t.live.Current().Chain(chainID)
	if c == nil || c.Type != registry.ChainTypeEVM || len(c.JSONRPC) == 0 {
		return nil, ErrUnknownChain
	}
	t.evm.mu.Lock()
	defer t.evm.mu.Unlock()
	if cl, ok := t.evm.m[chainID]; ok {
		return cl, nil
	}
	t.rpcMu.Lock()
	w := t.watches[chainID]
	if w == nil {
		w = reach.New(t.log.With("chain_id", chainID), reach.Options{Now: t.cfg.Now})
		t.watches[chainID] = w
	}
	t.rpcMu.Unlock()
	opts := append([]httpx.Option{httpx.WithWatch(w)}, t.cfg.RPCOptions...)
	cl, err := evmrpc.New(strings.Join(c.JSONRPC, ","), opts...)
	if err != nil {
		return nil, err
	}
	if t.evm.m == nil {
		t.evm.m = map[string]*evmrpc.Client{}
	}
	t.evm.m[chainID] = cl
	return cl, nil
}

// evmHash is a normalized hash as JSON-RPC takes it.
func evmHash(hash string) string { return "0x" + strings.ToLower(hash) }

// DisplayHash is a normalized tx hash as the chain's tools write it: 0x and lower case on EVM
// chains, upper-case hex elsewhere.
func DisplayHash(reg *registry.Registry, chainID, hash string) string {
	if c := reg.Chain(chainID); c != nil && c.Type == registry.ChainTypeEVM {
		return evmHash(hash)
	}
	return hash
}

// evmChainTx is Skip's ChainTransaction of an event on an EVM chain (no explorer is named by
// the registry for it).
func evmChainTx(_ *registry.Chain, ev *Event) *ChainTx {
	return &ChainTx{ChainID: ev.ChainID, TxHash: evmHash(ev.TxHash), ExplorerLink: "", OnChainAt: ev.Time.UTC().Format(time.RFC3339)}
}

// ofts are the OFT contracts the registry lists on an EVM chain.
func ofts(c *registry.Chain) []string {
	var out []string
	for _, a := range c.Assets {
		if a.LZ != nil && a.LZ.OFT != "" {
			out = append(out, strings.ToLower(a.LZ.OFT))
		}
	}
	sort.Strings(out)
	return out
}

// evmLogEvent decodes an OFT log as the event the tracker stores (ok false for another log).
func evmLogEvent(chainID string, l evmrpc.Log) (Event, bool) {
	if len(l.Topics) < 3 || l.Removed {
		return Event{}, false
	}
	data, err := hexutil.Decode(l.Data)
	if err != nil {
		return Event{}, false
	}
	word := func(i int) *big.Int {
		if len(data) < 32*(i+1) {
			return new(big.Int)
		}
		return new(big.Int).SetBytes(data[32*i : 32*(i+1)])
	}
	addr := func(topic string) string {
		t := strings.TrimPrefix(strings.ToLower(topic), "0x")
		if len(t) < 40 {
			return ""
		}
		return "0x" + t[len(t)-40:]
	}
	a := map[string]string{"oft": strings.ToLower(l.Address), "guid": normGUID(l.Topics[1])}
	var kind string
	switch strings.ToLower(l.Topics[0]) {
	case topicOFTSent:
		if len(data) < 96 {
			return Event{}, false
		}
		kind = bridge.EventLZSent
		a["dst_eid"], a["from_address"] = word(0).String(), addr(l.Topics[2])
		a["amount_sent_ld"], a["amount_received_ld"] = word(1).String(), word(2).String()
	case topicOFTReceived:
		if len(data) < 64 {
			return Event{}, false
		}
		kind = bridge.EventLZRecv
		a["src_eid"], a["to_address"], a["amount_received_ld"] = word(0).String(), addr(l.Topics[2]), word(1).String()
	default:
		return Event{}, false
	}
	hash, err := NormalizeHash(l.TransactionHash)
	if err != nil {
		return Event{}, false
	}
	return Event{ChainID: chainID, Kind: kind, Key: a["guid"], Height: int64(l.BlockNumber), TxIndex: int(l.TransactionIndex),
		Pos: int(l.LogIndex), MsgIndex: 0, TxHash: hash, Attrs: a}, true
}

// evmReceiptEvents are a tracked tx's row (code 0 when the receipt's status is 1) and its OFT
// events.
func evmReceiptEvents(chainID string, r *evmrpc.Receipt) ([]Event, error) {
	hash, err := NormalizeHash(r.TransactionHash)
	if err != nil {
		return nil, err
	}
	code, log := "0", ""
	if r.Status != 1 {
		code, log = "1", "execution reverted"
	}
	out := []Event{{ChainID: chainID, Kind: KindTx, Key: hash, Height: int64(r.BlockNumber), TxIndex: int(r.TransactionIndex), Pos: -1, MsgIndex: -1,
		TxHash: hash, Attrs: map[string]string{"code": code, "log": log, "codespace": ""}}}
	if code != "0" {
		return out, nil
	}
	for _, l := range r.Logs {
		if ev, ok := evmLogEvent(chainID, l); ok {
			out = append(out, ev)
		}
	}
	return out, nil
}

// evmTimes fills the events' times from their blocks' timestamps (one batch) and returns the
// time of block also.
func evmTimes(ctx context.Context, cl *evmrpc.Client, evs []Event, also int64) (time.Time, error) {
	heights := map[int64]bool{also: true}
	for _, e := range evs {
		heights[e.Height] = true
	}
	hs := make([]int64, 0, len(heights))
	for h := range heights {
		hs = append(hs, h)
	}
	sort.Slice(hs, func(i, j int) bool { return hs[i] < hs[j] })
	type head struct {
		Timestamp hexutil.Uint64 `json:"timestamp"`
	}
	heads := make([]head, len(hs))
	reqs := make([]evmrpc.Request, len(hs))
	for i, h := range hs {
		reqs[i] = evmrpc.Request{Method: "eth_getBlockByNumber", Params: []any{evmrpc.BlockTag(h), false}, Result: &heads[i]}
	}
	if err := cl.Batch(ctx, reqs); err != nil {
		return time.Time{}, err
	}
	at := map[int64]time.Time{}
	for i, r := range reqs {
		if r.Error != nil {
			return time.Time{}, fmt.Errorf("block %d: %w", hs[i], r.Error)
		}
		at[hs[i]] = time.Unix(int64(heads[i].Timestamp), 0).UTC()
	}
	for i := range evs {
		evs[i].Time = at[evs[i].Height]
	}
	return at[also], nil
}

// evmLookup stores a tracked tx found by its receipt (nothing when not mined yet).
func (t *Tracker) evmLookup(ctx context.Context, chainID, hash string, cl *evmrpc.Client) error {
	r, err := cl.TransactionReceipt(ctx, evmHash(hash))
	if err != nil {
		if errors.Is(err, evmrpc.ErrNotFound) {
			return nil
		}
		return err
	}
	evs, err := evmReceiptEvents(chainID, r)
	if err != nil {
		return err
	}
	if _, err := evmTimes(ctx, cl, evs, int64(r.BlockNumber)); err != nil {
		return err
	}
	return t.st.InsertEvents(ctx, evs)
}

// evmScanPass scans the next blocks of an EVM chain; it returns how many it read.
func (t *Tracker) evmScanPass(ctx context.Context, chainID string, cl *evmrpc.Client) (int, error) {
	cur, ok, err := t.st.LeaseCursor(ctx, chainID, t.cfg.Owner, t.cfg.Now(), t.cfg.Lease, -1)
	if err != nil || !ok {
		return 0, err
	}
	tipU, err := cl.BlockNumber(ctx)
	t.calls.Add(1)
	if err != nil {
		return 0, fmt.Errorf("%s tip: %w", chainID, err)
	}
	tip := int64(tipU)
	if cur.Height < 0 {
		cur.Height = max(tip-t.cfg.Backfill, 0)
		if err := t.st.SaveBlocks(ctx, chainID, t.cfg.Owner, nil, cur); err != nil {
			return 0, err
		}
	}
	if cur.Height >= tip {
		return 0, nil
	}
	to := min(tip, cur.Height+evmLogRange)
	var evs []Event
	if c := t.live.Current().Chain(chainID); c != nil {
		if addrs := ofts(c); len(addrs) > 0 {
			var logs []evmrpc.Log
			filter := map[string]any{"fromBlock": evmrpc.BlockTag(cur.Height + 1), "toBlock": evmrpc.BlockTag(to),
				"address": addrs, "topics": []any{[]string{topicOFTSent, topicOFTReceived}}}
			err := cl.Call(ctx, "eth_getLogs", []any{filter}, &logs)
			t.calls.Add(1)
			if err != nil {
				return 0, fmt.Errorf("%s logs %d…%d: %w", chainID, cur.Height+1, to, err)
			}
			for _, l := range logs {
				if ev, ok := evmLogEvent(chainID, l); ok {
					evs = append(evs, ev)
				}
			}
		}
	}
	pend, err := t.st.Pending(ctx, chainID)
	if err != nil {
		return 0, err
	}
	if len(pend) > 0 {
		hashes := make([]string, 0, len(pend))
		for h := range pend {
			hashes = append(hashes, h)
		}
		sort.Strings(hashes)
		rs := make([]*evmrpc.Receipt, len(hashes))
		reqs := make([]evmrpc.Request, len(hashes))
		for i, h := range hashes {
			reqs[i] = evmrpc.Request{Method: "eth_getTransactionReceipt", Params: []any{evmHash(h)}, Result: &rs[i]}
		}
		err := cl.Batch(ctx, reqs)
		t.calls.Add(1)
		if err != nil {
			return 0, fmt.Errorf("%s receipts: %w", chainID, err)
		}
		for i, r := range reqs {
			if r.Error != nil || rs[i] == nil || int64(rs[i].BlockNumber) > to {
				continue // not mined yet (or past this pass: the next one stores it)
			}
			rev, err := evmReceiptEvents(chainID, rs[i])
			if err != nil {
				continue
			}
			evs = append(evs, rev...)
		}
	}
	at, err := evmTimes(ctx, cl, evs, to)
	t.calls.Add(1)
	if err != nil {
		return 0, fmt.Errorf("%s block times: %w", chainID, err)
	}
	if err := t.st.SaveBlocks(ctx, chainID, t.cfg.Owner, evs, Cursor{Height: to, Time: at}); err != nil {
		return 0, err
	}
	n := int(to - cur.Height)
	t.blocks.Add(int64(n))
	t.log.Debug("track evm scan", "chain", chainID, "blocks", n, "to", to, "events", len(evs))
	return n, nil
}

// evmScanLoop scans one EVM chain until ctx ends, as scanLoop does a CometBFT chain.
func (t *Tracker) evmScanLoop(ctx context.Context, chainID string, cl *evmrpc.Client, f *failures) {
	t.passLoop(ctx, chainID, func(ctx context.Context) (int, error) { return t.evmScanPass(ctx, chainID, cl) }, evmLogRange, f)
}

// evmStep scans an EVM chain up to its tip (Tracker.Step).
func (t *Tracker) evmStep(ctx context.Context, chainID string) error {
	cl, err := t.evmClient(chainID)
	if err != nil {
		return nil
	}
	for {
		n, err := t.evmScanPass(ctx, chainID, cl)
		if err != nil {
			return err
		}
		if n < evmLogRange {
			return nil
		}
	}
}
