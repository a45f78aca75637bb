package devnet_test

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/move"
)

// TestMoveViewsOverHTTP: the Move chains (the L1, minimove) answer view functions on every
// route a client uses: the legacy
// POST /initia/move/v1/accounts/{addr}/modules/{module}/view_functions/{fn} with BCS
// arguments (@initia/utils createMoveClient.viewFunction, which InterwovenKit calls, and
// initia.js src/client/rest/api/MoveAPI.ts viewFunction), /view, /view/json (InterwovenKit
// pages/wallet/txs/send-nft/tx.move.ts) and their batches. The standard library's balance
// views read the bank's balance; a module the chain lacks — the lock-staking module InterwovenKit
// asks the L1 for (lockStakeModuleAddress of src/public/data/constants.ts; the username
// module is the L1's, TestUsernamesViews) — fails with the Move VM's LINKER_ERROR, an unknown function
// of a known module with FUNCTION_RESOLUTION_FAILURE, both the gateway's 500 with code 2.
func TestMoveViewsOverHTTP(t *testing.T) {
	net := startNet(t, 31, 2, devnet.ChainSpec{ChainID: "l1-view-1", Kind: devnet.KindL1}, devnet.ChainSpec{ChainID: "move-view-1", Kind: devnet.KindMove})
	for _, c := range net.Chains() {
		acc := c.Engine().Accounts()[1]
		denom := c.Engine().Config().FeeDenom
		want := balanceOf(t, c, acc.Bech32, denom)
		if want == "0" || want == "" {
			t.Fatalf("%s: account holds no %s", c.ID(), denom)
		}
		owner := move.AccAddr(acc.Addr)
		meta := move.CoinMetadata(denom)
		b64 := func(a move.Addr) string { return base64.StdEncoding.EncodeToString(a[:]) }
		type resp struct {
			Data    string
			Events  []any
			GasUsed string `json:"gas_used"`
		}
		check := func(what string, status int, body []byte) {
			t.Helper()
			var r resp
			if err := json.Unmarshal(body, &r); status != 200 || err != nil || r.Data != strconv.Quote(want) || r.Events == nil || r.GasUsed == "" {
				t.Errorf("%s %s: %d %s, want data %q", c.ID(), what, status, body, strconv.Quote(want))
			}
		}
		for _, fn := range []string{"0x1/modules/primary_fungible_store/view_functions/balance", "0x1/modules/coin/view_functions/balance"} {
			status, body := post(t, c.REST()+"/initia/move/v1/accounts/"+fn, map[string]any{
				"type_args": []string{"0x1::fungible_asset::Metadata"}, "args": []string{b64(owner), b64(meta)}})
			check(fn, status, body)
		}
		status, body := post(t, c.REST()+"/initia/move/v1/view", map[string]any{"address": "0x1", "module_name": "coin", "function_name": "balance",
			"type_args": []string{}, "args": []string{b64(owner), b64(meta)}})
		check("view", status, body)
		jsonReq := map[string]any{"address": "0x1", "module_name": "primary_fungible_store", "function_name": "balance",
			"type_args": []string{"0x1::fungible_asset::Metadata"}, "args": []string{strconv.Quote(owner.String()), strconv.Quote(meta.String())}}
		status, body = post(t, c.REST()+"/initia/move/v1/view/json", jsonReq)
		check("view/json", status, body)
		status, body = post(t, c.REST()+"/initia/move/v1/view/json/batch", map[string]any{"requests": []any{jsonReq, jsonReq}})
		var batch struct{ Responses []resp }
		if err := json.Unmarshal(body, &batch); status != 200 || err != nil || len(batch.Responses) != 2 || batch.Responses[1].Data != strconv.Quote(want) {
			t.Errorf("%s batch: %d %s", c.ID(), status, body)
		}
		// An address with no store of the coin holds 0.
		var nobody move.Addr
		nobody[31] = 0x77
		status, body = post(t, c.REST()+"/initia/move/v1/accounts/0x1/modules/coin/view_functions/balance", map[string]any{"type_args": []string{}, "args": []string{b64(nobody), b64(meta)}})
		if status != 200 || !strings.Contains(string(body), `"data":"\"0\""`) {
			t.Errorf("%s empty balance: %d %s", c.ID(), status, body)
		}

		lockStaking := "0x81c3ea419d2fd3a27971021d9dd3cc708def05e5d6a09d39b2f1f9ba18312264"
		addr, _ := hex.DecodeString(strings.Repeat("00", 12) + hex.EncodeToString(acc.Addr))
		for path, wantMsg := range map[string]string{
			"/initia/move/v1/accounts/" + lockStaking + "/modules/lock_staking/view_functions/get_locked_delegations": "VM error: status LINKER_ERROR of type Verification with message Linker Error: Module " + lockStaking + "::lock_staking doesn't exist",
			"/initia/move/v1/accounts/0x1/modules/coin/view_functions/nope":                                           "VM error: status FUNCTION_RESOLUTION_FAILURE of type Verification with message Function 0x1::coin::nope does not exist",
		} {
			status, body := post(t, c.REST()+path, map[string]any{"type_args": []string{}, "args": []string{base64.StdEncoding.EncodeToString(addr)}})
			if w, _ := json.Marshal(wantMsg); status != 500 || string(body) != `{"code":2, "message":`+string(w)+`, "details":[]}` {
				t.Errorf("%s %s: %d %s", c.ID(), path, status, body)
			}
		}
		status, body = post(t, c.REST()+"/initia/move/v1/accounts/0x1/modules/coin/view_functions/balance", map[string]any{"type_args": []string{}, "args": []string{"AAAA", b64(meta)}})
		if status != 500 || !strings.Contains(string(body), "FAILED_TO_DESERIALIZE_ARGUMENT") {
			t.Errorf("%s bad argument: %d %s", c.ID(), status, body)
		}
		status, body = post(t, c.REST()+"/initia/move/v1/view", "not an object")
		if status != 400 || !strings.Contains(string(body), `"code":3`) {
			t.Errorf("%s bad body: %d %s", c.ID(), status, body)
		}
	}
}
