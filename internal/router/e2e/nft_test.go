package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/chain/comet"
	wasmv1 "github.com/rollgate/rollgate/internal/chain/protos/cosmwasm/wasm/v1"
	movev1 "github.com/rollgate/rollgate/internal/chain/protos/initia/move/v1"
	evmv1 "github.com/rollgate/rollgate/internal/chain/protos/minievm/evm/v1"
	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/router/api"
	"github.com/rollgate/rollgate/internal/router/msgs"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// The /nft request bodies below are InterwovenKit's Send NFT: the base body of
// initia-labs/interwovenkit@913e480:packages/interwovenkit-react/src/pages/wallet/txs/send-nft/SendNftFields.tsx
// (from_address: the wallet's init1 address, to_address: InitiaAddress(recipient).bech32,
// collection_address, token_ids and object_addresses from the indexer's token, where
// object_addr is empty for ERC-721 and CW721 tokens) and, across chains, the class_id its
// tx.move.ts computes for a native Move collection: "move/" + the collection address
// left-padded to 64 hex digits, with no class_trace (undefined, so left out).

// nftWallet extends the router wallet with what an NFT owner does: create and mint NFTs on a
// chain, then send them through /nft.
type nftWallet struct{ *wallet }

// commit signs ms as account id on chainID (SIGN_MODE_DIRECT), broadcasts, produces a block
// and fails unless the transaction succeeded; it returns the result.
func (w nftWallet) commit(chainID string, id int, ms ...proto.Message) *comet.ResultTx {
	w.t.Helper()
	raw := w.sign(chainID, id, ms, txcodec.SignModeDirect, 3_000_000)
	res, err := w.rpc[chainID].BroadcastTxSync(w.ctx, raw)
	if err != nil || res.Code != 0 {
		w.t.Fatalf("broadcast on %s: %v %+v", chainID, err, res)
	}
	if err := w.tn.step(w.ctx); err != nil {
		w.t.Fatal(err)
	}
	sum := sha256.Sum256(raw)
	tx, err := w.rpc[chainID].Tx(w.ctx, hex.EncodeToString(sum[:]), false)
	if err != nil {
		w.t.Fatalf("tx on %s: %v", chainID, err)
	}
	if tx.TxResult.Code != 0 {
		w.t.Fatalf("tx on %s failed: code %d %s", chainID, tx.TxResult.Code, tx.TxResult.Log)
	}
	return tx
}

func attr(tx *comet.ResultTx, typ, key string) string {
	for _, ev := range tx.TxResult.Events {
		if ev.Type != typ {
			continue
		}
		for _, a := range ev.Attributes {
			if a.Key == key {
				return a.Value
			}
		}
	}
	return ""
}

// nftSend posts body to /nft, checks the answer's amino types, decodes every message with
// the real amino converters' names and signs them on from_chain_id.
func (w nftWallet) nftSend(body map[string]any, signer int, wantType string, wantMsgs int) {
	w.t.Helper()
	st, out := w.post("/nft", body)
	if st != http.StatusOK {
		w.t.Fatalf("/nft: %d %s", st, out)
	}
	var resp msgs.NFTResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		w.t.Fatal(err)
	}
	if len(resp.Msgs) != wantMsgs {
		w.t.Fatalf("/nft answered %d msgs, want %d: %s", len(resp.Msgs), wantMsgs, out)
	}
	var ms []proto.Message
	for _, m := range resp.Msgs {
		if m.Type != wantType {
			w.t.Fatalf("/nft msg type %q, want %q: %s", m.Type, wantType, out)
		}
		raw, _ := json.Marshal(m)
		pm, err := txcodec.UnmarshalAmino(m.Type, raw)
		if err != nil {
			w.t.Fatalf("decode %s: %v\n%s", m.Type, err, raw)
		}
		ms = append(ms, pm)
	}
	w.commit(body["from_chain_id"].(string), signer, ms...)
}

