package ingest

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	txv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/v1beta1"
)

// synthTx returns raw tx bytes with the given signatures and the matching REST JSON.
func synthTx(t *testing.T, sigs []string, fee, pubKey string) ([]byte, json.RawMessage) {
	t.Helper()
	var raw [][]byte
	var quoted []string
	for _, s := range sigs {
		raw = append(raw, []byte(s))
		quoted = append(quoted, fmt.Sprintf("%q", base64.StdEncoding.EncodeToString([]byte(s))))
	}
	b, err := proto.Marshal(&txv1beta1.TxRaw{BodyBytes: []byte(strings.Join(sigs, "")), Signatures: raw})
	if err != nil {
		t.Fatal(err)
	}
	rest := fmt.Sprintf(`{"body":{"messages":[{"@type":"/cosmos.bank.v1beta1.MsgSend"},{"@type":"/cosmos.bank.v1beta1.MsgSend"}]},`+
		`"auth_info":{"signer_infos":[{"public_key":%s}],"fee":{"amount":%s}},"signatures":[%s]}`, pubKey, fee, strings.Join(quoted, ","))
	return b, json.RawMessage(rest)
}

const acc1Key = `{"@type":"/initia.crypto.v1beta1.ethsecp256k1.PubKey","key":"AwN/QHZvvIOeG2mhloXOQvlnp0qH1ZelLvUlgQSEkIsz"}`

func TestBuildBlock(t *testing.T) {
	tests := []struct {
		name      string
		fees      []string // per tx
		keys      []string // per tx
		restOrder []int    // REST list as a permutation of the block's txs
		wantFee   string
		wantErr   error
	}{
		{name: "no txs", wantFee: `[]`},
		{
			name:    "fees summed per denom, sorted, zeros dropped",
			fees:    []string{`[{"denom":"umin","amount":"5"},{"denom":"GAS","amount":"0"}]`, `[{"denom":"uatom","amount":"7"},{"denom":"umin","amount":"18446744073709551616"}]`},
			keys:    []string{acc1Key, acc1Key},
			wantFee: `[{"denom":"uatom","amount":"7"},{"denom":"umin","amount":"18446744073709551621"}]`,
		},
		{
			name:      "REST order differs: matched by signatures",
			fees:      []string{`[]`, `[]`, `[]`},
			keys:      []string{acc1Key, acc1Key, acc1Key},
			restOrder: []int{2, 0, 1},
			wantFee:   `[]`,
		},
		{
			name:    "unknown key type: signer unknown, block still built",
			fees:    []string{`[]`},
			keys:    []string{`{"@type":"/cosmos.crypto.multisig.LegacyAminoPubKey","threshold":1}`},
			wantFee: `[]`,
		},
		{name: "bad fee amount", fees: []string{`[{"denom":"umin","amount":"-1"}]`}, keys: []string{acc1Key}, wantErr: ErrInvalidData},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			blk := &RawBlock{ChainID: "c-1", Height: 9, Hash: []byte{0xab}, Time: time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)}
			var rest []json.RawMessage
			var results []TxResult
			for i := range tt.fees {
				b, r := synthTx(t, []string{fmt.Sprintf("sig%d", i), "second"}, tt.fees[i], tt.keys[i])
				blk.Txs = append(blk.Txs, b)
				rest = append(rest, r)
				results = append(results, TxResult{GasUsed: int64(10 * (i + 1)), GasWanted: 100, Code: uint32(i), Data: []byte{0xca, 0xfe}})
			}
			if tt.restOrder != nil {
				perm := make([]json.RawMessage, len(rest))
				for i, j := range tt.restOrder {
					perm[i] = rest[j]
				}
				rest = perm
			}
			got, err := NewBuilder("", "init").Build(blk, results, rest, nil)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got.Block.TotalFee) != tt.wantFee {
				t.Errorf("total_fee %s, want %s", got.Block.TotalFee, tt.wantFee)
			}
			if got.Block.ChainID != "c-1" || got.Block.TxCount != len(tt.fees) || got.Block.GasWanted != int64(100*len(tt.fees)) {
				t.Errorf("block %+v", got.Block)
			}
			for i, tx := range got.Txs {
				var j struct {
					Height, Data, Timestamp, GasUsed string
					Code                             uint32
					Tx                               struct{ Signatures []string }
					Logs                             []any
				}
				if err := json.Unmarshal(tx.JSON, &j); err != nil {
					t.Fatal(err)
				}
				wantSig := base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("sig%d", i)))
				if len(j.Tx.Signatures) != 2 || j.Tx.Signatures[0] != wantSig {
					t.Errorf("tx %d got the REST JSON of %v", i, j.Tx.Signatures)
				}
				if j.Height != "9" || j.Data != "CAFE" || j.Code != uint32(i) || j.Timestamp != "2026-01-02T03:04:05.0000006Z" || j.Logs == nil {
					t.Errorf("tx %d JSON %s", i, tx.JSON)
				}
				if strings.Join(tx.MsgTypes, " ") != "cosmos.bank.v1beta1.MsgSend cosmos.bank.v1beta1.MsgSend" {
					t.Errorf("tx %d msg types %v", i, tx.MsgTypes)
				}
				if strings.Contains(tt.keys[i], "multisig") != (tx.Signer == nil) {
					t.Errorf("tx %d signer %x", i, tx.Signer)
				}
				if tx.Signer != nil && (len(tx.Accounts) != 1 || !tx.Accounts[0].Signer) {
					t.Errorf("tx %d accounts %+v: want just the signer", i, tx.Accounts)
				}
			}
		})
	}
}

