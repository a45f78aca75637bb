package txcodec

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/address"
	bankv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
)

const fixtureMnemonic = "test test test test test test test test test test test junk"

// Accounts of the captured chains (fixture README: HD m/44'/60'/<i>'/0/0, eth_secp256k1).
func TestMnemonicAccounts(t *testing.T) {
	cases := []struct{ path, hex, bech string }{
		{"m/44'/60'/0'/0/0", "f39fd6e51aad88f6f4ce6ab8827279cfffb92266", "init17w0adeg64ky0daxwd2ugyuneellmjgnxdtmpqz"},
		{"m/44'/60'/1'/0/0", "8c8d35429f74ec245f8ef2f4fd1e551cff97d650", "init13jxn2s5lwnkzghuw7t6068j4rnle04jslx73ct"},
		{"m/44'/60'/4'/0/0", "efdd9ca0e063bd6974d8fa944a747620fe7032e3", "init1alweeg8qvw7kjaxcl22y5arkyrl8qvhr8a80y2"},
	}
	for _, c := range cases {
		k, err := PrivKeyFromMnemonic(EthSecp256k1, fixtureMnemonic, c.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := hex.EncodeToString(k.Address()); got != c.hex {
			t.Errorf("%s: address %s, want %s", c.path, got, c.hex)
		}
		if got, _ := address.Bech32("init", k.Address()); got != c.bech {
			t.Errorf("%s: bech32 %s, want %s", c.path, got, c.bech)
		}
	}
	for _, bad := range []string{"44'/60'", "m/x", "m/44'/60'/99999999999'"} {
		if _, err := PrivKeyFromMnemonic(EthSecp256k1, fixtureMnemonic, bad); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("path %q: %v", bad, err)
		}
	}
}

// Rebuilding the captured h3 bank send (acc1 → acc2, 1 GAS, gas 205087, account 1,
// sequence 0) with the derived key must give the captured bytes exactly: same body,
// auth info and (deterministic RFC 6979) signature.
func TestBuildReproducesCapturedTx(t *testing.T) {
	const captured = "CpkBCpYBChwvY29zbW9zLmJhbmsudjFiZXRhMS5Nc2dTZW5kEnYKK2luaXQxM2p4bjJzNWx3bmt6Z2h1dzd0NjA2OGo0cm5sZTA0anNseDczY3QSK2luaXQxbnJqczh1NmFwZ3FlZXY5ejJ4a2pnd2p2ZWw4bnc4Nng4dmtldXoaGgoDR0FTEhMxMDAwMDAwMDAwMDAwMDAwMDAwEmEKWQpRCiovaW5pdGlhLmNyeXB0by52MWJldGExLmV0aHNlY3AyNTZrMS5QdWJLZXkSIwohAwN/QHZvvIOeG2mhloXOQvlnp0qH1ZelLvUlgQSEkIszEgQKAggBEgQQn8IMGkGXqQBFQl0wE3+144GuSG1+ZP1hqTXO2W5CuliEtZhhdGocLYEulhZ5wYEGwmmYqnjKKWYlmbPkIxiZxHVW2hrcHA=="
	want, _ := base64.StdEncoding.DecodeString(captured)
	k, err := PrivKeyFromMnemonic(EthSecp256k1, fixtureMnemonic, "m/44'/60'/1'/0/0")
	if err != nil {
		t.Fatal(err)
	}
	b := &Builder{
		ChainID: "local-evm-1",
		Msgs: []proto.Message{&bankv1beta1.MsgSend{
			FromAddress: "init13jxn2s5lwnkzghuw7t6068j4rnle04jslx73ct",
			ToAddress:   "init1nrjs8u6apgqeev9z2xkjgwjvel8nw86x8vkeuz",
			Amount:      []*basev1beta1.Coin{{Denom: "GAS", Amount: "1000000000000000000"}},
		}},
		GasLimit: 205087,
		Signers:  []Signer{{Key: k, AccountNumber: 1, Sequence: 0}},
	}
	got, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("built tx differs\n got %x\nwant %x", got, want)
	}
	if Hash(got) != "F064CD3FCB0431F6869848082A50105C697D1F7970CF85F1FF676790F872D5FE" {
		t.Errorf("hash %s", Hash(got))
	}
}

