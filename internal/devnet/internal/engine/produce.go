package engine

// Block production: the mempool, then the modules' seeded traffic signed with the genesis
// keys, delivered and committed as the next block.

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// ProduceBlock builds, executes and commits the next block: the mempool first, then the
// modules' traffic intents signed with the genesis keys.
func (c *Chain) ProduceBlock() (*Block, error) {
	b, err := c.produceBlock()
	if err != nil {
		return nil, err
	}
	c.maybePrune()
	return b, nil
}

func (c *Chain) produceBlock() (*Block, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	height := c.height + 1
	btime := c.cfg.GenesisTime.Add(time.Duration(height-1) * c.cfg.BlockInterval)
	txs := c.mempool
	c.mempool = nil
	txs = append(txs, c.trafficTxs(height)...)
	bo := newOverlay(heightView{c.st, c.height})
	var finalize []sim.Event
	if c.cfg.Kind == KindL1 && len(c.feesPrev) > 0 {
		env := c.newEnv(bo, height, btime, nil)
		if err := env.sendRaw(address.ModuleAccount("fee_collector"), address.ModuleAccount("distribution"), c.feesPrev); err != nil {
			// The collector holds exactly the fees it was sent, so this fails only on a
			// bug: say so, and let the block go on without the distribution.
			c.log.Error("fee distribution failed", "chain", c.cfg.ChainID, "height", height, "err", err)
		} else {
			for _, ev := range env.events {
				ev.Attributes = append(ev.Attributes, sim.Attribute{Key: "mode", Value: "BeginBlock", Index: true})
				finalize = append(finalize, ev)
			}
		}
	}
	c.feesPrev = nil
	results := make([]TxResult, len(txs))
	for i, raw := range txs {
		results[i] = c.deliver(bo, height, btime, raw, uint32(i))
	}
	b := c.commitBlock(bo, height, btime, txs, results, finalize)
	c.pending = map[string]uint64{}
	return b, nil
}

func (c *Chain) trafficTxs(height int64) [][]byte {
	if len(c.cfg.Modules) == 0 {
		return nil
	}
	q := &query{c: c, v: heightView{c.st, c.height}, height: c.height}
	seqs := map[int]uint64{}
	var out [][]byte
	for mi, m := range c.cfg.Modules {
		rng := rand.New(rand.NewPCG(c.cfg.Seed^chainSalt(c.cfg.ChainID), uint64(height)<<8|uint64(mi)))
		for _, in := range c.safeTraffic(m, rng, q) {
			if in.Signer < 0 || in.Signer >= len(c.keys) || len(in.Msgs) == 0 {
				continue
			}
			raw, err := c.signIntent(in, seqs)
			if err != nil {
				c.log.Warn("traffic intent dropped", "chain", c.cfg.ChainID, "module", m.Name(), "err", err)
				continue
			}
			out = append(out, raw)
		}
	}
	return out
}

func (c *Chain) safeTraffic(m sim.Module, rng *rand.Rand, q sim.Query) (out []sim.Intent) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("traffic generator panicked; no traffic from it this block", "chain", c.cfg.ChainID, "module", m.Name(), "panic", r)
			out = nil
		}
	}()
	return m.Traffic(rng, q, c.Accounts())
}

func chainSalt(id string) uint64 {
	s := sha256.Sum256([]byte(id))
	return binary.BigEndian.Uint64(s[:8])
}

func (c *Chain) signIntent(in sim.Intent, seqs map[int]uint64) ([]byte, error) {
	key := c.keys[in.Signer]
	acc, ok := getAccount(heightView{c.st, c.height}, key.Address())
	if !ok {
		return nil, errors.New("signer account missing")
	}
	seq, ok := seqs[in.Signer]
	if !ok {
		seq = acc.Sequence
		if p, ok := c.pending[hex.EncodeToString(key.Address())]; ok && p > seq {
			seq = p
		}
	}
	gas := in.GasLimit
	if gas == 0 {
		gas = 300000
	}
	fee := Fee{GasLimit: gas}
	if seq%5 == 4 { // now and then a tx pays a fee, as the fixture's CLI sends do
		amt := big.NewInt(1000)
		if c.cfg.Kind == KindEVM {
			amt = big.NewInt(100000000000000)
		}
		fee.Amount = []Coin{{Denom: c.cfg.FeeDenom, Amount: amt}}
	}
	if c.cfg.Signer != nil {
		raw, ok, err := c.cfg.Signer(c.cfg.ChainID, key, acc.Number, seq, in, fee)
		if err != nil {
			return nil, err
		}
		if ok {
			seqs[in.Signer] = seq + 1
			return raw, nil
		}
	}
	raw, err := SignDirect(c.cfg.ChainID, key, acc.Number, seq, in.Msgs, in.Memo, fee)
	if err != nil {
		return nil, err
	}
	seqs[in.Signer] = seq + 1
	return raw, nil
}

// SignDirect builds and signs a SIGN_MODE_DIRECT transaction with txcodec. The messages are
// packed as they are (PackAny), so the bytes are the ones their sender built.
func SignDirect(chainID string, key *Key, accountNumber, sequence uint64, msgs []proto.Message, memo string, fee Fee) ([]byte, error) {
	anys := make([]proto.Message, 0, len(msgs))
	for _, m := range msgs {
		a, err := PackAny(m)
		if err != nil {
			return nil, err
		}
		anys = append(anys, a)
	}
	b := &txcodec.Builder{ChainID: chainID, Msgs: anys, Memo: memo, Fee: protoCoins(fee.Amount), GasLimit: fee.GasLimit,
		Payer: fee.Payer, Granter: fee.Granter, Signers: []txcodec.Signer{{Key: key.priv, AccountNumber: accountNumber, Sequence: sequence}}}
	raw, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	return raw, nil
}
