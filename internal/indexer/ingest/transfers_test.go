package ingest

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/store"
)

func ev(typ string, kv ...string) Event { return Event{Type: typ, Attributes: attrs(kv...)} }

func addrN(n byte) []byte { return bytes.Repeat([]byte{n}, 20) }

func bechN(n byte) string { s, _ := address.Bech32("init", addrN(n)); return s }

func topic(b []byte) string {
	if b == nil {
		return zeroTopic
	}
	return "0x" + strings.Repeat("0", 24) + hex.EncodeToString(b)
}

func erc20Log(contract, from, to []byte, amount int64) Event {
	return ev("evm", "log", fmt.Sprintf(`{"address":"0x%x","topics":["%s","%s","%s"],"data":"0x%064x"}`, contract,
		transferTopic, topic(from), topic(to), amount))
}

func moveEv(tag, data string) Event { return ev("move", "type_tag", tag, "data", data) }

// short renders a transfer for comparison: kind from>to amount denom [contract] [token] [bridge].
func short(t store.Transfer) string {
	name := func(b []byte) string {
		if b == nil {
			return "-"
		}
		return fmt.Sprint(b[len(b)-1])
	}
	s := fmt.Sprintf("%s %s>%s %s %s m%d", t.Kind, name(t.From), name(t.To), t.Amount, t.Denom, t.MsgIndex)
	if t.Contract != nil {
		s += " c" + name(t.Contract)
	}
	if t.TokenID != "" {
		s += " #" + t.TokenID
	}
	if t.Counterparty != "" {
		s += " @" + t.Counterparty + ":" + t.CounterpartyAddr
	}
	return s
}

