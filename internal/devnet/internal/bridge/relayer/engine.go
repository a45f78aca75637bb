package relayer

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
)

// EngineChain adapts an in-process devnet chain: blocks are read from the engine's
// store and transactions are signed (SIGN_MODE_DIRECT) with the bot keys it is given and
// submitted through the chain's broadcast_tx_sync path (CheckTx included).
type EngineChain struct {
	Chain *engine.Chain
	// GasLimit of every relayer tx (default 2,000,000).
	GasLimit uint64

	mu   sync.Mutex
	keys map[string]*engine.Key
	sent map[string]sent
}

type sent struct {
	height int64
	seq    uint64
}

var _ Chain = (*EngineChain)(nil)

// NewEngineChain wraps c; keys are the accounts the relayer may sign with (relayer and,
// on rollups, executor), looked up by their bech32 address on c.
func NewEngineChain(c *engine.Chain, keys ...*engine.Key) *EngineChain {
	e := &EngineChain{Chain: c, keys: map[string]*engine.Key{}, sent: map[string]sent{}}
	for _, k := range keys {
		e.keys[engine.Bech32(c.Config().Bech32Prefix, k.Address())] = k
	}
	return e
}

// ChainID implements Chain.
func (e *EngineChain) ChainID() string { return e.Chain.ChainID() }

// LatestHeight implements Chain.
func (e *EngineChain) LatestHeight(context.Context) (int64, error) { return e.Chain.Height(), nil }

// Block implements Chain.
func (e *EngineChain) Block(_ context.Context, h int64) (Block, error) {
	b, err := e.Chain.Block(h)
	if err != nil {
		return Block{}, err
	}
	out := Block{Height: b.Height, Time: b.Time, BlockEvents: b.FinalizeEvents}
	for _, r := range b.Results {
		if r.Code == 0 {
			out.TxEvents = append(out.TxEvents, r.Events)
		}
	}
	return out, nil
}

// Broadcast implements Chain. Sequences of txs sent while the mempool still holds earlier
// ones are counted locally, as a client would.
func (e *EngineChain) Broadcast(_ context.Context, signer string, msgs []proto.Message) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	k, ok := e.keys[signer]
	if !ok {
		return fmt.Errorf("no key for %s on %s", signer, e.ChainID())
	}
	gas := e.GasLimit
	if gas == 0 {
		gas = 2_000_000
	}
	// A block committed between reading the sequence and CheckTx makes the first attempt
	// stale, and a tx of the same signer that this adapter did not send (another adapter on
	// the chain, a restart) may wait in the mempool; the retry uses the sequence the mismatch
	// answer names, as a relayer does with a node's answer.
	var res engine.CheckResult
	var h int64
	var seq, expected uint64
	for attempt := 0; attempt < 2; attempt++ {
		num, s, ok := e.Chain.AccountState(k.Address())
		if !ok {
			return fmt.Errorf("account %s does not exist on %s", signer, e.ChainID())
		}
		seq = max(s, expected)
		h = e.Chain.Height()
		if prev, ok := e.sent[signer]; ok && prev.height == h && prev.seq >= seq {
			seq = prev.seq + 1
		}
		raw, err := engine.SignDirect(e.ChainID(), k, num, seq, msgs, "", engine.Fee{GasLimit: gas})
		if err != nil {
			return err
		}
		res = e.Chain.BroadcastTxSync(raw)
		if res.Code != 32 { // 32: account sequence mismatch
			break
		}
		delete(e.sent, signer)
		expected = expectedSequence(res.Log)
	}
	if res.Code != 0 {
		return fmt.Errorf("broadcast: code %d (%s): %s", res.Code, res.Codespace, res.Log)
	}
	e.sent[signer] = sent{height: h, seq: seq}
	return nil
}

// expectedSequence is the sequence a mismatch answer ("account sequence mismatch, expected
// 24, got 23: …") asks for; 0 when the answer names none.
func expectedSequence(log string) uint64 {
	_, rest, ok := strings.Cut(log, "expected ")
	if !ok {
		return 0
	}
	digits, _, _ := strings.Cut(rest, ",")
	n, err := strconv.ParseUint(digits, 10, 64)
	if err != nil {
		return 0
	}
	return n
}
