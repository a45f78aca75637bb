package layerzero

import (
	"bytes"
	"encoding/hex"
	"testing"
)

// TestComposeCodecs: the executor's lzCompose option is found only for its index and only in
// type-3 options (after another executor option too), and the compose message the L1's OFT
// builds puts the amount as a u256 between the source eid and the compose payload.
func TestComposeCodecs(t *testing.T) {
	opts := ComposeOptions(0, 200_000)
	if got := hex.EncodeToString(opts); got != "0003010013030000"+"00000000000000000000000000030d40" {
		t.Fatalf("options %s", got)
	}
	// An lzReceive option (type 1: gas u128) first, then the compose option.
	recv := append([]byte{1, 0, 17, 1}, make([]byte, 16)...)
	mixed := append(append([]byte{0, 3}, recv...), opts[2:]...)
	for _, c := range []struct {
		opts  []byte
		index uint16
		want  bool
	}{{opts, 0, true}, {opts, 1, false}, {mixed, 0, true}, {nil, 0, false}, {[]byte{0, 1}, 0, false}, {opts[:7], 0, false}} {
		if got := HasComposeOption(c.opts, c.index); got != c.want {
			t.Errorf("HasComposeOption(%x, %d) = %v, want %v", c.opts, c.index, got, c.want)
		}
	}
	var to, from [32]byte
	to[31], from[31] = 1, 2
	m := OFTComposeMessage(to, 5, from, []byte{9})
	if len(m) != 32+8+32+1 || !bytes.Equal(m[40:72], from[:]) || m[72] != 9 || !bytes.Equal(OFTComposeMessage(to, 5, from, nil), OFTMessage(to, 5)) {
		t.Fatalf("OFT message %x", m)
	}
	c := ComposeMessage(3, EIDEthereum, 5, m[40:])
	if len(c) != 8+4+32+33 || c[7] != 3 || c[43] != 5 || !bytes.Equal(c[44:], m[40:]) {
		t.Fatalf("compose message %x", c)
	}
}
