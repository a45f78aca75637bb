package address

import (
	"encoding/binary"
	"encoding/hex"
	"strings"
	"testing"
)

func be64(n ...uint64) []byte {
	var b []byte
	for _, v := range n {
		b = binary.BigEndian.AppendUint64(b, v)
	}
	return b
}

// Vectors from the captured chains: module accounts of minievm and the miniwasm
// contracts (README: STUB = code 2 instance 1, A = code 1 instance 2, B = code 1 instance 3).
func TestModuleAddresses(t *testing.T) {
	cases := []struct {
		name string
		addr []byte
		want string
	}{
		{"fee_collector", ModuleAccount("fee_collector"), "init17xpfvakm2amg962yls6f84z3kell8c5l70rnql"},
		{"opchild", Module("opchild"), "init1gz9n8jnu9fgqw7vem9ud67gqjk5q4m2w0aejne"},
		{"wasm stub", Module("wasm", be64(2, 1)), "init1wug8sewp6cedgkmrmvhl3lf3tulagm9hnvy8p0rppz9yjw0g4wtq7947m6"},
		{"wasm A", Module("wasm", be64(1, 2)), "init1suhgf5svhu4usrurvxzlgn54ksxmn8gljarjtxqnapv8kjnp4nrsept59e"},
		{"wasm B", Module("wasm", be64(1, 3)), "init1yyca08xqdgvjz0psg56z67ejh9xms6l436u8y58m82npdqqhmmtq59l38r"},
	}
	for _, c := range cases {
		got, err := Bech32("init", c.addr)
		if err != nil || got != c.want {
			t.Errorf("%s: %s, %v; want %s", c.name, got, err, c.want)
		}
	}
	if a, b := Module("m", []byte{1}, []byte{2}), Derive(Module("m", []byte{1}), []byte{2}); string(a) != string(b) || len(a) != 32 {
		t.Error("multi-key Module must chain Derive")
	}
}

// TestMoveCoinMetadata: uinit's metadata object on Initia's Move chains, as the L1 and minimove
// report it (0x1::coin::metadata(@0x1, "uinit")), and move/<hex> naming its object.
func TestMoveCoinMetadata(t *testing.T) {
	if got := hex.EncodeToString(MoveCoinMetadata("uinit")); got != "8e4733bdabcf7d4afc3d14f0dd46c9bf52fb0fce9e4b996c939e195b8bc891d9" {
		t.Errorf("uinit: %s", got)
	}
	h := strings.Repeat("ab", 32)
	if got := hex.EncodeToString(MoveCoinMetadata("move/" + h)); got != h {
		t.Errorf("move/<hex>: %s", got)
	}
}
