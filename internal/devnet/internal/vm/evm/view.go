package evm

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"google.golang.org/protobuf/types/known/anypb"

	evmv1 "github.com/rollgate/rollgate/internal/chain/protos/minievm/evm/v1"
	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// ethTx is one transaction of the Ethereum view of a block: a wrapped Ethereum tx, or a
// successful Cosmos tx shown as a pseudo tx (from 0x0, to null, input = the Cosmos tx hash).
type ethTx struct {
	hash     common.Hash
	cosmos   int // index in the Cosmos block
	index    int // transactionIndex
	tx       *types.Transaction
	from     common.Address
	pseudo   bool
	res      engine.TxResult
	logs     []*types.Log
	created  *common.Address
	msgInput []byte
	msgTo    *common.Address
	value    *big.Int
	msgs     []*anypb.Any // the Cosmos messages (pseudo txs)
}

type ethBlock struct {
	height      int64
	hash        common.Hash
	parent      common.Hash
	time        uint64
	txs         []*ethTx
	gasUsed     uint64
	bloom       types.Bloom
	cblock      *engine.Block
	txRoot      common.Hash
	receiptRoot common.Hash
}

// pseudoChainID is the chain id minievm prints on Cosmos-only pseudo txs.
const pseudoChainID = "0x7fffffffffffffee"

var emptyRoot = common.HexToHash("0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421")

// View derives the Ethereum view of a chain's blocks, caching it per height.
type View struct {
	c      *engine.Chain
	m      *Module
	cid    uint64
	mu     sync.Mutex
	blocks map[int64]*ethBlock
	byHash map[common.Hash]int64 // eth tx hash -> height (indexed up to indexed)
	bhash  map[common.Hash]int64
	indexd int64
	// anchor is the last block the chain pruned: its hash is the parent of the lowest
	// block the view can still build.
	anchorHeight int64
	anchorHash   common.Hash
}

// NewView returns the Ethereum view of an EVM chain.
func NewView(c *engine.Chain, m *Module) *View {
	v := &View{c: c, m: m, cid: m.EVMChainID(c.ChainID()), blocks: map[int64]*ethBlock{},
		byHash: map[common.Hash]int64{}, bhash: map[common.Hash]int64{}}
	c.OnPrune(v.prune)
	return v
}

