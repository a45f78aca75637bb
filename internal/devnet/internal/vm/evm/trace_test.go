package evm

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
)

type frame struct {
	From  string  `json:"from"`
	Gas   string  `json:"gas"`
	To    string  `json:"to"`
	Input string  `json:"input"`
	Error string  `json:"error"`
	Type  string  `json:"type"`
	Calls []frame `json:"calls"`
}

func checkGas(t *testing.T, f frame, parent uint64) {
	t.Helper()
	g, err := hexutil.DecodeUint64(f.Gas)
	if err != nil || g > parent {
		t.Fatalf("frame %s→%s gas %s above its parent's %d", f.From, f.To, f.Gas, parent)
	}
	for _, c := range f.Calls {
		checkGas(t, c, g)
	}
}

// TestTraces: every traced tx starts with the fee decimals() lookups, has one frame per EVM
// call of the tx, gives no child more gas than its parent, and marks reverts.
func TestTraces(t *testing.T) {
	c, m := newEVMChain(t, 5)
	for i := 0; i < 40; i++ {
		if _, err := c.ProduceBlock(); err != nil {
			t.Fatal(err)
		}
	}
	v := NewView(c, m)
	seen := map[string]int{}
	for h := int64(1); h <= c.Height(); h++ {
		b, err := v.block(h)
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range b.txs {
			raw, _ := json.Marshal(v.trace(tx))
			var f frame
			if err := json.Unmarshal(raw, &f); err != nil {
				t.Fatal(err)
			}
			checkGas(t, f, uint64(tx.res.GasWanted))
			if len(f.Calls) == 0 || f.Calls[0].Input != decimalsInput {
				t.Fatalf("h%d: no fee lookup first: %s", h, raw)
			}
			calls := 0
			for _, ev := range tx.res.Events {
				if ev.Type == "call" && attrOf(ev, "msg_index") != "" {
					calls++
				}
			}
			frames := 0
			for _, c := range f.Calls {
				if c.Type != "STATICCALL" {
					frames++
				}
			}
			switch {
			case tx.pseudo:
				seen["cosmos"]++
				if frames != calls {
					t.Fatalf("h%d: %d call events, %d frames: %s", h, calls, frames, raw)
				}
			case tx.res.Code != 0:
				seen["reverted"]++
				if f.Error != "execution reverted" {
					t.Fatalf("h%d: revert not marked: %s", h, raw)
				}
			default:
				seen["eth "+strconv.Itoa(len(f.Calls[len(f.Calls)-1].Calls))+" inner"]++
			}
		}
	}
	if seen["cosmos"] == 0 || seen["reverted"] == 0 {
		t.Fatalf("traffic lacks kinds: %v", seen)
	}
	t.Logf("%v", seen)
}
