package ingest

import (
	"encoding/base64"
	"encoding/hex"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseAddress(t *testing.T) {
	x := NewAccountExtractor("init")
	tests := []struct {
		in   string
		want string // hex of the raw address; "" = rejected
	}{
		{"init13jxn2s5lwnkzghuw7t6068j4rnle04jslx73ct", "8c8d35429f74ec245f8ef2f4fd1e551cff97d650"},
		{"0x8C8d35429F74ec245F8Ef2f4Fd1e551cFF97d650", "8c8d35429f74ec245f8ef2f4fd1e551cff97d650"},
		{"8c8d35429f74ec245f8ef2f4fd1e551cff97d650", "8c8d35429f74ec245f8ef2f4fd1e551cff97d650"},
		// Move's 0x1 is the 20-byte 0x00…01.
		{"0x1", "0000000000000000000000000000000000000001"},
		// A 32-byte EVM topic with 12 zero bytes collapses to the 20-byte address.
		{"0x000000000000000000000000cb9fa1ea9b8a3bf422a8639f23df77ea66020ec2", "cb9fa1ea9b8a3bf422a8639f23df77ea66020ec2"},
		// A Move object address keeps 32 bytes.
		{"0x69e44905fca4023591a4d9527fc155bcb0f8b7f260351a86f9a5ca053bc46a9a", "69e44905fca4023591a4d9527fc155bcb0f8b7f260351a86f9a5ca053bc46a9a"},
		// A 32-byte value with fewer leading zeros than a 20-byte one is left-padded to 32.
		{"0x00000000000000000000000100000000000000000000000000000000000000ff", "00000000000000000000000100000000000000000000000000000000000000ff"},
		{"0x" + strings.Repeat("1", 65), ""},
		{"init13jxn2s5lwnkzghuw7t6068j4rnle04jslx73cq", ""}, // bad checksum, not hex either
		{"cosmos13jxn2s5lwnkzghuw7t6068j4rnle04jslx73ct", ""},
		{"0xzz", ""},
	}
	for _, tt := range tests {
		got, ok := x.ParseAddress(tt.in)
		if tt.want == "" {
			if ok {
				t.Errorf("ParseAddress(%q) = %x, want rejection", tt.in, got)
			}
			continue
		}
		if !ok || hex.EncodeToString(got) != tt.want {
			t.Errorf("ParseAddress(%q) = %x, %v; want %s", tt.in, got, ok, tt.want)
		}
	}
}

func attrs(kv ...string) []EventAttribute {
	var out []EventAttribute
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, EventAttribute{Key: kv[i], Value: kv[i+1], Index: true})
	}
	return out
}

// The events below are copied from the captured block results of the three fixture chains.
func TestExtractAccounts(t *testing.T) {
	tests := []struct {
		name   string
		prefix string
		events []Event
		want   []string // hex
	}{
		{
			name: "minievm h7: fee ERC20 log, bank events, call.ret skipped",
			events: []Event{
				{Type: "call", Attributes: attrs("contract", "0x042adD9e80f7a23Ab71D5e1d392af1d3928B7D05", "ret", "0x000000000000000000000000000000000000000000000000000000000000dead")},
				{Type: "evm", Attributes: attrs("log", `{"address":"0x042adD9e80f7a23Ab71D5e1d392af1d3928B7D05","topics":["0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef","0x000000000000000000000000cb9fa1ea9b8a3bf422a8639f23df77ea66020ec2","0x000000000000000000000000f1829676db577682e944fc3493d451b67ff3e29f"],"data":"0x00000000000000000000000000000000000000000000000000005af3107a4000"}`)},
				{Type: "coin_spent", Attributes: attrs("spender", "init1ew06r65m3galgg4gvw0j8hmhafnqyrkzsqnw36", "amount", "100000000000000GAS")},
				{Type: "tx", Attributes: attrs("acc_seq", "init1ew06r65m3galgg4gvw0j8hmhafnqyrkzsqnw36/0")},
				{Type: "message", Attributes: attrs("sender", "init1ew06r65m3galgg4gvw0j8hmhafnqyrkzsqnw36", "msg_index", "0")},
			},
			want: []string{
				"042add9e80f7a23ab71d5e1d392af1d3928b7d05",
				"cb9fa1ea9b8a3bf422a8639f23df77ea66020ec2",
				"f1829676db577682e944fc3493d451b67ff3e29f",
			},
		},
		{
			name: "minimove h19: Move data (unanchored, 0x1 included) and comma-joined signers",
			events: []Event{
				{Type: "execute", Attributes: attrs("sender", "0x1,0x8c8d35429f74ec245f8ef2f4fd1e551cff97d650", "module_addr", "0x1", "module_name", "simple_nft")},
				{Type: "move", Attributes: attrs(
					"type_tag", "0x1::collection::MintEvent",
					"data", `{"collection":"0xe4fb054b128789d16c9b95287d8005030754dd55b09effb17d2c04377ff598d0","token_id":"1","nft":"0x69e44905fca4023591a4d9527fc155bcb0f8b7f260351a86f9a5ca053bc46a9a"}`,
					"token_id", "1",
				)},
			},
			want: []string{
				"0000000000000000000000000000000000000001",
				"8c8d35429f74ec245f8ef2f4fd1e551cff97d650",
				"e4fb054b128789d16c9b95287d8005030754dd55b09effb17d2c04377ff598d0",
				"69e44905fca4023591a4d9527fc155bcb0f8b7f260351a86f9a5ca053bc46a9a",
			},
		},
		{
			name: "miniwasm: 32-byte contract bech32, wasm attributes; non-address values ignored",
			events: []Event{
				{Type: "execute", Attributes: attrs("_contract_address", "init1wug8sewp6cedgkmrmvhl3lf3tulagm9hnvy8p0rppz9yjw0g4wtq7947m6")},
				{Type: "wasm", Attributes: attrs("action", "transfer_nft", "recipient", "init1nrjs8u6apgqeev9z2xkjgwjvel8nw86x8vkeuz", "token_id", "0x")},
			},
			want: []string{
				"77107865c1d632d45b63db2ff8fd315f3fd46cb79b0870bc61088a4939e8ab96",
				"98e503f35d0a019cb0a251ad243a4ccfcf371f46",
			},
		},
		{
			name:   "the configured prefix, not init",
			prefix: "minim",
			events: []Event{
				{Type: "transfer", Attributes: attrs("recipient", "init1nrjs8u6apgqeev9z2xkjgwjvel8nw86x8vkeuz", "sender", "minim1nrjs8u6apgqeev9z2xkjgwjvel8nw86xh54ne5")},
			},
			want: []string{"98e503f35d0a019cb0a251ad243a4ccfcf371f46"},
		},
		{
			name:   "malformed EVM log is skipped",
			events: []Event{{Type: "evm", Attributes: attrs("log", "{not json")}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := tt.prefix
			if prefix == "" {
				prefix = "init"
			}
			var got []string
			for _, a := range NewAccountExtractor(prefix).Extract(tt.events) {
				got = append(got, hex.EncodeToString(a))
			}
			sort.Strings(got)
			want := append([]string(nil), tt.want...)
			sort.Strings(want)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("accounts (-want +got):\n%s", d)
			}
		})
	}
}

