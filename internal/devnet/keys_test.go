package devnet

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestParseAccount(t *testing.T) {
	cases := []struct {
		name     string
		doc      string
		num, seq uint64
		err      bool
	}{
		{"base account in envelope", `{"account":{"@type":"/cosmos.auth.v1beta1.BaseAccount","address":"init1x","pub_key":null,"account_number":"7","sequence":"3"}}`, 7, 3, false},
		{"bare base account", `{"@type":"/cosmos.auth.v1beta1.BaseAccount","account_number":"12","sequence":"0"}`, 12, 0, false},
		{"module account", `{"@type":"/cosmos.auth.v1beta1.ModuleAccount","base_account":{"account_number":"4","sequence":"9"},"name":"x"}`, 4, 9, false},
		{"not a number", `{"account_number":"x","sequence":"0"}`, 0, 0, true},
		{"not json", `nope`, 0, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			num, seq, err := ParseAccount([]byte(c.doc))
			if (err != nil) != c.err || num != c.num || seq != c.seq {
				t.Fatalf("got %d %d %v", num, seq, err)
			}
		})
	}
}

func TestParseChains(t *testing.T) {
	specs, err := ParseChains("l1-1:l1, hub-1:cosmos,w-1:wasm")
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != 3 || specs[1].Prefix != "cosmos" || specs[1].withDefaults().FeeDenom != "uatom" || !specs[1].withDefaults().CosmosKeys ||
		specs[0].withDefaults().Prefix != "init" || specs[2].Kind != KindWasm {
		t.Fatalf("%+v", specs)
	}
	if _, err := ParseChains("x:nope"); err == nil {
		t.Fatal("unknown kind accepted")
	}
}

// TestKeys: the keys handed out are the funded ones, and their accounts read over REST
// start where a wallet expects; users differ from the traffic accounts.
func TestKeys(t *testing.T) {
	n := startManual(t, 3, nil)
	ctx := context.Background()
	for _, id := range n.ChainIDs() {
		u, err := n.UserKey(id, 0)
		if err != nil {
			t.Fatal(err)
		}
		k, err := n.Key(id, 0)
		if err != nil {
			t.Fatal(err)
		}
		if string(u.Address()) == string(k.Address()) {
			t.Errorf("%s: user 0 is traffic account 0", id)
		}
		if _, seq, err := n.Account(ctx, id, n.Address(id, u)); err != nil || seq != 0 {
			t.Errorf("%s: user account seq %d err %v", id, seq, err)
		}
		if _, err := n.UserKey(id, 99); err == nil {
			t.Errorf("%s: user 99 handed out", id)
		}
	}
	u, _ := n.UserKey(hubID, 0)
	if a := n.Address(hubID, u); !strings.HasPrefix(a, "cosmos1") {
		t.Errorf("cosmoshub user address %s", a)
	}
}

// TestTestAccounts: the printed mnemonic opens funded accounts in the wallets Initia users
// have. initia.js' MnemonicKey, InterwovenKit and MetaMask derive m/44'/60'/0'/0/i with
// eth_secp256k1 keys on Initia chains (account 0 and 1 below are Anvil's, whose 0x forms and
// keys every Ethereum developer knows); Keplr derives m/44'/118'/0'/0/i with secp256k1 on
// the Cosmos chain. Each address must hold its genesis coins over the chain's REST, the
// way a wallet reads it before its first transfer.
func TestTestAccounts(t *testing.T) {
	n := startManual(t, 1, func(c *Config) { c.TestAccounts = 2 })
	accts, err := n.TestAccounts()
	if err != nil {
		t.Fatal(err)
	}
	if len(accts) != 2 {
		t.Fatalf("%d test accounts, want 2", len(accts))
	}
	initia := []string{l1ID, evmID, moveID, wasmID}
	// The hub's addresses were checked against an independent BIP-32 derivation (secp256k1,
	// RIPEMD160(SHA256(pubkey)), bech32), not taken from this code's output.
	cases := []struct {
		index                          int
		initAddr, evm, evmKey, hubAddr string
	}{
		{0, "init17w0adeg64ky0daxwd2ugyuneellmjgnxdtmpqz", "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
			"0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80", "cosmos15yk64u7zc9g9k2yr2wmzeva5qgwxps6yxj00e7"},
		{1, "init1wzvhjux9rqfdcwspp37srdgwp5tac7wg9ql75y", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
			"0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d", "cosmos1erxf3sa9q2j4vgseu7jq4a258ckmk7cy076t8z"},
	}
	ctx := context.Background()
	for _, c := range cases {
		a := accts[c.index]
		for _, id := range initia {
			if a.Addresses[id] != c.initAddr || a.HDPaths[id] != fmt.Sprintf("m/44'/60'/0'/0/%d", c.index) || a.KeyTypes[id] != "eth_secp256k1" {
				t.Errorf("#%d on %s: %s %s %s", c.index, id, a.Addresses[id], a.HDPaths[id], a.KeyTypes[id])
			}
		}
		if got := a.EVM[evmID]; got.Address != c.evm || got.PrivateKey != c.evmKey || len(a.EVM) != 1 {
			t.Errorf("#%d EVM accounts %+v, want %s %s on %s only", c.index, a.EVM, c.evm, c.evmKey, evmID)
		}
		if a.HDPaths[hubID] != fmt.Sprintf("m/44'/118'/0'/0/%d", c.index) || a.KeyTypes[hubID] != "secp256k1" ||
			a.Addresses[hubID] != c.hubAddr {
			t.Errorf("#%d on the hub: %s %s %s", c.index, a.Addresses[hubID], a.HDPaths[hubID], a.KeyTypes[hubID])
		}
		for _, id := range a.ChainIDs() {
			if _, seq, err := n.Account(ctx, id, a.Addresses[id]); err != nil || seq != 0 {
				t.Errorf("#%d on %s: account %s: seq %d, %v", c.index, id, a.Addresses[id], seq, err)
			}
			spec, _ := n.Spec(id)
			var bal struct {
				Balance CoinJSON `json:"balance"`
			}
			raw := httpGet(t, n.Endpoints()[id].REST+"/cosmos/bank/v1beta1/balances/"+a.Addresses[id]+"/by_denom?denom="+spec.FeeDenom)
			want := "1000000000000" // a million of a micro denom
			if spec.FeeDenom == "GAS" {
				want += "000000000000" // a million GAS at its 18 decimals
			}
			if err := json.Unmarshal(raw, &bal); err != nil || bal.Balance.Amount != want {
				t.Errorf("#%d on %s: %s balance %s", c.index, id, spec.FeeDenom, raw)
			}
		}
	}
}
