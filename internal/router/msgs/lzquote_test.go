package msgs

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/holiman/uint256"

	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// TestChainLZQuoter: the Move quote is the OFT's quote_send view over REST with BCS arguments
// (read back here), the EVM quote an eth_call of quoteSend; each answer's native fee is the
// quote, and an answer that is not a fee is an error.
func TestChainLZQuoter(t *testing.T) {
	var moveBody map[string]any
	rest := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/initia/move/v1/view" || json.Unmarshal(b, &moveBody) != nil {
			http.Error(w, `{"code":5,"message":"not found"}`, 404)
			return
		}
		_, _ = io.WriteString(w, `{"data":"[\"100000\",\"0\"]","events":[],"gas_used":"1"}`)
	}))
	defer rest.Close()
	var evmCall map[string]any
	rpc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params []any           `json:"params"`
		}
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &req)
		evmCall = req.Params[0].(map[string]any)
		fee := strings.Repeat("0", 59) + "186a0" + strings.Repeat("0", 64) // 100000, 0
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":"0x`+fee+`"}`)
	}))
	defer rpc.Close()

	q := &ChainLZQuoter{Options: []httpx.Option{httpx.WithMaxAttempts(1)}}
	l1 := &registry.Chain{ID: "l1", Type: registry.ChainTypeCosmos, L1: true, REST: []string{rest.URL}}
	eth := &registry.Chain{ID: "31337", Type: registry.ChainTypeEVM, JSONRPC: []string{rpc.URL}}
	var to [32]byte
	to[31] = 0xe4
	sender := "init1qyqszqgpqyqszqgpqyqszqgpqyqszqgpu9pdx7" // 0x0101…01
	amt, min := uint256.NewInt(1_000_000), uint256.NewInt(990_000)

	fee, err := q.QuoteLayerZero(context.Background(), LZQuote{Chain: l1, OFT: "0xabc", DstEID: 40161, To: to, Sender: sender, Amount: amt, MinAmount: min})
	if err != nil || fee != "100000" {
		t.Fatalf("move quote %q, %v", fee, err)
	}
	if moveBody["address"] != "0xabc" || moveBody["module_name"] != "oft" || moveBody["function_name"] != "quote_send" {
		t.Fatalf("view body %v", moveBody)
	}
	args := moveBody["args"].([]any)
	arg := func(i int) []byte { b, _ := base64.StdEncoding.DecodeString(args[i].(string)); return b }
	if len(args) != 9 || hex.EncodeToString(arg(0)) != strings.Repeat("00", 12)+strings.Repeat("01", 20) ||
		binary.LittleEndian.Uint32(arg(1)) != 40161 || arg(2)[0] != 32 || arg(2)[32] != 0xe4 ||
		binary.LittleEndian.Uint64(arg(3)) != 1_000_000 || binary.LittleEndian.Uint64(arg(4)) != 990_000 ||
		string(arg(5)) != "\x00" || string(arg(8)) != "\x00" {
		t.Fatalf("view args %v", args)
	}

	fee, err = q.QuoteLayerZero(context.Background(), LZQuote{Chain: eth, OFT: "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512", DstEID: 40326, To: to,
		Sender: "0x00000000000000000000000000000000000000e4", Amount: amt, MinAmount: min})
	if err != nil || fee != "100000" {
		t.Fatalf("evm quote %q, %v", fee, err)
	}
	data, _ := evmCall["data"].(string)
	// quoteSend((uint32,bytes32,uint256,uint256,bytes,bytes,bytes),bool) = 0x3b6f743b
	if !strings.HasPrefix(data, "0x3b6f743b") || !strings.EqualFold(evmCall["to"].(string), "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512") {
		t.Fatalf("eth_call %v", evmCall)
	}

	for _, bad := range []string{`[]`, `["x"]`, `nope`} {
		if _, err := parseMoveFee(bad); err == nil {
			t.Errorf("parseMoveFee(%q) accepted", bad)
		}
	}
	if _, err := q.QuoteLayerZero(context.Background(), LZQuote{Chain: &registry.Chain{ID: "hub", Type: registry.ChainTypeCosmos}, Amount: amt}); err == nil {
		t.Error("a chain without an OFT send kind quoted")
	}
}
