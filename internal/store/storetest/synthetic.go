// Package storetest writes deterministic synthetic chains into a store.Writer, for `rollgate
// bench`, benchmarks and tests that need volume rather than realism. It is kept out of package
// store so the production store carries no bench-only code.
package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/store"
)

// Options shapes the data Fill writes. Zero values take the defaults.
type Options struct {
	ChainID     string    // default "bench-1"
	TxsPerBlock int       // default 10
	Accounts    int       // size of the account pool, default 1000
	BatchBlocks int       // blocks per WriteBlocks call, default 200
	Start       time.Time // time of the first block, default 2026-01-01T00:00:00Z; blocks are 500 ms apart
	Prefix      string    // bech32 prefix in the tx JSON, default "init"
}

// MsgTypes are the message types Fill uses: a tx's type is
// MsgTypes[sequence%10 among 0..7 → 0, 8 → 1, 9 → 2], so MsgSend dominates.
var MsgTypes = []string{"cosmos.bank.v1beta1.MsgSend", "minievm.evm.v1.MsgCall", "cosmos.authz.v1beta1.MsgExec"}

// Account is the i-th account of Fill's pool (20 bytes).
func Account(i int) []byte {
	h := sha256.Sum256([]byte("rollgate-synthetic-account-" + strconv.Itoa(i)))
	return h[:20]
}