func TestBuildVerifyRoundTrip(t *testing.T) {
	for _, typ := range []KeyType{Secp256k1, EthSecp256k1} {
		for _, mode := range []struct {
			name string
			m    Builder
		}{{"direct", Builder{SignMode: SignModeDirect}}, {"amino", Builder{SignMode: SignModeLegacyAminoJSON}}} {
			t.Run(typ.String()+"/"+mode.name, func(t *testing.T) {
				k1, _ := PrivKeyFromSeed(typ, "alice")
				k2, _ := PrivKeyFromSeed(typ, "bob")
				from, _ := address.Bech32("init", k1.Address())
				to, _ := address.Bech32("init", k2.Address())
				b := mode.m
				b.ChainID = "test-1"
				b.Memo = "hello"
				b.GasLimit = 200000
				b.TimeoutHeight = 99
				b.Fee = []*basev1beta1.Coin{{Denom: "uinit", Amount: "5000"}}
				b.Msgs = []proto.Message{&bankv1beta1.MsgSend{FromAddress: from, ToAddress: to,
					Amount: []*basev1beta1.Coin{{Denom: "uinit", Amount: "1"}}}}
				b.Signers = []Signer{{Key: k1, AccountNumber: 7, Sequence: 3}, {Key: k2, AccountNumber: 8, Sequence: 0}}
				txBytes, err := b.Build()
				if err != nil {
					t.Fatal(err)
				}
				tx, err := Decode(txBytes)
				if err != nil {
					t.Fatal(err)
				}
				if len(tx.Msgs) != 1 || tx.Msgs[0].(*bankv1beta1.MsgSend).ToAddress != to {
					t.Fatalf("msgs: %v", tx.Msgs)
				}
				if got := tx.Signers[0].Address(); !bytes.Equal(got, k1.Address()) || tx.Signers[0].PubKey.Type != typ {
					t.Fatalf("signer 0: %x", got)
				}
				accs := map[string]Account{string(k1.Address()): {7, 3}, string(k2.Address()): {8, 0}}
				lookup := func(a []byte) (Account, bool) { acc, ok := accs[string(a)]; return acc, ok }
				if err := VerifySignatures(tx, "test-1", lookup); err != nil {
					t.Fatalf("verify: %v", err)
				}
				if err := VerifySignatures(tx, "test-2", lookup); !errors.Is(err, ErrUnauthorized) {
					t.Errorf("wrong chain: %v", err)
				}
				accs[string(k1.Address())] = Account{7, 4}
				if err := VerifySignatures(tx, "test-1", lookup); !errors.Is(err, ErrWrongSequence) {
					t.Errorf("wrong sequence: %v", err)
				}
				delete(accs, string(k1.Address()))
				if err := VerifySignatures(tx, "test-1", lookup); !errors.Is(err, ErrUnknownAddress) {
					t.Errorf("unknown account: %v", err)
				}
			})
		}
	}
}

func TestSignatureFormats(t *testing.T) {
	msg := []byte("sign me")
	for _, c := range []struct {
		typ    KeyType
		sigLen int
	}{{Secp256k1, 64}, {EthSecp256k1, 65}} {
		k, err := PrivKeyFromSeed(c.typ, "seed")
		if err != nil {
			t.Fatal(err)
		}
		sig, err := k.Sign(msg)
		if err != nil || len(sig) != c.sigLen {
			t.Fatalf("%v: len %d err %v", c.typ, len(sig), err)
		}
		pub := k.PubKey()
		if len(pub.Key) != 33 || len(pub.Address()) != 20 || !pub.Verify(msg, sig) {
			t.Fatalf("%v: verify own signature", c.typ)
		}
		if pub.Verify([]byte("other"), sig) || pub.Verify(msg, sig[:63]) {
			t.Errorf("%v: verified wrong input", c.typ)
		}
		// High-S twin of a valid signature (s' = n - s) must be rejected.
		hs := highS(sig[:64])
		if pub.Verify(msg, hs) {
			t.Errorf("%v: accepted high-S signature", c.typ)
		}
		a, err := pub.Any()
		if err != nil {
			t.Fatal(err)
		}
		back, err := PubKeyFromAny(a)
		if err != nil || back.Type != c.typ || !bytes.Equal(back.Key, pub.Key) {
			t.Errorf("%v: any round trip %v", c.typ, err)
		}
	}
	if _, err := NewPrivKey(Secp256k1, make([]byte, 32)); !errors.Is(err, ErrInvalidKey) {
		t.Error("zero key accepted")
	}
}

func TestAddressOf(t *testing.T) {
	eth, err := PrivKeyFromSeed(EthSecp256k1, "address-of")
	if err != nil {
		t.Fatal(err)
	}
	cos, err := PrivKeyFromSeed(Secp256k1, "address-of")
	if err != nil {
		t.Fatal(err)
	}
	ed := bytes.Repeat([]byte{7}, 32)
	edSum := sha256.Sum256(ed)
	tests := []struct {
		name    string
		typeURL string
		key     []byte
		want    []byte
		wantErr bool
	}{
		{"initia eth_secp256k1", EthSecp256k1PubKeyTypeURL, eth.PubKey().Key, eth.Address(), false},
		{"ethermint eth_secp256k1", "/ethermint.crypto.v1.ethsecp256k1.PubKey", eth.PubKey().Key, eth.Address(), false},
		{"secp256k1", Secp256k1PubKeyTypeURL, cos.PubKey().Key, cos.Address(), false},
		{"ed25519 consensus key", Ed25519PubKeyTypeURL, ed, edSum[:20], false},
		{"short ed25519", Ed25519PubKeyTypeURL, ed[:31], nil, true},
		{"not a compressed key", Secp256k1PubKeyTypeURL, bytes.Repeat([]byte{5}, 33), nil, true},
		{"unknown type", "/cosmos.crypto.multisig.LegacyAminoPubKey", cos.PubKey().Key, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := AddressOf(tc.typeURL, tc.key)
			if (err != nil) != tc.wantErr || !bytes.Equal(got, tc.want) {
				t.Errorf("AddressOf = %x, %v; want %x (error %v)", got, err, tc.want, tc.wantErr)
			}
		})
	}
}