// refused posts body to /nft and fails unless the router answers 400 with reason.
func (w nftWallet) refused(body map[string]any, reason string) {
	w.t.Helper()
	st, out := w.post("/nft", body)
	var e struct {
		Details []string `json:"details"`
	}
	if err := json.Unmarshal(out, &e); err != nil || st != http.StatusBadRequest || len(e.Details) == 0 || e.Details[0] != reason {
		w.t.Fatalf("/nft answered %d %s, want 400 %s", st, out, reason)
	}
}

// moveOwner is an object's owner by the chain's ObjectCore resource (0x + 64 hex digits).
func (w nftWallet) moveOwner(chainID string, obj []byte) string {
	w.t.Helper()
	var body struct {
		Resource struct {
			MoveResource string `json:"move_resource"`
		} `json:"resource"`
	}
	q := url.Values{"struct_tag": {"0x1::object::ObjectCore"}}
	if err := w.rest[chainID].Get(w.ctx, "/initia/move/v1/accounts/"+devnet.MoveAddress(obj)+"/resources/by_struct_tag", q, 0, &body); err != nil {
		w.t.Fatalf("ObjectCore of %s on %s: %v", devnet.MoveAddress(obj), chainID, err)
	}
	var res struct {
		Data struct {
			Owner string `json:"owner"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(body.Resource.MoveResource), &res); err != nil {
		w.t.Fatal(err)
	}
	a, err := devnet.ParseMoveAddress(res.Data.Owner)
	if err != nil {
		w.t.Fatal(err)
	}
	return devnet.MoveAddress(a)
}

func (w nftWallet) accAddr(chainID string, id int) []byte {
	b, err := address.Parse("init", w.tn.addr(w.t, chainID, id))
	if err != nil {
		w.t.Fatal(err)
	}
	return b
}

// mintMove creates a collection and mints token "1" to the owner; it returns the collection
// and the NFT object.
func (w nftWallet) mintMove(chainID string, owner int, name string) (col, obj []byte) {
	w.t.Helper()
	sender := w.tn.addr(w.t, chainID, owner)
	js := func(vs ...any) []string {
		out := make([]string, len(vs))
		for i, v := range vs {
			b, _ := json.Marshal(v)
			out[i] = string(b)
		}
		return out
	}
	w.commit(chainID, owner,
		&movev1.MsgExecuteJSON{Sender: sender, ModuleAddress: "0x1", ModuleName: "simple_nft", FunctionName: "create_collection",
			Args: js("rollgate e2e", nil, name, "https://devnet.invalid/e2e.json", false, false, false, false, false, false, "0")},
		&movev1.MsgExecuteJSON{Sender: sender, ModuleAddress: "0x1", ModuleName: "simple_nft", FunctionName: "mint",
			Args: js(name, "token one", "1", "https://devnet.invalid/e2e/1.json", []string{}, []string{}, []string{}, nil)})
	creator := w.accAddr(chainID, owner)
	return devnet.MoveCollectionAddress(creator, name), devnet.MoveNFTAddress(creator, name, "1")
}

func (w nftWallet) evmOwner(contract string, id int64) string {
	w.t.Helper()
	in, _ := devnet.EVMCallData("ownerOf", big.NewInt(id))
	var resp struct {
		Response string `json:"response"`
		Error    string `json:"error"`
	}
	req := map[string]string{"sender": w.tn.addr(w.t, evmID, 0), "contract_addr": contract, "input": "0x" + hex.EncodeToString(in)}
	if err := w.rest[evmID].Post(w.ctx, "/minievm/evm/v1/call", req, 0, &resp); err != nil || resp.Error != "" {
		w.t.Fatalf("ownerOf(%d) on %s: %v %s", id, contract, err, resp.Error)
	}
	return "0x" + strings.TrimPrefix(resp.Response, "0x")[24:]
}

func (w nftWallet) cw721Owner(contract, id string) string {
	w.t.Helper()
	q, _ := json.Marshal(map[string]any{"owner_of": map[string]string{"token_id": id}})
	var resp struct {
		Data struct {
			Owner string `json:"owner"`
		} `json:"data"`
	}
	if err := w.rest[wasmID].Get(w.ctx, "/cosmwasm/wasm/v1/contract/"+contract+"/smart/"+url.PathEscape(base64.StdEncoding.EncodeToString(q)), nil, 0, &resp); err != nil {
		w.t.Fatalf("owner_of %s on %s: %v", id, contract, err)
	}
	return resp.Data.Owner
}

// TestSendNFTEndToEnd sends NFTs through POST /nft as InterwovenKit does on every VM within
// its chain and once across chains (a Move collection of the L1 over ICS-721 to minimove):
// the router's msgs are decoded with the amino names, signed, broadcast, and the new owner is
// read back from the chains' own state.
func TestSendNFTEndToEnd(t *testing.T) {
	tn := startNet(t)
	reg, err := registry.Load(tn.dir)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.New(api.Config{}, registry.NewLive(reg), nil, prometheus.NewRegistry()))
	defer srv.Close()
	w := nftWallet{newWallet(t, tn, srv.URL, reg)}
	const owner = 0
	to := recipientBase + 40

	for _, chainID := range []string{l1ID, moveID} {
		t.Run("move_within_"+chainID, func(t *testing.T) {
			w.t = t
			col, obj := w.mintMove(chainID, owner, "e2e collection")
			if got := w.moveOwner(chainID, obj); got != devnet.MoveAddress(w.accAddr(chainID, owner)) {
				t.Fatalf("minted NFT owned by %s", got)
			}
			w.nftSend(map[string]any{"from_address": tn.addr(t, chainID, owner), "from_chain_id": chainID,
				"to_address": tn.addr(t, chainID, to), "to_chain_id": chainID, "collection_address": devnet.MoveAddress(col),
				"token_ids": []string{"1"}, "object_addresses": []string{devnet.MoveAddress(obj)}}, owner, "move/MsgExecute", 1)
			if got, want := w.moveOwner(chainID, obj), devnet.MoveAddress(w.accAddr(chainID, to)); got != want {
				t.Fatalf("after /nft the NFT belongs to %s, want %s", got, want)
			}
			// Sent away, the token is no longer the sender's: the router refuses a second send,
			// and a token that was never minted.
			w.refused(map[string]any{"from_address": tn.addr(t, chainID, owner), "from_chain_id": chainID,
				"to_address": tn.addr(t, chainID, to), "to_chain_id": chainID, "collection_address": devnet.MoveAddress(col),
				"token_ids": []string{"1"}, "object_addresses": []string{devnet.MoveAddress(obj)}}, msgs.ReasonNFTNotOwned)
			w.refused(map[string]any{"from_address": tn.addr(t, chainID, owner), "from_chain_id": chainID,
				"to_address": tn.addr(t, chainID, to), "to_chain_id": chainID, "collection_address": devnet.MoveAddress(col),
				"token_ids": []string{"2"}, "object_addresses": []string{devnet.MoveAddress(devnet.MoveNFTAddress(w.accAddr(chainID, owner), "e2e collection", "2"))}}, msgs.ReasonNFTNotFound)
		})
	}

	t.Run("evm_within_and_to_l1", func(t *testing.T) {
		w.t = t
		sender := tn.addr(t, evmID, owner)
		code, err := devnet.ERC721Code("E2E Punks", "E2EP")
		if err != nil {
			t.Fatal(err)
		}
		created := w.commit(evmID, owner, &evmv1.MsgCreate{Sender: sender, Code: hex.EncodeToString(code), Value: "0"})
		contract := contractFromCreate(t, created)
		from := w.accAddr(evmID, owner)
		in, _ := devnet.EVMCallData("mintNFT", common.BytesToAddress(from), big.NewInt(7), "https://devnet.invalid/e2e/7.json")
		w.commit(evmID, owner, &evmv1.MsgCall{Sender: sender, ContractAddr: contract, Input: "0x" + hex.EncodeToString(in), Value: "0"})
		w.nftSend(map[string]any{"from_address": sender, "from_chain_id": evmID, "to_address": tn.addr(t, evmID, to), "to_chain_id": evmID,
			"collection_address": contract, "token_ids": []string{"7"}, "object_addresses": []string{""}}, owner, "evm/MsgCall", 1)
		if got, want := w.evmOwner(contract, 7), "0x"+hex.EncodeToString(w.accAddr(evmID, to)); !strings.EqualFold(got, want) {
			t.Fatalf("after /nft token 7 belongs to %s, want %s", got, want)
		}
		w.refused(map[string]any{"from_address": sender, "from_chain_id": evmID, "to_address": tn.addr(t, evmID, to), "to_chain_id": evmID,
			"collection_address": contract, "token_ids": []string{"99"}, "object_addresses": []string{""}}, msgs.ReasonNFTNotFound)

		// Across chains: token 8 to the L1 over ICS-721, class_id evm/<contract raw hex> as
		// tx.evm.ts builds it for a native ERC-721.
		in, _ = devnet.EVMCallData("mintNFT", common.BytesToAddress(from), big.NewInt(8), "https://devnet.invalid/e2e/8.json")
		w.commit(evmID, owner, &evmv1.MsgCall{Sender: sender, ContractAddr: contract, Input: "0x" + hex.EncodeToString(in), Value: "0"})
		classID := "evm/" + strings.ToLower(strings.TrimPrefix(contract, "0x"))
		w.mark()
		w.nftSend(map[string]any{"from_address": sender, "from_chain_id": evmID, "to_address": tn.addr(t, l1ID, to), "to_chain_id": l1ID,
			"collection_address": contract, "token_ids": []string{"8"}, "object_addresses": []string{""}, "class_id": classID}, owner, "nft-transfer/MsgTransfer", 1)
		escrow := "0x" + hex.EncodeToString(devnet.NFTEscrowAddress(nftChannel(t, reg, evmID, l1ID)))
		if got := w.evmOwner(contract, 8); !strings.EqualFold(got, escrow) {
			t.Fatalf("on %s the sent token 8 belongs to %s, want the channel's escrow %s", evmID, got, escrow)
		}
		w.awaitReceive(l1ID, classID)
		voucher := devnet.NFTVoucherClass(nftChannel(t, reg, l1ID, evmID), classID, false)
		vobj := devnet.MoveVoucherNFTAddress(voucher, "8")
		if got, want := w.moveOwner(l1ID, vobj), devnet.MoveAddress(w.accAddr(l1ID, to)); got != want {
			t.Fatalf("on %s voucher %s token 8 belongs to %s, want %s", l1ID, voucher, got, want)
		}
	})

	t.Run("wasm_within", func(t *testing.T) {
		w.t = t
		sender := tn.addr(t, wasmID, owner)
		stored := w.commit(wasmID, owner, &wasmv1.MsgStoreCode{Sender: sender, WasmByteCode: []byte("\x00asm rollgate e2e cw721")})
		codeID := attr(stored, "store_code", "code_id")
		var cid uint64
		if _, err := fmt.Sscan(codeID, &cid); err != nil {
			t.Fatalf("store_code code_id %q", codeID)
		}
		init, _ := json.Marshal(map[string]any{"name": "E2E Wasm", "symbol": "E2EW", "minter": sender})
		inst := w.commit(wasmID, owner, &wasmv1.MsgInstantiateContract{Sender: sender, CodeId: cid, Label: "e2e", Msg: init})
		contract := attr(inst, "instantiate", "_contract_address")
		mint, _ := json.Marshal(map[string]any{"mint": map[string]any{"token_id": "w1", "owner": sender, "token_uri": "https://devnet.invalid/e2e/w1.json"}})
		w.commit(wasmID, owner, &wasmv1.MsgExecuteContract{Sender: sender, Contract: contract, Msg: mint})
		w.nftSend(map[string]any{"from_address": sender, "from_chain_id": wasmID, "to_address": tn.addr(t, wasmID, to), "to_chain_id": wasmID,
			"collection_address": contract, "token_ids": []string{"w1"}, "object_addresses": []string{""}}, owner, "wasm/MsgExecuteContract", 1)
		if got, want := w.cw721Owner(contract, "w1"), tn.addr(t, wasmID, to); got != want {
			t.Fatalf("after /nft token w1 belongs to %s, want %s", got, want)
		}
		w.refused(map[string]any{"from_address": sender, "from_chain_id": wasmID, "to_address": tn.addr(t, wasmID, to), "to_chain_id": wasmID,
			"collection_address": contract, "token_ids": []string{"w9"}, "object_addresses": []string{""}}, msgs.ReasonNFTNotFound)
	})

	// Across chains: a Move collection over ICS-721 from the L1 to minimove, and one of
	// minimove to the L1.
	for _, hop := range []struct{ from, to string }{{l1ID, moveID}, {moveID, l1ID}} {
		t.Run("ics721_"+hop.from+"_to_"+hop.to, func(t *testing.T) {
			w.t = t
			col, obj := w.mintMove(hop.from, owner, "e2e travelling collection")
			classID := "move/" + hex.EncodeToString(col)
			srcChan, dstChan := nftChannel(t, reg, hop.from, hop.to), nftChannel(t, reg, hop.to, hop.from)
			w.mark()
			w.nftSend(map[string]any{"from_address": tn.addr(t, hop.from, owner), "from_chain_id": hop.from,
				"to_address": tn.addr(t, hop.to, to), "to_chain_id": hop.to, "collection_address": devnet.MoveAddress(col),
				"token_ids": []string{"1"}, "object_addresses": []string{devnet.MoveAddress(obj)}, "class_id": classID}, owner, "nft-transfer/MsgTransfer", 1)
			escrow := devnet.MoveAddress(devnet.NFTEscrowAddress(srcChan))
			if got := w.moveOwner(hop.from, obj); got != escrow {
				t.Fatalf("on %s the sent NFT belongs to %s, want the channel's escrow %s", hop.from, got, escrow)
			}
			// The voucher: the receiving Move chain names the class ibc/<hash of the prefixed
			// path> and mints it from the nft-transfer module account (the devnet's ibc and move modules).
			voucher := devnet.NFTVoucherClass(dstChan, classID, false)
			vobj := devnet.MoveVoucherNFTAddress(voucher, "1")
			want := devnet.MoveAddress(w.accAddr(hop.to, to))
			w.awaitReceive(hop.to, classID)
			if got := w.moveOwner(hop.to, vobj); got != want {
				t.Fatalf("on %s voucher %s token 1 belongs to %s, want %s\n%s", hop.to, voucher, got, want, w.events())
			}
		})
	}
}

// awaitReceive steps blocks until chainID has received an ICS-721 packet of classID, and fails
// unless the receive succeeded.
func (w nftWallet) awaitReceive(chainID, classID string) {
	w.t.Helper()
	for i := 0; i < maxSteps && w.findEvent(chainID, "non_fungible_token_packet", "class_id", classID) == nil; i++ {
		if err := w.tn.step(context.Background()); err != nil {
			w.t.Fatal(err)
		}
	}
	if ev := w.findEvent(chainID, "non_fungible_token_packet", "class_id", classID); ev == nil || !hasAttr(ev, "success", "true") {
		w.t.Fatalf("no successful ICS-721 receive on %s: %+v\n%s", chainID, ev, w.events())
	}
}

// nftChannel is the registry's ICS-721 channel end on from towards to.
func nftChannel(t *testing.T, reg *registry.Registry, from, to string) string {
	t.Helper()
	for _, ch := range reg.Chain(from).NFTChannels {
		if ch.CounterpartyChainID == to {
			return ch.ID
		}
	}
	t.Fatalf("registry lists no ICS-721 channel from %s to %s: %+v", from, to, reg.Chain(from).NFTChannels)
	return ""
}

func hasAttr(ev *comet.Event, key, value string) bool {
	for _, a := range ev.Attributes {
		if a.Key == key && a.Value == value {
			return true
		}
	}
	return false
}

func contractFromCreate(t *testing.T, tx *comet.ResultTx) string {
	t.Helper()
	// minievm reports the new contract in its contract_created event.
	if a := attr(tx, "contract_created", "contract"); a != "" {
		return a
	}
	t.Fatalf("no contract_created event in %+v", tx.TxResult.Events)
	return ""
}