// Fill appends n synthetic txs (in whole blocks) after the store's indexed height,
// in large WriteBlocks batches so the backend's bulk path (COPY on PostgreSQL) does the work.
// Tx sequence s is signed by account s%Accounts and sends to account (s*7+1)%Accounts.
// It is meant for `rollgate bench` and benchmarks; the data is deterministic.
func Fill(ctx context.Context, w store.Writer, n int, o Options) error {
	if o.ChainID == "" {
		o.ChainID = chainID(ctx, w)
	}
	if o.TxsPerBlock <= 0 {
		o.TxsPerBlock = 10
	}
	if o.Accounts <= 0 {
		o.Accounts = 1000
	}
	if o.BatchBlocks <= 0 {
		o.BatchBlocks = 200
	}
	if o.Start.IsZero() {
		o.Start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	if o.Prefix == "" {
		o.Prefix = "init"
	}
	bech := make([]string, o.Accounts)
	for i := range bech {
		s, err := address.Bech32(o.Prefix, Account(i))
		if err != nil {
			return err
		}
		bech[i] = s
	}
	h, err := w.IndexedHeight(ctx)
	if err != nil {
		return err
	}
	// Hashes and amounts derive from the sequence, so continue from the stored one (a Writer
	// that cannot be read is assumed to hold whole synthetic blocks of this shape).
	seq := h * int64(o.TxsPerBlock)
	if r, ok := w.(store.Reader); ok {
		page, err := r.Txs(ctx, store.TxFilter{}, store.Page{Limit: 1, Desc: true})
		if err != nil {
			return err
		}
		seq = 0
		if len(page.Txs) > 0 {
			seq = page.Txs[0].Sequence
		}
	}
	var batch []store.BlockBundle
	for written := 0; written < n; {
		h++
		bt := o.Start.Add(time.Duration(h-1) * 500 * time.Millisecond)
		b := store.BlockBundle{Block: store.Block{ChainID: o.ChainID, Height: h, Time: bt, BlockTimeMs: 500,
			Proposer: &store.Proposer{Moniker: "bench", OperatorAddress: "initvaloper1bench"}}}
		if h == 1 {
			b.Block.BlockTimeMs = 0
		}
		hh := sha256.Sum256(binary.BigEndian.AppendUint64(nil, uint64(h)))
		b.Block.Hash = hh[:]
		for i := 0; i < o.TxsPerBlock && written < n; i++ {
			seq++
			written++
			from, to := int(seq%int64(o.Accounts)), int((seq*7+1)%int64(o.Accounts))
			mt := MsgTypes[0]
			switch seq % 10 {
			case 8:
				mt = MsgTypes[1]
			case 9:
				mt = MsgTypes[2]
			}
			th := sha256.Sum256(binary.BigEndian.AppendUint64([]byte("tx"), uint64(seq)))
			accs := []store.TxAccount{{Addr: Account(from), Signer: true}}
			if to != from {
				accs = append(accs, store.TxAccount{Addr: Account(to)})
			}
			b.Txs = append(b.Txs, store.Tx{Hash: th[:], Height: h, Index: i, Signer: Account(from), MsgTypes: []string{mt},
				Accounts: accs, JSON: syntheticTxJSON(th[:], h, bt, mt, bech[from], bech[to], seq)})
			b.Block.GasUsed += 100000
			b.Block.GasWanted += 200000
		}
		b.Block.TxCount = len(b.Txs)
		if len(b.Txs) > 0 {
			b.Block.TotalFee = json.RawMessage(fmt.Sprintf(`[{"denom":"umin","amount":"%d"}]`, 1000*len(b.Txs)))
		}
		batch = append(batch, b)
		if len(batch) == o.BatchBlocks || written == n {
			if err := w.WriteBlocks(ctx, batch); err != nil {
				return fmt.Errorf("fill synthetic at height %d: %w", h, err)
			}
			batch = batch[:0]
		}
	}
	return nil
}

// syntheticTxJSON renders a Tx object shaped like the chain's (field order and string-typed
// numbers as rollytics stores them), about 1.3 kB.
func syntheticTxJSON(hash []byte, h int64, t time.Time, msgType, from, to string, seq int64) json.RawMessage {
	var b strings.Builder
	hs := strings.ToUpper(hex.EncodeToString(hash))
	fmt.Fprintf(&b, `{"txhash":%q,"height":"%d","codespace":"","code":0,"data":"12260A242F636F736D6F732E62616E6B2E763162657461312E4D736753656E64526573706F6E7365","raw_log":"","logs":[],"info":"","gas_wanted":"200000","gas_used":"100000",`, hs, h)
	fmt.Fprintf(&b, `"tx":{"body":{"messages":[{"@type":"/%s","from_address":%q,"to_address":%q,"amount":[{"denom":"umin","amount":"%d"}]}],"memo":"","timeout_height":"0","extension_options":[],"non_critical_extension_options":[]},`, msgType, from, to, seq)
	fmt.Fprintf(&b, `"auth_info":{"signer_infos":[{"public_key":{"@type":"/initia.crypto.v1beta1.ethsecp256k1.PubKey","key":"AwN/QHZvvIOeG2mhloXOQvlnp0qH1ZelLvUlgQSEkIsz"},"mode_info":{"single":{"mode":"SIGN_MODE_DIRECT"}},"sequence":"%d"}],"fee":{"amount":[{"denom":"umin","amount":"1000"}],"gas_limit":"200000","payer":"","granter":""},"tip":null},"signatures":["l6kARUJdMBN/teOBrkhtfmT9Yak1ztluQrpYhLWYYXRqHC2BLpYWecGBBsJpmKp4yilmJZmz5CMYmcR1Vtoa3Bw="]},`, seq)
	fmt.Fprintf(&b, `"timestamp":%q,"events":[{"type":"message","attributes":[{"key":"action","value":"/%s","index":true},{"key":"sender","value":%q,"index":true},{"key":"msg_index","value":"0","index":true}]},{"type":"transfer","attributes":[{"key":"recipient","value":%q,"index":true},{"key":"sender","value":%q,"index":true},{"key":"amount","value":"%dumin","index":true}]}]}`,
		t.UTC().Format(time.RFC3339Nano), msgType, from, to, from, seq)
	return json.RawMessage(b.String())
}

// chainID is the chain id of the blocks a fill appends: the stored chain's when the store holds
// one (its writes refuse blocks of another chain id), else "bench-1".
func chainID(ctx context.Context, w store.Writer) string {
	if c, ok := w.(interface {
		ChainIdentity(ctx context.Context) (store.ChainIdentity, bool, error)
	}); ok {
		if id, ok, err := c.ChainIdentity(ctx); err == nil && ok {
			return id.ChainID
		}
	}
	return "bench-1"
}
