package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cosmos/btcutil/bech32"
	"github.com/ethereum/go-ethereum/common"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/router/msgs"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/testutil"
)

// NFTs the fake chains hold: userInit owns object 0x…a1 (token "1" of collection 0x…c1),
// ERC-721 token 7 of evmNFT and CW721 token "w1" of wasmNFT; user2Init owns object 0x…a2,
// token 8 and "w2". Anything else does not exist; unreachableNFT's chain cannot be asked.
var (
	moveCol        = "0x" + strings.Repeat("c1", 32)
	moveObj1       = "0x" + strings.Repeat("a1", 32)
	moveObj2       = "0x" + strings.Repeat("a2", 32)
	evmNFT         = "0x00000000000000000000000000000000000E7721"
	wasmNFT        = addr32("init", 0x77)
	wasmICS721     = addr32("init", 0x72)
	unreachableNFT = addr32("init", 0x99)
)

// addr32 is a 32-byte bech32 address (a CosmWasm contract's length).
func addr32(prefix string, b byte) string {
	s, err := bech32.EncodeFromBase256(prefix, bytes.Repeat([]byte{b}, 32))
	if err != nil {
		panic(err)
	}
	return s
}

type fakeNFTs struct{}

func moveBytes(s string) []byte {
	b := common.FromHex(s)
	return append(make([]byte, 32-len(b)), b...)
}

func (fakeNFTs) MoveNFT(_ context.Context, c *registry.Chain, object string) (msgs.MoveNFT, error) {
	owner := map[string][]byte{moveObj1: bytes.Repeat([]byte{1}, 20), moveObj2: bytes.Repeat([]byte{2}, 20)}[object]
	if owner == nil {
		return msgs.MoveNFT{}, fmt.Errorf("%w: no resources at %s", msgs.ErrNFTMissing, object)
	}
	id := map[string]string{moveObj1: "1", moveObj2: "2"}[object]
	return msgs.MoveNFT{Owner: moveBytes(common.Bytes2Hex(owner)), Collection: moveBytes(moveCol), TokenID: id}, nil
}

func (fakeNFTs) ERC721Owner(_ context.Context, c *registry.Chain, contract common.Address, id *big.Int) ([]byte, error) {
	if contract != common.HexToAddress(evmNFT) {
		return nil, fmt.Errorf("%w: execution reverted", msgs.ErrNFTMissing)
	}
	switch id.Int64() {
	case 7:
		return bytes.Repeat([]byte{1}, 20), nil
	case 8:
		return bytes.Repeat([]byte{2}, 20), nil
	}
	return nil, fmt.Errorf("%w: execution reverted", msgs.ErrNFTMissing)
}

func (fakeNFTs) CW721Owner(_ context.Context, c *registry.Chain, contract, id string) (string, error) {
	switch {
	case contract == unreachableNFT:
		return "", errors.New("connection refused")
	case contract != wasmNFT:
		return "", fmt.Errorf("%w: no such contract", msgs.ErrNFTMissing)
	case id == "w1":
		return userInit, nil
	case id == "w2":
		return user2Init, nil
	}
	return "", fmt.Errorf("%w: token not found", msgs.ErrNFTMissing)
}

// newNFTServer is the router over the devnet registry, with miniwasm's ICS-721 channel on an
// ICS-721 contract's port as on a real miniwasm (the devnet's own miniwasm receives on the
// nft-transfer port, which a Wasm chain cannot send from), and the fake chains' NFTs.
func newNFTServer(t testing.TB) http.Handler {
	t.Helper()
	reg, err := registry.Load(devnetRegistry)
	if err != nil {
		t.Fatal(err)
	}
	reg.Chain(mwas).NFTChannels[0].Port = "wasm." + wasmICS721
	cfg := Config{Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }, NFTOwners: fakeNFTs{}}
	return New(cfg, registry.NewLive(reg), nil, prometheus.NewRegistry())
}