func TestPubKeyAddress(t *testing.T) {
	x := NewAccountExtractor("init")
	// Keys and addresses from the minievm capture (acc1's eth_secp256k1 key) and the opchild
	// validator (ed25519 consensus key → the header's proposer_address).
	tests := []struct {
		typ, keyB64, want string
	}{
		{"/initia.crypto.v1beta1.ethsecp256k1.PubKey", "AwN/QHZvvIOeG2mhloXOQvlnp0qH1ZelLvUlgQSEkIsz", "init13jxn2s5lwnkzghuw7t6068j4rnle04jslx73ct"},
		{"/cosmos.crypto.ed25519.PubKey", "xlMTDmchI4qYIdEX3nLZnykpajD3LimVvYGz4dqpDOc=", "d00d2a8966c356c6f6cbdc665c618f87e1c5c420"},
	}
	for _, tt := range tests {
		key, err := b64(tt.keyB64)
		if err != nil {
			t.Fatal(err)
		}
		addr, err := pubKeyAddress(tt.typ, key)
		if err != nil {
			t.Fatalf("%s: %v", tt.typ, err)
		}
		got := hex.EncodeToString(addr)
		if strings.HasPrefix(tt.want, "init") {
			got = x.Bech32(addr)
		}
		if got != tt.want {
			t.Errorf("%s: %s, want %s", tt.typ, got, tt.want)
		}
	}
	if _, err := pubKeyAddress("/cosmos.crypto.multisig.LegacyAminoPubKey", nil); err == nil {
		t.Error("multisig key accepted")
	}
}

func b64(s string) ([]byte, error) { return base64.StdEncoding.DecodeString(s) }

// The hand-written matchers accept exactly what rollytics' patterns accept.
func TestCandidateMatchersEqualPatterns(t *testing.T) {
	x := NewAccountExtractor("init")
	cands := []string{
		"", "0x", "0x0", "0xG", "0xabcDEF", "0X12", " 0x12", "0x12 ", "0x" + strings.Repeat("f", 64), "0x" + strings.Repeat("f", 65),
		"init1", "init1" + strings.Repeat("q", 38), "init1" + strings.Repeat("q", 37), "init1" + strings.Repeat("q", 58),
		"init1" + strings.Repeat("q", 39), "init1" + strings.Repeat("Q", 38), "init1" + strings.Repeat("q", 37) + "-",
		"cosmos1" + strings.Repeat("q", 38), "initinit1" + strings.Repeat("q", 38), "init10wzzgt4rr3947kt505tcjdsvh8x6g5vn3n2j5d",
		"init1" + strings.Repeat("9", 58), "init1" + strings.Repeat("é", 19),
	}
	for _, c := range cands {
		if got, want := x.isBech32Candidate(c), x.bech32R.MatchString(c); got != want {
			t.Errorf("bech32 %q: %v, pattern %v", c, got, want)
		}
		if got, want := isHexCandidate(c), anchoredHex.MatchString(c); got != want {
			t.Errorf("hex %q: %v, pattern %v", c, got, want)
		}
	}
}
