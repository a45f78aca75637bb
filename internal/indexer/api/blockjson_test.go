package api

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/store"
)

// refBlockJSON is the block object as it was encoded through encoding/json before
// appendBlockJSON: the reference its bytes must equal.
type refBlockJSON struct {
	ChainID   string          `json:"chain_id"`
	Height    string          `json:"height"`
	Hash      string          `json:"hash"`
	BlockTime string          `json:"block_time"`
	Timestamp string          `json:"timestamp"`
	GasUsed   string          `json:"gas_used"`
	GasWanted string          `json:"gas_wanted"`
	TxCount   string          `json:"tx_count"`
	TotalFee  json.RawMessage `json:"total_fee"`
	Proposer  *store.Proposer `json:"proposer"`
}

func refBlock(t *testing.T, b store.Block) []byte {
	t.Helper()
	fee := b.TotalFee
	if len(fee) == 0 {
		fee = json.RawMessage("null")
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(refBlockJSON{
		ChainID:   b.ChainID,
		Height:    strconv.FormatInt(b.Height, 10),
		Hash:      strings.ToUpper(hex.EncodeToString(b.Hash)),
		BlockTime: strconv.FormatInt(b.BlockTimeMs, 10),
		Timestamp: b.Time.UTC().Format(time.RFC3339),
		GasUsed:   strconv.FormatInt(b.GasUsed, 10),
		GasWanted: strconv.FormatInt(b.GasWanted, 10),
		TxCount:   strconv.Itoa(b.TxCount),
		TotalFee:  fee,
		Proposer:  b.Proposer,
	}); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// TestBlockJSON: appendBlockJSON writes what encoding/json wrote, for plain blocks and for
// every string and stored-JSON case its fast paths step aside for.
func TestBlockJSON(t *testing.T) {
	base := store.Block{
		ChainID: "local-evm-1", Height: 100, Hash: bytes.Repeat([]byte{0x6f, 0x00, 0xab}, 11),
		Time: time.Date(2026, 11, 21, 9, 7, 54, 123456789, time.UTC), BlockTimeMs: 10049,
		GasUsed: 21000, GasWanted: 30000, TxCount: 2, TotalFee: json.RawMessage(`[{"denom":"uinit","amount":"5"}]`),
		Proposer: &store.Proposer{Moniker: "node0", OperatorAddress: "initvaloper16qxj4ztxcdtvdaktm3n9ccv0slsut3pquefa7d"},
	}
	cases := []struct {
		name string
		edit func(b *store.Block)
	}{
		{"plain", func(*store.Block) {}},
		{"no proposer, no fee, no hash", func(b *store.Block) { b.Proposer, b.TotalFee, b.Hash = nil, nil, nil }},
		{"empty fee array", func(b *store.Block) { b.TotalFee = json.RawMessage(`[]`) }},
		{"fee with whitespace", func(b *store.Block) { b.TotalFee = json.RawMessage("[ {\"denom\" : \"u\",\n\"amount\":\"1\"} ]") }},
		{"non-UTC time", func(b *store.Block) { b.Time = b.Time.In(time.FixedZone("x", 3600)) }},
		{"negative and large numbers", func(b *store.Block) { b.Height, b.GasUsed, b.BlockTimeMs = 1<<62, -1, 0 }},
		{"HTML and quotes in the moniker", func(b *store.Block) {
			b.Proposer = &store.Proposer{Moniker: `<b>"A&B"</b> \ /`, Identity: "id"}
		}},
		{"control characters", func(b *store.Block) { b.Proposer = &store.Proposer{Moniker: "a\tb\nc\x01\x7f"} }},
		{"unicode, U+2028, invalid UTF-8", func(b *store.Block) {
			b.Proposer = &store.Proposer{Moniker: "nœud 節点 \u2028\u2029 \xff\xfe"}
			b.ChainID = "chaîne-1"
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := base
			c.edit(&b)
			got := appendBlockJSON([]byte("prefix"), &b)
			want := append([]byte("prefix"), refBlock(t, b)...)
			if !bytes.Equal(got, want) {
				t.Fatalf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}