// prune follows the chain's pruning: before the chain drops the blocks below base, the view
// builds up to base-1 (so the hash chain goes on from there) and then forgets everything
// below base.
func (v *View) prune(base int64) {
	anchor, err := v.block(base - 1)
	if err != nil {
		// The chain still holds base-1 while its prune hooks run; failing here is a bug.
		panic(fmt.Sprintf("evm view: block %d before pruning: %v", base-1, err))
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.anchorHeight, v.anchorHash = base-1, anchor.hash
	for h, b := range v.blocks {
		if h < base {
			delete(v.blocks, h)
			delete(v.bhash, b.hash)
		}
	}
	for th, h := range v.byHash {
		if h < base {
			delete(v.byHash, th)
		}
	}
	v.indexd = max(v.indexd, base-1)
}

// seal computes the transactions and receipts roots and the header hash, so clients that
// rehash headers (go-ethereum's Block.Hash) get the hash the node reports.
func (eb *ethBlock) seal() {
	txs := make(types.Transactions, 0, len(eb.txs))
	rcpts := make(types.Receipts, 0, len(eb.txs))
	var cum uint64
	for _, t := range eb.txs {
		txs = append(txs, t.tx)
		cum += uint64(t.res.GasUsed)
		r := &types.Receipt{Type: t.tx.Type(), CumulativeGasUsed: cum, Logs: t.logs, Status: types.ReceiptStatusSuccessful}
		if t.res.Code != 0 {
			r.Status = types.ReceiptStatusFailed
		}
		r.Bloom = types.CreateBloom(r)
		rcpts = append(rcpts, r)
	}
	// not Merkle-Patricia roots (go-ethereum's trie is outside the module's dependencies):
	// commitments to the same content, empty-root when there is none, as clients check
	eb.txRoot, eb.receiptRoot = emptyRoot, emptyRoot
	if len(txs) > 0 {
		var tb, rb []byte
		for i := range txs {
			enc, _ := txs[i].MarshalBinary()
			tb = append(tb, crypto.Keccak256(enc)...)
			renc, _ := rcpts[i].MarshalBinary()
			rb = append(rb, crypto.Keccak256(renc)...)
		}
		eb.txRoot, eb.receiptRoot = crypto.Keccak256Hash(tb), crypto.Keccak256Hash(rb)
	}
	wr := emptyRoot
	hdr := &types.Header{
		ParentHash: eb.parent, UncleHash: types.EmptyUncleHash, Root: emptyRoot, TxHash: eb.txRoot,
		ReceiptHash: eb.receiptRoot, Bloom: eb.bloom, Difficulty: new(big.Int), Number: new(big.Int).SetInt64(eb.height),
		GasLimit: ^uint64(0), GasUsed: eb.gasUsed, Time: eb.time, Extra: []byte{}, BaseFee: new(big.Int), WithdrawalsHash: &wr,
	}
	eb.hash = hdr.Hash()
	for _, t := range eb.txs {
		for _, l := range t.logs {
			l.BlockHash = eb.hash
		}
	}
}

// block returns the Ethereum view of a height, building it (and any uncached ancestors, whose
// hashes it chains on) first.
func (v *View) block(h int64) (*ethBlock, error) {
	if h < 1 {
		return nil, fmt.Errorf("no block %d", h)
	}
	v.mu.Lock()
	if b, ok := v.blocks[h]; ok {
		v.mu.Unlock()
		return b, nil
	}
	if h <= v.anchorHeight {
		v.mu.Unlock()
		return nil, &engine.PrunedHeightError{Requested: h, Base: v.anchorHeight + 1}
	}
	start := h
	for start > v.anchorHeight+1 {
		if _, ok := v.blocks[start-1]; ok {
			break
		}
		start--
	}
	var parent common.Hash
	switch {
	case start == v.anchorHeight+1:
		parent = v.anchorHash // the zero hash before genesis
	case start > 1:
		parent = v.blocks[start-1].hash
	}
	v.mu.Unlock()
	var eb *ethBlock
	for x := start; x <= h; x++ {
		var err error
		if eb, err = v.build(x, parent); err != nil {
			return nil, err
		}
		parent = eb.hash
	}
	return eb, nil
}

func (v *View) build(h int64, parent common.Hash) (*ethBlock, error) {
	cb, err := v.c.Block(h)
	if err != nil {
		return nil, err
	}
	eb := &ethBlock{height: cb.Height, parent: parent, time: uint64(cb.Time.Unix()), cblock: cb}
	prefix := v.c.Config().Bech32Prefix
	logIndex := uint(0)
	for i, raw := range cb.Txs {
		res := cb.Results[i]
		tx, err := engine.DecodeTx(raw)
		if err != nil {
			continue
		}
		et := &ethTx{cosmos: i, res: res, value: new(big.Int)}
		if IsEthTx(tx) {
			etx, err := EthTxOf(tx, v.cid, prefix)
			if err != nil {
				continue
			}
			et.tx, et.hash = etx, etx.Hash()
			from, _ := engine.AddressOf(tx.Signers[0].PubKeyType, tx.Signers[0].PubKey)
			et.from = common.BytesToAddress(from)
			et.msgInput, et.msgTo, et.value = etx.Data(), etx.To(), etx.Value()
		} else {
			if res.Code != 0 || hasCreate(tx) {
				// failed Cosmos txs, and (as on the real node) Cosmos-side contract creations,
				// do not show in the Ethereum view
				continue
			}
			et.pseudo = true
			et.msgs = tx.Msgs
			th := cb.TxHashes[i]
			et.tx = pseudoTx(th[:])
			et.hash = et.tx.Hash()
		}
		et.index = len(eb.txs) + 1
		for _, ev := range res.Events {
			switch ev.Type {
			case EventType:
				for _, a := range ev.Attributes {
					if a.Key != "log" {
						continue
					}
					var lj struct {
						Address string   `json:"address"`
						Topics  []string `json:"topics"`
						Data    string   `json:"data"`
					}
					if json.Unmarshal([]byte(a.Value), &lj) != nil {
						continue
					}
					l := &types.Log{Address: common.HexToAddress(lj.Address), Data: common.FromHex(lj.Data), BlockNumber: uint64(cb.Height),
						TxHash: et.hash, TxIndex: uint(et.index), Index: logIndex}
					for _, t := range lj.Topics {
						l.Topics = append(l.Topics, common.HexToHash(t))
					}
					logIndex++
					et.logs = append(et.logs, l)
				}
			case "contract_created":
				if et.created == nil && len(ev.Attributes) > 0 && !et.pseudo && et.msgTo == nil {
					a := common.HexToAddress(ev.Attributes[0].Value)
					et.created = &a
				}
			}
		}
		for _, l := range et.logs {
			eb.bloom.Add(l.Address.Bytes())
			for _, t := range l.Topics {
				eb.bloom.Add(t.Bytes())
			}
		}
		eb.gasUsed += uint64(res.GasUsed)
		eb.txs = append(eb.txs, et)
	}
	eb.seal()
	v.mu.Lock()
	v.blocks[h] = eb
	v.bhash[eb.hash] = h
	v.mu.Unlock()
	return eb, nil
}

// txByHash finds an eth tx, indexing new blocks on demand.
func (v *View) txByHash(h common.Hash) (*ethBlock, *ethTx, bool) {
	top := v.c.Height()
	v.mu.Lock()
	from := v.indexd + 1
	v.mu.Unlock()
	for ht := from; ht <= top; ht++ {
		b, err := v.block(ht)
		if err != nil {
			break
		}
		v.mu.Lock()
		for _, t := range b.txs {
			v.byHash[t.hash] = ht
		}
		if ht > v.indexd {
			v.indexd = ht
		}
		v.mu.Unlock()
	}
	v.mu.Lock()
	ht, ok := v.byHash[h]
	v.mu.Unlock()
	if !ok {
		return nil, nil, false
	}
	b, err := v.block(ht)
	if err != nil {
		return nil, nil, false
	}
	for _, t := range b.txs {
		if t.hash == h {
			return b, t, true
		}
	}
	return nil, nil, false
}

func (v *View) blockByHash(h common.Hash) (*ethBlock, bool) {
	v.txByHash(common.Hash{}) // index up to the tip
	v.mu.Lock()
	ht, ok := v.bhash[h]
	v.mu.Unlock()
	if !ok {
		return nil, false
	}
	b, err := v.block(ht)
	return b, err == nil
}

// pseudoTx is how minievm shows a Cosmos-only tx: an unsigned legacy tx carrying the Cosmos
// tx hash as input (its hash is what the real node reports).
func pseudoTx(cosmosHash []byte) *types.Transaction {
	return types.NewTx(&types.LegacyTx{Data: append([]byte(nil), cosmosHash...)})
}

func hexU(v uint64) string { return hexutil.EncodeUint64(v) }

func (v *View) txJSON(b *ethBlock, t *ethTx) ordered {
	o := ordered{
		{"blockHash", b.hash.Hex()}, {"blockNumber", hexU(uint64(b.height))},
	}
	if t.pseudo {
		return append(o, ordered{
			{"from", common.Address{}.Hex()}, {"gas", "0x0"}, {"gasPrice", "0x0"}, {"maxFeePerGas", "0x0"}, {"maxPriorityFeePerGas", "0x0"},
			{"hash", t.hash.Hex()}, {"input", hexutil.Encode(t.tx.Data())}, {"nonce", "0x0"}, {"to", nil},
			{"transactionIndex", hexU(uint64(t.index))}, {"value", "0x0"}, {"type", "0x0"}, {"chainId", pseudoChainID},
			{"v", "0x0"}, {"r", "0x0"}, {"s", "0x0"},
		}...)
	}
	tx := t.tx
	vv, r, s := tx.RawSignatureValues()
	var to any
	if tx.To() != nil {
		to = strings.ToLower(tx.To().Hex())
	}
	o = append(o, ordered{
		{"from", strings.ToLower(t.from.Hex())}, {"gas", hexU(tx.Gas())}, {"gasPrice", (*hexutil.Big)(tx.GasFeeCap()).String()},
		{"maxFeePerGas", (*hexutil.Big)(tx.GasFeeCap()).String()}, {"maxPriorityFeePerGas", (*hexutil.Big)(tx.GasTipCap()).String()},
		{"hash", t.hash.Hex()}, {"input", hexutil.Encode(tx.Data())}, {"nonce", hexU(tx.Nonce())}, {"to", to},
		{"transactionIndex", hexU(uint64(t.index))}, {"value", (*hexutil.Big)(tx.Value()).String()}, {"type", hexU(uint64(tx.Type()))},
	}...)
	if tx.Type() == types.DynamicFeeTxType {
		o = append(o, kv{"accessList", []any{}})
	}
	o = append(o, kv{"chainId", hexU(v.cid)}, kv{"v", (*hexutil.Big)(vv).String()}, kv{"r", (*hexutil.Big)(r).String()}, kv{"s", (*hexutil.Big)(s).String()})
	if tx.Type() == types.DynamicFeeTxType {
		o = append(o, kv{"yParity", (*hexutil.Big)(vv).String()})
	}
	return o
}

func (v *View) blockJSON(b *ethBlock, full bool) ordered {
	txs := []any{}
	for _, t := range b.txs {
		if full {
			txs = append(txs, v.txJSON(b, t))
		} else {
			txs = append(txs, t.hash.Hex())
		}
	}
	// go-ethereum marshals blocks from a map, so the real node's keys are sorted
	return ordered{
		{"baseFeePerGas", "0x0"}, {"difficulty", "0x0"}, {"extraData", "0x"}, {"gasLimit", "0xffffffffffffffff"},
		{"gasUsed", hexU(b.gasUsed)}, {"hash", b.hash.Hex()}, {"logsBloom", hexutil.Encode(b.bloom.Bytes())},
		{"miner", common.Address{}.Hex()}, {"mixHash", common.Hash{}.Hex()}, {"nonce", "0x0000000000000000"},
		{"number", hexU(uint64(b.height))}, {"parentHash", b.parent.Hex()}, {"receiptsRoot", b.receiptRoot.Hex()},
		{"sha3Uncles", types.EmptyUncleHash.Hex()}, {"size", "0x0"}, {"stateRoot", emptyRoot.Hex()},
		{"timestamp", hexU(b.time)}, {"transactions", txs}, {"transactionsRoot", b.txRoot.Hex()},
		{"uncles", []any{}}, {"withdrawals", []any{}}, {"withdrawalsRoot", emptyRoot.Hex()},
	}
}

func logJSON(l *types.Log) ordered {
	topics := make([]string, 0, len(l.Topics))
	for _, t := range l.Topics {
		topics = append(topics, t.Hex())
	}
	return ordered{
		{"address", strings.ToLower(l.Address.Hex())}, {"topics", topics}, {"data", hexutil.Encode(l.Data)},
		{"blockNumber", hexU(l.BlockNumber)}, {"transactionHash", l.TxHash.Hex()}, {"transactionIndex", hexU(uint64(l.TxIndex))},
		{"blockHash", l.BlockHash.Hex()}, {"logIndex", hexU(uint64(l.Index))}, {"removed", false},
	}
}

func (v *View) receiptJSON(b *ethBlock, t *ethTx, cumulative uint64) ordered {
	logs := []any{}
	var bloom types.Bloom
	for _, l := range t.logs {
		logs = append(logs, logJSON(l))
		bloom.Add(l.Address.Bytes())
		for _, tp := range l.Topics {
			bloom.Add(tp.Bytes())
		}
	}
	var created, to any
	if t.created != nil {
		created = strings.ToLower(t.created.Hex())
	}
	from := common.Address{}
	typ := uint64(0)
	if !t.pseudo {
		from = t.from
		typ = uint64(t.tx.Type())
		if t.tx.To() != nil {
			to = strings.ToLower(t.tx.To().Hex())
		}
	}
	status := "0x1"
	if t.res.Code != 0 {
		status = "0x0"
	}
	return ordered{
		{"blockHash", b.hash.Hex()}, {"blockNumber", hexU(uint64(b.height))}, {"contractAddress", created},
		{"cumulativeGasUsed", hexU(cumulative)}, {"effectiveGasPrice", "0x0"}, {"from", strings.ToLower(from.Hex())},
		{"gasUsed", hexU(uint64(t.res.GasUsed))}, {"logs", logs}, {"logsBloom", hexutil.Encode(bloom.Bytes())},
		{"status", status}, {"to", to}, {"transactionHash", t.hash.Hex()}, {"transactionIndex", hexU(uint64(t.index))},
		{"type", hexU(typ)},
	}
}

func (v *View) receipts(b *ethBlock) []any {
	out := []any{}
	var cum uint64
	for _, t := range b.txs {
		cum += uint64(t.res.GasUsed)
		out = append(out, v.receiptJSON(b, t, cum))
	}
	return out
}

func (v *View) receipt(b *ethBlock, want *ethTx) ordered {
	var cum uint64
	for _, t := range b.txs {
		cum += uint64(t.res.GasUsed)
		if t == want {
			return v.receiptJSON(b, t, cum)
		}
	}
	return nil
}

// --- callTracer ---

var (
	decimalsInput  = hexutil.Encode(contractABI.Methods["decimals"].ID)
	decimalsOutput = hexutil.Encode(packOut("decimals", uint8(18)))
	zeroAddr       = strings.ToLower(common.Address{}.Hex())
)

func hasCreate(tx *engine.Tx) bool {
	for _, m := range tx.Msgs {
		if m.TypeUrl == "/minievm.evm.v1.MsgCreate" {
			return true
		}
	}
	return false
}

// Precompiles the real ERC-20s consult on every transfer (seen in the captured traces).
var (
	precompileF1 = common.BytesToAddress([]byte{0xf1})
	precompileF2 = common.BytesToAddress([]byte{0xf2})
	selF1        = common.FromHex("0xf2af9ac9")
	selF2        = common.FromHex("0x4e25ab64")
	selSudo      = common.FromHex("0x1988513b")
)

func lower(a common.Address) string { return strings.ToLower(a.Hex()) }

// tracer hands out decreasing gas figures so frames look like nested executions.
type tracer struct {
	v      *View
	budget uint64
}

func (tr *tracer) gas() uint64 {
	tr.budget -= tr.budget / 9
	return tr.budget
}

// frame renders one call; g is the gas it was given (taken before its children's, so a
// child never gets more than its parent).
func (tr *tracer) frame(g uint64, typ string, from, to common.Address, input []byte, output []byte, value *big.Int, calls []any) ordered {
	f := ordered{{"from", lower(from)}, {"gas", hexU(g)}, {"gasUsed", hexU(g / 7)}, {"to", lower(to)}, {"input", hexutil.Encode(input)}}
	if output != nil {
		f = append(f, kv{"output", hexutil.Encode(output)})
	}
	if len(calls) > 0 {
		f = append(f, kv{"calls", calls})
	}
	if value != nil {
		f = append(f, kv{"value", (*hexutil.Big)(value).String()})
	}
	return append(f, kv{"type", typ})
}

func (tr *tracer) decimals() ordered {
	return tr.frame(tr.gas(), "STATICCALL", common.Address{}, DenomContract(tr.v.m.cfg.FeeDenom), common.FromHex(decimalsInput), common.FromHex(decimalsOutput), nil, nil)
}

// recipientChecks are the two precompile lookups an ERC-20 makes about a recipient.
func (tr *tracer) recipientChecks(token, recipient common.Address) []any {
	arg := common.LeftPadBytes(recipient.Bytes(), 32)
	zero := make([]byte, 32)
	return []any{
		tr.frame(tr.gas(), "STATICCALL", token, precompileF1, append(append([]byte(nil), selF1...), arg...), zero, nil, nil),
		tr.frame(tr.gas(), "STATICCALL", token, precompileF2, append(append([]byte(nil), selF2...), arg...), zero, nil, nil),
	}
}

// inner is what a call does below its own frame.
func (tr *tracer) inner(from common.Address, to *common.Address, input []byte, value *big.Int) []any {
	if to == nil {
		return nil
	}
	if len(input) == 0 && value != nil && value.Sign() > 0 {
		gasToken := DenomContract(tr.v.m.cfg.FeeDenom)
		bal := append(append([]byte(nil), contractABI.Methods["balanceOf"].ID...), common.LeftPadBytes(from.Bytes(), 32)...)
		xfer, _ := Pack("transfer", *to, value)
		first := tr.frame(tr.gas(), "STATICCALL", common.Address{}, gasToken, bal, make([]byte, 32), nil, nil)
		g := tr.gas()
		return []any{first, tr.frame(g, "CALL", from, gasToken, xfer, trueWord, new(big.Int), tr.recipientChecks(gasToken, *to))}
	}
	name, args, err := methodBySelector(input)
	if err != nil {
		return nil
	}
	switch name {
	case "transfer", "mint":
		return tr.recipientChecks(*to, args[0].(common.Address))
	case "transferFrom":
		if r, ok := args[1].(common.Address); ok {
			return tr.recipientChecks(*to, r)
		}
	}
	return nil
}

// trace renders a callTracer result: the fee-deduction decimals() lookups, then the frames of
// the tx's EVM calls (the main call of an Ethereum tx; for a Cosmos tx, each MsgCall and each
// ERC-20 movement the bank makes), with the precompile lookups the real ERC-20s do.
func (v *View) trace(t *ethTx) ordered {
	gas := uint64(t.res.GasWanted)
	tr := &tracer{v: v, budget: gas}
	top := ordered{{"from", zeroAddr}, {"gas", hexU(gas)}, {"gasUsed", hexU(uint64(t.res.GasUsed))}, {"to", zeroAddr}, {"input", "0x"}}
	var calls []any
	if !t.pseudo {
		calls = append(calls, tr.decimals(), tr.decimals())
		typ, to := "CALL", common.Address{}
		if t.msgTo == nil {
			typ = "CREATE"
			if t.created != nil {
				to = *t.created
			}
		} else {
			to = *t.msgTo
		}
		var out []byte
		var inner []any
		g := tr.gas()
		switch {
		case t.res.Code != 0:
			out = []byte{}
		case typ == "CREATE":
			out = t.msgInput
		default:
			if r := retOf(t.res.Events); r != "0x" {
				out = common.FromHex(r)
			}
			inner = tr.inner(t.from, t.msgTo, t.msgInput, t.value)
		}
		main := tr.frame(g, typ, t.from, to, t.msgInput, out, t.value, inner)
		if t.res.Code != 0 {
			top = append(top, kv{"output", "0x"}, kv{"error", "execution reverted"})
			main = insertAfter(main, "output", kv{"error", "execution reverted"})
		}
		calls = append(calls, main)
		return append(top, kv{"calls", calls}, kv{"type", "CALL"})
	}
	evs := t.res.Events
	for i, ev := range evs {
		if ev.Type != "call" || attrOf(ev, "msg_index") == "" {
			continue
		}
		contract := common.HexToAddress(attrOf(ev, "contract"))
		calls = append(calls, tr.decimals())
		if mc := msgCallAt(t.msgs, attrOf(ev, "msg_index")); mc != nil && strings.EqualFold(mc.GetContractAddr(), contract.Hex()) {
			from, _ := parseAddr("init", mc.GetSender())
			input := common.FromHex(mc.GetInput())
			value, _ := parseValue(mc.GetValue())
			var out []byte
			if r := attrOf(ev, "ret"); r != "0x" {
				out = common.FromHex(r)
			}
			g := tr.gas()
			calls = append(calls, tr.frame(g, "CALL", from, contract, input, out, value, tr.inner(from, &contract, input, value)))
			continue
		}
		// a bank movement: the bank module calls the ERC-20's sudoTransfer
		if i+1 < len(evs) && evs[i+1].Type == EventType {
			var lj struct {
				Topics []string `json:"topics"`
				Data   string   `json:"data"`
			}
			if json.Unmarshal([]byte(attrOf(evs[i+1], "log")), &lj) == nil && len(lj.Topics) == 3 {
				input := append(append([]byte(nil), selSudo...), common.FromHex(lj.Topics[1])...)
				input = append(append(input, common.FromHex(lj.Topics[2])...), common.FromHex(lj.Data)...)
				to := common.HexToAddress(lj.Topics[2])
				arg := common.LeftPadBytes(to.Bytes(), 32)
				g := tr.gas()
				check := tr.frame(tr.gas(), "STATICCALL", contract, precompileF2, append(append([]byte(nil), selF2...), arg...), make([]byte, 32), nil, nil)
				calls = append(calls, tr.frame(g, "CALL", common.Address{}, contract, input, nil, new(big.Int), []any{check}))
			}
		}
	}
	return append(top, kv{"calls", calls}, kv{"type", "CALL"})
}

func insertAfter(o ordered, key string, e kv) ordered {
	for i, x := range o {
		if x.k == key {
			out := append(ordered{}, o[:i+1]...)
			out = append(out, e)
			return append(out, o[i+1:]...)
		}
	}
	return append(o, e)
}

func attrOf(ev sim.Event, key string) string {
	for _, a := range ev.Attributes {
		if a.Key == key {
			return a.Value
		}
	}
	return ""
}

func msgCallAt(msgs []*anypb.Any, idx string) *evmv1.MsgCall {
	i, err := strconv.Atoi(idx)
	if err != nil || i < 0 || i >= len(msgs) || msgs[i].TypeUrl != "/minievm.evm.v1.MsgCall" {
		return nil
	}
	m, err := engine.DecodeAny(msgs[i].TypeUrl, msgs[i].Value)
	if err != nil {
		return nil
	}
	mc, _ := m.(*evmv1.MsgCall)
	return mc
}

func retOf(evs []sim.Event) string {
	for _, e := range evs {
		if e.Type == "call" {
			for _, a := range e.Attributes {
				if a.Key == "ret" {
					return a.Value
				}
			}
		}
	}
	return "0x"
}