// TestNFT pins /nft's answers: the request bodies are InterwovenKit's (SendNftFields.tsx base
// body, plus class_id/class_trace/outgoing_proxy from tx.move.ts, tx.evm.ts, tx.wasm.ts
// across chains) and initia.js v2's (router-client.ts nftTransfer: collection_address empty on
// Move chains, timeout in seconds).
func TestNFT(t *testing.T) {
	h := newNFTServer(t)
	ik := func(from, to, col string, ids, objs []string, kv ...any) map[string]any {
		m := map[string]any{"from_address": userInit, "from_chain_id": from, "to_address": user2Init, "to_chain_id": to,
			"collection_address": col, "token_ids": ids, "object_addresses": objs}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	one := func(s string) []string { return []string{s} }
	cases := []struct {
		name string
		body any
		want int
	}{
		// within a chain
		{"move_within_l1", ik(l1, l1, moveCol, one("1"), one(moveObj1)), 200},
		{"move_within_minimove", ik(mmov, mmov, moveCol, one("1"), one(moveObj1)), 200},
		{"evm_within", ik(mevm, mevm, evmNFT, one("7"), one("")), 200},
		{"evm_within_hex_addresses", ik(mevm, mevm, evmNFT, one("7"), nil, "from_address", "0x0101010101010101010101010101010101010101",
			"to_address", "0x0202020202020202020202020202020202020202"), 200},
		{"wasm_within", ik(mwas, mwas, wasmNFT, one("w1"), one("")), 200},
		// across chains (ICS-721 through the L1)
		{"move_l1_to_minievm", ik(l1, mevm, moveCol, one("1"), one(moveObj1), "class_id", "move/"+moveCol[2:]), 200},
		{"move_minimove_to_l1_voucher", ik(mmov, l1, moveCol, one("1"), one(moveObj1), "class_id", "ibc/0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF",
			"class_trace", map[string]string{"path": "nft-transfer/channel-1", "base_class_id": "move/" + strings.Repeat("0", 63) + "1"}), 200},
		{"initiajs_move_l1_to_miniwasm", map[string]any{"from_address": userInit, "from_chain_id": l1, "to_address": user2Init, "to_chain_id": mwas,
			"token_ids": one("1"), "collection_address": "", "class_id": "move/" + moveCol[2:], "timeout": 600}, 200},
		{"evm_to_l1", ik(mevm, l1, evmNFT, one("7"), one(""), "class_id", "evm/"+evmNFT[2:]), 200},
		{"wasm_to_l1", ik(mwas, l1, wasmNFT, one("w1"), one(""), "class_id", wasmNFT, "outgoing_proxy", nil), 200},
		{"wasm_to_l1_outgoing_proxy", ik(mwas, l1, wasmNFT, one("w1"), one(""), "class_id", wasmNFT, "outgoing_proxy", addr32("init", 0x70)), 200},
		// refusals
		{"not_owned_move", ik(l1, l1, moveCol, one("2"), one(moveObj2)), 400},
		{"not_owned_evm", ik(mevm, mevm, evmNFT, one("8"), one("")), 400},
		{"not_owned_wasm", ik(mwas, mwas, wasmNFT, one("w2"), one("")), 400},
		{"missing_move_object", ik(l1, l1, moveCol, one("1"), one("0x"+strings.Repeat("0b", 32))), 400},
		{"missing_evm_token", ik(mevm, mevm, evmNFT, one("9"), one("")), 400},
		{"missing_wasm_token", ik(mwas, mwas, wasmNFT, one("w9"), one("")), 400},
		{"object_of_other_collection", ik(l1, l1, "0x"+strings.Repeat("c2", 32), one("1"), one(moveObj1)), 400},
		{"object_token_id_mismatch", ik(l1, l1, moveCol, one("5"), one(moveObj1)), 400},
		{"too_many_tokens", ik(mwas, mwas, wasmNFT, manyIDs(31), nil), 400},
		{"no_token_ids", ik(mwas, mwas, wasmNFT, []string{}, nil), 400},
		{"duplicate_token_ids", ik(mwas, mwas, wasmNFT, []string{"w1", "w1"}, nil), 400},
		{"malformed_from_address", ik(l1, l1, moveCol, one("1"), one(moveObj1), "from_address", "init1notbech32"), 400},
		{"wrong_prefix_to_address", ik(l1, l1, moveCol, one("1"), one(moveObj1), "to_address", addr("cosmos", 2)), 400},
		{"malformed_object_address", ik(l1, l1, moveCol, one("1"), one("a1a1")), 400},
		{"move_without_object_addresses", ik(l1, l1, "", one("1"), nil), 400},
		{"malformed_evm_collection", ik(mevm, mevm, "init1xyz", one("7"), nil), 400},
		{"malformed_evm_token_id", ik(mevm, mevm, evmNFT, one("0x07"), nil), 400},
		{"unknown_from_chain", ik("nowhere-1", l1, moveCol, one("1"), one(moveObj1)), 404},
		{"missing_to_chain", ik(l1, "", moveCol, one("1"), one(moveObj1)), 400},
		{"external_chain_source", ik(hub, hub, "", one("1"), nil, "from_address", userHub, "to_address", userHub), 400},
		{"missing_class_id", ik(l1, mmov, moveCol, one("1"), one(moveObj1)), 400},
		{"rollup_to_rollup", ik(mmov, mevm, moveCol, one("1"), one(moveObj1), "class_id", "move/"+moveCol[2:]), 400},
		{"bad_timeout", ik(l1, mmov, moveCol, one("1"), one(moveObj1), "class_id", "move/"+moveCol[2:], "timeout", -5), 400},
		{"invalid_json", `{"from_address":`, 400},
		{"owner_unavailable", ik(mwas, mwas, unreachableNFT, one("w1"), nil), 503},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// No InterwovenKit-Version header: InterwovenKit posts /nft without one.
			st, body := do(t, h, http.MethodPost, "/nft", tc.body)
			testutil.Golden(t, "nft/"+tc.name+".json", pretty(t, st, body))
			if st != tc.want {
				t.Fatalf("status %d, want %d: %s", st, tc.want, body)
			}
		})
	}
}

func manyIDs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprint(i + 1)
	}
	return out
}
