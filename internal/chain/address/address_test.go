package address

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Pairs from the minievm fixture README (the same key rendered both ways by the chain).
func TestBech32Hex(t *testing.T) {
	cases := []struct{ bech, hex string }{
		{"init17w0adeg64ky0daxwd2ugyuneellmjgnxdtmpqz", "f39fd6e51aad88f6f4ce6ab8827279cfffb92266"},
		{"init13jxn2s5lwnkzghuw7t6068j4rnle04jslx73ct", "8c8d35429f74ec245f8ef2f4fd1e551cff97d650"},
		{"init1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqpqr5e3d", "0000000000000000000000000000000000000001"},
	}
	for _, c := range cases {
		got, err := Bech32("init", mustHex(t, c.hex))
		if err != nil || got != c.bech {
			t.Errorf("Bech32(%s) = %q, %v; want %q", c.hex, got, err, c.bech)
		}
		b, err := FromBech32("init", c.bech)
		if err != nil || hex.EncodeToString(b) != c.hex {
			t.Errorf("FromBech32(%s) = %x, %v", c.bech, b, err)
		}
		if _, err := FromBech32("cosmos", c.bech); !errors.Is(err, ErrInvalid) {
			t.Errorf("wrong prefix accepted: %v", err)
		}
	}
}

func TestLongBech32(t *testing.T) {
	b := bytes.Repeat([]byte{0xab}, 64)
	s, err := Bech32("initvaloperlongprefix", b)
	if err != nil {
		t.Fatal(err)
	}
	if len(s) <= 90 {
		t.Fatalf("test needs a string above the BIP-173 limit, got %d", len(s))
	}
	_, got, err := DecodeBech32(s)
	if err != nil || !bytes.Equal(got, b) {
		t.Fatalf("decode: %x %v", got, err)
	}
}

func TestValidateBech32(t *testing.T) {
	a20 := "init13jxn2s5lwnkzghuw7t6068j4rnle04jslx73ct"
	a32, _ := Bech32("init", bytes.Repeat([]byte{1}, 32))
	cases := []struct {
		s    string
		lens []int
		ok   bool
	}{
		{a20, nil, true},
		{a20, []int{20}, true},
		{a20, []int{32}, false},
		{a32, []int{20, 32}, true},
		{"init13jxn2s5lwnkzghuw7t6068j4rnle04jslx73cu", nil, false}, // checksum
		{"", nil, false},
		{"0x8c8d35429f74ec245f8ef2f4fd1e551cff97d650", nil, false},
	}
	for _, c := range cases {
		err := ValidateBech32("init", c.s, c.lens...)
		if (err == nil) != c.ok {
			t.Errorf("ValidateBech32(%q, %v) = %v, want ok=%v", c.s, c.lens, err, c.ok)
		}
	}
}

func TestNormalizeHex(t *testing.T) {
	cases := []struct {
		in, want string
		err      bool
	}{
		{"0x1", strings.Repeat("0", 39) + "1", false},
		{"1", strings.Repeat("0", 39) + "1", false},
		{"0x8C8d35429F74ec245F8Ef2f4Fd1e551cFF97d650", "8c8d35429f74ec245f8ef2f4fd1e551cff97d650", false},
		{"0x0000000000000000000000008c8d35429f74ec245f8ef2f4fd1e551cff97d650", "8c8d35429f74ec245f8ef2f4fd1e551cff97d650", false},
		{"0x" + strings.Repeat("ab", 32), strings.Repeat("ab", 32), false},
		{"0x1" + strings.Repeat("0", 40), strings.Repeat("0", 23) + "1" + strings.Repeat("0", 40), false},
		{"0x" + strings.Repeat("ab", 33), "", true},
		{"0xzz", "", true},
		{"0x", strings.Repeat("0", 40), false},
	}
	for _, c := range cases {
		b, err := NormalizeHex(c.in)
		if c.err {
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("NormalizeHex(%q) err = %v, want ErrInvalid", c.in, err)
			}
			continue
		}
		if err != nil || hex.EncodeToString(b) != c.want {
			t.Errorf("NormalizeHex(%q) = %x, %v; want %s", c.in, b, err, c.want)
		}
	}
}

func TestParse(t *testing.T) {
	cases := []struct{ in, want string }{
		{"init13jxn2s5lwnkzghuw7t6068j4rnle04jslx73ct", "init13jxn2s5lwnkzghuw7t6068j4rnle04jslx73ct"},
		{"0x8C8d35429F74ec245F8Ef2f4Fd1e551cFF97d650", "init13jxn2s5lwnkzghuw7t6068j4rnle04jslx73ct"},
		{"8c8d35429f74ec245f8ef2f4fd1e551cff97d650", "init13jxn2s5lwnkzghuw7t6068j4rnle04jslx73ct"},
		{"0x1", "init1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqpqr5e3d"},
	}
	for _, c := range cases {
		got, err := ToBech32("init", c.in)
		if err != nil || got != c.want {
			t.Errorf("ToBech32(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	if _, err := Parse("init", "cosmos1notanaddress"); err == nil {
		t.Error("garbage accepted")
	}
}

func TestParseHex(t *testing.T) {
	for in, want := range map[string]string{"0xABC": "0abc", "abcd": "abcd", "0X01": "01", "": ""} {
		b, err := ParseHex(in)
		if err != nil || hex.EncodeToString(b) != want {
			t.Errorf("ParseHex(%q) = %x, %v", in, b, err)
		}
	}
	if _, err := ParseHex("0xg1"); err == nil {
		t.Error("bad hex accepted")
	}
	if Hex([]byte{0xAB, 1}) != "0xab01" {
		t.Error("Hex")
	}
}

func TestParseAccount(t *testing.T) {
	acc1 := "init13jxn2s5lwnkzghuw7t6068j4rnle04jslx73ct"
	hex20 := "0x8c8d35429f74ec245f8ef2f4fd1e551cff97d650"
	hex32 := "0x77107865c1d632d45b63db2ff8fd315f3fd46cb79b0870bc61088a4939e8ab96"
	tests := []struct {
		in      string
		wantLen int
		wantErr bool
	}{
		{acc1, 20, false},
		{hex20, 20, false},
		{strings.ToUpper(hex20[:2]) + hex20[2:], 20, false},
		{hex32, 32, false},
		{"0x01", 0, true},               // Parse pads it; a chain's codec does not
		{hex20[2:], 0, true},            // bare hex is not an account here
		{"cosmos1" + acc1[5:], 0, true}, // other prefix
		{"0xzz", 0, true},
	}
	for _, tc := range tests {
		b, err := ParseAccount("init", tc.in)
		if (err != nil) != tc.wantErr || (!tc.wantErr && len(b) != tc.wantLen) {
			t.Errorf("ParseAccount(%q) = %x, %v", tc.in, b, err)
		}
	}
	if b, _ := ParseAccount("init", acc1); Hex(b) != hex20 {
		t.Errorf("bech32 and hex forms differ: %s", Hex(b))
	}
}