// TestTxTransfers: each kind's reading of one tx's events, with bank movements reported twice
// (minievm's ERC-20 logs, Move's fungible-asset events) counted once, bridge legs named, and
// the VM's own movements added.
func TestTxTransfers(t *testing.T) {
	erc20 := bytes.Repeat([]byte{0xe2}, 20)
	nft := bytes.Repeat([]byte{0x72}, 20)
	uinitMeta := "0x" + strings.Repeat("ab", 32)
	faMeta := "0x" + strings.Repeat("cd", 32)
	moveAddr := func(n byte) string { return "0x" + hex.EncodeToString(addrN(n)) }
	cw := bytes.Repeat([]byte{0xc2}, 32)
	cwAddr, _ := address.Bech32("init", cw)
	cases := []struct {
		name   string
		vm     TransferVM
		events []Event
		want   []string
	}{
		{"bank send, fee and multi-send", nil, []Event{
			ev("coin_spent", "spender", bechN(1), "amount", "5uinit"),
			ev("transfer", "recipient", bechN(9), "sender", bechN(1), "amount", "5uinit"),
			ev("transfer", "recipient", bechN(2), "sender", bechN(1), "amount", "10uinit,3ibc/AB", "msg_index", "0"),
			ev("coin_spent", "spender", bechN(3), "amount", "7uinit", "msg_index", "1"),
			ev("transfer", "recipient", bechN(4), "amount", "4uinit", "msg_index", "1"),
			ev("transfer", "recipient", bechN(5), "amount", "3uinit", "msg_index", "1"),
		}, []string{"send 1>9 5 uinit m-1", "send 1>2 10 uinit m0", "send 1>2 3 ibc/AB m0", "send 3>4 4 uinit m1", "send 3>5 3 uinit m1"}},
		{"IBC receive", nil, []Event{
			ev("recv_packet", "packet_src_channel", "channel-7", "packet_dst_channel", "channel-0", "msg_index", "1"),
			ev("coinbase", "minter", bechN(8), "amount", "100ibc/XY", "msg_index", "1"),
			ev("transfer", "recipient", bechN(2), "sender", bechN(8), "amount", "100ibc/XY", "msg_index", "1"),
			ev("fungible_token_packet", "sender", "osmo1remote", "receiver", bechN(2), "denom", "uosmo", "amount", "100", "success", "true", "msg_index", "1"),
		}, []string{"mint ->8 100 ibc/XY m1", "ibc_receive 8>2 100 ibc/XY m1 @channel-0:osmo1remote"}},
		{"IBC send", nil, []Event{
			ev("transfer", "recipient", bechN(7), "sender", bechN(2), "amount", "40uinit", "msg_index", "0"),
			ev("send_packet", "packet_src_channel", "channel-0", "msg_index", "0"),
			ev("ibc_transfer", "sender", bechN(2), "receiver", "osmo1far", "amount", "40", "denom", "uinit", "msg_index", "0"),
		}, []string{"ibc_send 2>7 40 uinit m0 @channel-0:osmo1far"}},
		{"OPinit deposit and withdrawal", nil, []Event{
			ev("coinbase", "minter", bechN(6), "amount", "50l2/aa"),
			ev("transfer", "recipient", bechN(2), "sender", bechN(6), "amount", "50l2/aa"),
			ev("finalize_token_deposit", "sender", "init1l1sender", "recipient", bechN(2), "denom", "l2/aa", "amount", "50", "success", "true"),
			ev("transfer", "recipient", bechN(6), "sender", bechN(3), "amount", "9l2/aa"),
			ev("burn", "burner", bechN(6), "amount", "9l2/aa"),
			ev("initiate_token_withdrawal", "from", bechN(3), "to", "init1l1to", "denom", "l2/aa", "amount", "9"),
		}, []string{"mint ->6 50 l2/aa m-1", "deposit 6>2 50 l2/aa m-1 @l1:init1l1sender", "withdrawal 3>6 9 l2/aa m-1 @l1:init1l1to", "burn 6>- 9 l2/aa m-1"}},
		{"EVM: bank sends echoed by logs, ERC-20 and ERC-721 of their own", EVMTransfers(), []Event{
			erc20Log(erc20, addrN(1), addrN(2), 10),
			ev("transfer", "recipient", bechN(2), "sender", bechN(1), "amount", "10evm/E2E2E2E2E2E2E2E2E2E2E2E2E2E2E2E2E2E2E2E2", "msg_index", "0"),
			ev("evm", "log", fmt.Sprintf(`{"address":"0x%x","topics":["%s","%s","%s","0x%064x"],"data":"0x"}`, nft, transferTopic, topic(addrN(3)), topic(addrN(4)), 77), "msg_index", "1"),
			erc20Log(erc20, addrN(5), addrN(2), 6),
			erc20Log(erc20, nil, addrN(3), 2),
		}, []string{"send 1>2 10 evm/e2e2e2e2e2e2e2e2e2e2e2e2e2e2e2e2e2e2e2e2 m0 c226", "erc721 3>4 1 evm/7272727272727272727272727272727272727272 m1 c114 #77",
			"erc20 5>2 6 evm/e2e2e2e2e2e2e2e2e2e2e2e2e2e2e2e2e2e2e2e2 m-1 c226", "erc20 ->3 2 evm/e2e2e2e2e2e2e2e2e2e2e2e2e2e2e2e2e2e2e2e2 m-1 c226"}},
		{"Move: bank send echoed by fungible-asset events, quiet transfers (one of the bank coin), mint and object transfer", MoveTransfers(), []Event{
			moveEv("0x1::fungible_asset::WithdrawEvent", `{"store_addr":"0x1","metadata_addr":"`+uinitMeta+`","amount":"10"}`),
			moveEv("0x1::fungible_asset::WithdrawOwnerEvent", `{"owner":"`+moveAddr(1)+`"}`),
			moveEv("0x1::fungible_asset::DepositEvent", `{"store_addr":"0x2","metadata_addr":"`+uinitMeta+`","amount":"10"}`),
			moveEv("0x1::fungible_asset::DepositOwnerEvent", `{"owner":"`+moveAddr(2)+`"}`),
			ev("transfer", "recipient", bechN(2), "sender", bechN(1), "amount", "10uinit"),
			moveEv("0x1::fungible_asset::WithdrawEvent", `{"store_addr":"0x3","metadata_addr":"`+faMeta+`","amount":"4"}`),
			moveEv("0x1::fungible_asset::WithdrawOwnerEvent", `{"owner":"`+moveAddr(3)+`"}`),
			moveEv("0x1::fungible_asset::DepositEvent", `{"store_addr":"0x4","metadata_addr":"`+faMeta+`","amount":"4"}`),
			moveEv("0x1::fungible_asset::DepositOwnerEvent", `{"owner":"`+moveAddr(4)+`"}`),
			moveEv("0x1::fungible_asset::DepositEvent", `{"store_addr":"0x4","metadata_addr":"`+faMeta+`","amount":"8"}`),
			moveEv("0x1::fungible_asset::DepositOwnerEvent", `{"owner":"`+moveAddr(5)+`"}`),
			moveEv("0x1::object::TransferEvent", `{"object":"0x99","from":"`+moveAddr(5)+`","to":"`+moveAddr(6)+`"}`),
			moveEv("0x1::fungible_asset::WithdrawEvent", `{"store_addr":"0x6","metadata_addr":"`+uinitMeta+`","amount":"3"}`),
			moveEv("0x1::fungible_asset::WithdrawOwnerEvent", `{"owner":"`+moveAddr(6)+`"}`),
			moveEv("0x1::fungible_asset::DepositEvent", `{"store_addr":"0x7","metadata_addr":"`+uinitMeta+`","amount":"3"}`),
			moveEv("0x1::fungible_asset::DepositOwnerEvent", `{"owner":"`+moveAddr(7)+`"}`),
		}, []string{"send 1>2 10 uinit m-1 c171", "move 3>4 4 move/" + strings.Repeat("cd", 32) + " m-1 c205",
			"move ->5 8 move/" + strings.Repeat("cd", 32) + " m-1 c205", "move_nft 5>6 1 move/" + strings.Repeat("00", 31) + "99 m-1 c153 #0x" + strings.Repeat("00", 31) + "99",
			"move 6>7 3 uinit m-1 c171"}},
		{"Wasm: CW20 and CW721 beside a bank send of the same amount", WasmTransfers(), []Event{
			ev("transfer", "recipient", bechN(2), "sender", bechN(1), "amount", "5uinit"),
			ev("wasm", "_contract_address", cwAddr, "action", "transfer", "from", bechN(1), "to", bechN(2), "amount", "5"),
			ev("wasm", "_contract_address", cwAddr, "action", "mint", "to", bechN(3), "amount", "9"),
			ev("wasm", "_contract_address", cwAddr, "action", "transfer_nft", "sender", bechN(3), "recipient", bechN(4), "token_id", "t1"),
			ev("wasm", "_contract_address", cwAddr, "action", "burn", "sender", bechN(4), "token_id", "t1"),
		}, []string{"send 1>2 5 uinit m-1", "cw20 1>2 5 cw20:" + cwAddr + " m-1 c194", "cw20 ->3 9 cw20:" + cwAddr + " m-1 c194",
			"cw721 3>4 1 cw721:" + cwAddr + " m-1 c194 #t1", "cw721 4>- 1 cw721:" + cwAddr + " m-1 c194 #t1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := &transfers{vm: c.vm, x: NewAccountExtractor("init")}
			got, err := x.txTransfers(context.Background(), 0, c.events)
			if err != nil {
				t.Fatal(err)
			}
			x.name(got)
			var s []string
			for _, g := range got {
				s = append(s, short(g))
			}
			if strings.Join(s, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(s, "\n  "), strings.Join(c.want, "\n  "))
			}
		})
	}
}

// TestTxTransfersBadInput: an unparsable bank event is ingestion's invalid data, not a silent skip.
func TestTxTransfersBadInput(t *testing.T) {
	x := &transfers{x: NewAccountExtractor("init")}
	for _, evs := range [][]Event{
		{ev("transfer", "recipient", bechN(2), "sender", "not-an-address!", "amount", "5uinit")},
		{ev("transfer", "recipient", bechN(2), "sender", bechN(1), "amount", "five uinit")},
	} {
		if _, err := x.txTransfers(context.Background(), 0, evs); err == nil {
			t.Errorf("%v: no error", evs)
		}
	}
}
