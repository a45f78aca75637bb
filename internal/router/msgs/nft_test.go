package msgs

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// TestRESTNFTOwners checks how the owner source reads each VM's REST answers, and that only
// the chain's own "no such token" answers become ErrNFTMissing (a 400 for the client), never
// a chain that cannot be reached (a 503).
func TestRESTNFTOwners(t *testing.T) {
	obj := "0x" + strings.Repeat("ab", 32)
	answers := map[string]struct {
		status int
		body   string
	}{
		"/initia/move/v1/accounts/" + obj + "/resources": {200, `{"resources":[
			{"struct_tag":"0x1::object::ObjectCore","move_resource":"{\"type\":\"0x1::object::ObjectCore\",\"data\":{\"allow_ungated_transfer\":true,\"owner\":\"0x101\",\"version\":\"1\"}}"},
			{"struct_tag":"0x1::nft::Nft","move_resource":"{\"type\":\"0x1::nft::Nft\",\"data\":{\"collection\":{\"inner\":\"0xc0\"},\"description\":\"\",\"token_id\":\"7\",\"uri\":\"\"}}"}],"pagination":{"next_key":null,"total":"2"}}`},
		"/initia/move/v1/accounts/0x1234/resources":                                    {200, `{"resources":[],"pagination":{"next_key":null,"total":"0"}}`},
		"/initia/move/v1/accounts/0xbad/resources":                                     {400, `{"code":3,"message":"invalid address","details":[]}`},
		"/initia/move/v1/accounts/0xc0ffee/resources":                                  {200, `{"resources":[{"struct_tag":"0x1::object::ObjectCore","move_resource":"{\"data\":{\"owner\":\"0x1\"}}"}]}`},
		"/cosmwasm/wasm/v1/contract/c1/smart/eyJvd25lcl9vZiI6eyJ0b2tlbl9pZCI6IjEifX0=": {200, `{"data":{"owner":"init1owner","approvals":[]}}`},
		"/cosmwasm/wasm/v1/contract/c1/smart/eyJvd25lcl9vZiI6eyJ0b2tlbl9pZCI6IjIifX0=": {500, `{"code":2,"message":"codespace wasm code 9: query wasm contract failed: cw721::state::NftInfo not found","details":[]}`},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/minievm/evm/v1/call" {
			// ownerOf(5) answers the owner, any other id reverts.
			var call struct {
				Input string `json:"input"`
			}
			if json.NewDecoder(r.Body).Decode(&call) == nil && strings.HasSuffix(call.Input, "0000000005") {
				_, _ = w.Write([]byte(`{"response":"0x0000000000000000000000000202020202020202020202020202020202020202","used_gas":"1","logs":[],"error":""}`))
				return
			}
			_, _ = w.Write([]byte(`{"response":"","used_gas":"1","logs":[],"error":"execution reverted"}`))
			return
		}
		a, ok := answers[r.URL.EscapedPath()]
		if !ok {
			a, ok = answers[r.URL.Path]
		}
		if !ok {
			t.Errorf("unexpected %s %s", r.Method, r.URL.EscapedPath())
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.status)
		_, _ = w.Write([]byte(a.body))
	}))
	defer srv.Close()
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	chain := &registry.Chain{ID: "c-1", Bech32Prefix: "init", REST: []string{srv.URL}}
	gone := &registry.Chain{ID: "gone-1", Bech32Prefix: "init", REST: []string{down.URL}}
	o := &RESTNFTOwners{Options: []httpx.Option{httpx.WithMaxAttempts(1)}}
	ctx := context.Background()

	n, err := o.MoveNFT(ctx, chain, obj)
	if err != nil || common.Bytes2Hex(n.Owner) != strings.Repeat("0", 61)+"101" || common.Bytes2Hex(n.Collection) != strings.Repeat("0", 62)+"c0" || n.TokenID != "7" {
		t.Errorf("MoveNFT = %+v, %v", n, err)
	}
	owner, err := o.ERC721Owner(ctx, chain, common.HexToAddress("0xe7"), big.NewInt(5))
	if err != nil || common.Bytes2Hex(owner) != strings.Repeat("02", 20) {
		t.Errorf("ERC721Owner = %x, %v", owner, err)
	}
	if got, err := o.CW721Owner(ctx, chain, "c1", "1"); err != nil || got != "init1owner" {
		t.Errorf("CW721Owner = %q, %v", got, err)
	}

	for _, tc := range []struct {
		name    string
		call    func() error
		missing bool
	}{
		{"move object without resources", func() error { _, err := o.MoveNFT(ctx, chain, "0x1234"); return err }, true},
		{"move address the chain refuses", func() error { _, err := o.MoveNFT(ctx, chain, "0xbad"); return err }, true},
		{"move object that is no NFT", func() error { _, err := o.MoveNFT(ctx, chain, "0xc0ffee"); return err }, true},
		{"erc721 ownerOf reverts", func() error {
			_, err := o.ERC721Owner(ctx, chain, common.HexToAddress("0xe7"), big.NewInt(6))
			return err
		}, true},
		{"cw721 token not found", func() error { _, err := o.CW721Owner(ctx, chain, "c1", "2"); return err }, true},
		{"move chain unreachable", func() error { _, err := o.MoveNFT(ctx, gone, obj); return err }, false},
		{"evm chain unreachable", func() error {
			_, err := o.ERC721Owner(ctx, gone, common.HexToAddress("0xe7"), big.NewInt(5))
			return err
		}, false},
		{"wasm chain unreachable", func() error { _, err := o.CW721Owner(ctx, gone, "c1", "1"); return err }, false},
		{"no REST endpoint", func() error { _, err := o.CW721Owner(ctx, &registry.Chain{ID: "x"}, "c1", "1"); return err }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if err == nil || errors.Is(err, ErrNFTMissing) != tc.missing {
				t.Fatalf("err = %v, want missing=%v", err, tc.missing)
			}
		})
	}
}
