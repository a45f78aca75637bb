package ibc

import (
	"encoding/base64"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNFTPacketData(t *testing.T) {
	d := NFTPacketData{ClassID: "frogs", ClassURI: "https://x/frogs.json", ClassData: ClassDataName("Tiny Frogs"),
		TokenIDs: []string{"1", "2"}, TokenURIs: []string{"u1", "u2"}, Sender: "init1s", Receiver: "init1r"}
	// The specification's field names, in its order; empty optional fields left out.
	want := `{"classId":"frogs","classUri":"https://x/frogs.json","classData":"eyJuYW1lIjoiVGlueSBGcm9ncyJ9",` +
		`"tokenIds":["1","2"],"tokenUris":["u1","u2"],"sender":"init1s","receiver":"init1r"}`
	if got := string(d.Bytes()); got != want {
		t.Errorf("bytes\n got %s\nwant %s", got, want)
	}
	if cd, _ := base64.StdEncoding.DecodeString(d.ClassData); string(cd) != `{"name":"Tiny Frogs"}` {
		t.Errorf("classData decodes to %s", cd)
	}
	back, err := ParseNFTPacketData(d.Bytes())
	if err != nil || !cmp.Equal(back, d) {
		t.Errorf("round trip: %+v %v", back, err)
	}
	for _, tc := range []struct{ name, in string }{
		{"not JSON", `nope`},
		{"no class", `{"classId":"","tokenIds":["1"],"sender":"s","receiver":"r"}`},
		{"no tokens", `{"classId":"c","tokenIds":[],"sender":"s","receiver":"r"}`},
		{"uris do not match ids", `{"classId":"c","tokenIds":["1","2"],"tokenUris":["u"],"sender":"s","receiver":"r"}`},
		{"no sender", `{"classId":"c","tokenIds":["1"],"receiver":"r"}`},
		{"no receiver", `{"classId":"c","tokenIds":["1"],"sender":"s"}`},
	} {
		if _, err := ParseNFTPacketData([]byte(tc.in)); err == nil {
			t.Errorf("%s: accepted %s", tc.name, tc.in)
		}
	}
}

func TestVoucherClass(t *testing.T) {
	for _, tc := range []struct {
		name      string
		pathNames bool
		want      string
	}{
		// sha256sum of "nft-transfer/channel-1/frogs", upper-cased
		{"hash (move, evm)", false, "ibc/3C986C640995CB4F45B4DFC7134F3A8FEAE0172D931A17C6A8E352F882142627"},
		{"path (wasm)", true, "nft-transfer/channel-1/frogs"},
	} {
		if got := VoucherClass(NFTPort, "channel-1", "frogs", tc.pathNames); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}