func TestBuildRejectsUnmatchedTx(t *testing.T) {
	b, _ := synthTx(t, []string{"a"}, `[]`, acc1Key)
	_, other := synthTx(t, []string{"b"}, `[]`, acc1Key)
	blk := &RawBlock{Height: 3, Txs: [][]byte{b}}
	_, err := NewBuilder("x", "init").Build(blk, []TxResult{{}}, []json.RawMessage{other}, nil)
	if !errors.Is(err, ErrInvalidData) {
		t.Fatalf("err %v, want ErrInvalidData", err)
	}
	if _, err := NewBuilder("x", "init").Build(blk, nil, []json.RawMessage{other}, nil); !errors.Is(err, ErrInvalidData) {
		t.Fatalf("missing results: err %v, want ErrInvalidData", err)
	}
}

func TestSanitize(t *testing.T) {
	ev := sanitizeEvents([]Event{{Type: "x", Attributes: []EventAttribute{{Key: "k\x00", Value: "a\x00b"}}}})
	if ev[0].Attributes[0].Key != "k\uFFFD" || ev[0].Attributes[0].Value != "a\uFFFDb" {
		t.Errorf("events %+v", ev)
	}
	if got := string(sanitizeJSON(json.RawMessage(`{"a":"x\u0000y","b":"\\u0000"}`))); got != `{"a":"x\ufffdy","b":"\\u0000"}` {
		t.Errorf("json %s", got)
	}
}

// The signer cache answers exactly what the derivation answers, for every key type, the
// second time too, and keeps key types apart for the same key bytes.
func TestSignerAddressCache(t *testing.T) {
	ethKey, err := base64.StdEncoding.DecodeString("AwN/QHZvvIOeG2mhloXOQvlnp0qH1ZelLvUlgQSEkIsz")
	if err != nil {
		t.Fatal(err)
	}
	ed := make([]byte, 32)
	tests := []struct {
		name    string
		typeURL string
		key     []byte
	}{
		{"eth_secp256k1", "/initia.crypto.v1beta1.ethsecp256k1.PubKey", ethKey},
		{"secp256k1, same bytes", "/cosmos.crypto.secp256k1.PubKey", ethKey},
		{"ed25519", "/cosmos.crypto.ed25519.PubKey", ed},
		{"unknown type", "/cosmos.crypto.multisig.LegacyAminoPubKey", ethKey},
		{"invalid key", "/cosmos.crypto.secp256k1.PubKey", ethKey[:20]},
	}
	b := NewBuilder("", "init")
	for round := range 2 {
		for _, tt := range tests {
			want, werr := pubKeyAddress(tt.typeURL, tt.key)
			if werr != nil {
				want = nil
			}
			if got := b.signerAddress(tt.typeURL, tt.key); string(got) != string(want) || (got == nil) != (want == nil) {
				t.Errorf("round %d, %s: %x, want %x", round, tt.name, got, want)
			}
		}
	}
	if a, c := b.signerAddress(tests[0].typeURL, ethKey), b.signerAddress(tests[1].typeURL, ethKey); string(a) == string(c) {
		t.Errorf("eth_secp256k1 and secp256k1 addresses of one key are equal: %x", a)
	}
}
