package ingest

import (
	"fmt"
	"testing"
)

// TestRichListChanges: ERC-20 Transfer logs (three topics; mints and burns skip the zero
// address; ERC-721's four-topic Transfer and other events ignored) and bank events (coins
// strings, denoms lowercased).
func TestRichListChanges(t *testing.T) {
	word := func(b byte) string { return fmt.Sprintf("0x%064x", b) }
	logEv := func(addr string, topics []string, data string) Event {
		ts := ""
		for i, tp := range topics {
			if i > 0 {
				ts += ","
			}
			ts += `"` + tp + `"`
		}
		return Event{Type: "evm", Attributes: []EventAttribute{{Key: "log", Value: `{"address":"` + addr + `","topics":[` + ts + `],"data":"` + data + `"}`}}}
	}
	evm := []TxResult{{Events: []Event{
		logEv("0xAbCd000000000000000000000000000000000001", []string{transferTopic, word(1), word(2)}, "0x0a"),
		logEv("0xabcd000000000000000000000000000000000001", []string{transferTopic, word(0), word(3)}, "0x05"),                                                        // mint
		logEv("0xabcd000000000000000000000000000000000001", []string{transferTopic, word(3), word(0)}, "0x"),                                                          // burn of 0
		logEv("0x00000000000000000000000000000000000000ee", []string{transferTopic, word(1), word(2), word(7)}, "0x"),                                                 // ERC-721
		logEv("0xabcd000000000000000000000000000000000001", []string{"0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925", word(1), word(2)}, "0x01"), // Approval
	}}}
	got, err := evmTransfers(5, evm)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"0xabcd000000000000000000000000000000000001 01 -10", "0xabcd000000000000000000000000000000000001 02 10",
		"0xabcd000000000000000000000000000000000001 03 5", "0xabcd000000000000000000000000000000000001 03 0"}
	check := func(name string, got []string, want []string) {
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s:\n got %v\nwant %v", name, got, want)
		}
	}
	var gs []string
	for _, c := range got {
		gs = append(gs, fmt.Sprintf("%s %02x %s", c.Denom, c.Account[len(c.Account)-1], c.Delta))
	}
	check("evm", gs, want)

	x := NewAccountExtractor("init")
	a1, a2 := x.Bech32(make([]byte, 20)), x.Bech32(append(make([]byte, 19), 2))
	bank := []TxResult{{Events: []Event{
		{Type: "coinbase", Attributes: []EventAttribute{{Key: "minter", Value: a1}, {Key: "amount", Value: "7factory/init1x/WTT"}}},
		{Type: "transfer", Attributes: []EventAttribute{{Key: "recipient", Value: a2}, {Key: "sender", Value: a1}, {Key: "amount", Value: "3umin,2ibc/ABC"}}},
		{Type: "burn", Attributes: []EventAttribute{{Key: "burner", Value: a2}, {Key: "amount", Value: "1ibc/ABC"}}},
		{Type: "message", Attributes: []EventAttribute{{Key: "sender", Value: a1}}},
	}}}
	bc, err := x.bankChanges(5, bank)
	if err != nil {
		t.Fatal(err)
	}
	gs = nil
	for _, c := range bc {
		gs = append(gs, fmt.Sprintf("%s %02x %s", c.Denom, c.Account[len(c.Account)-1], c.Delta))
	}
	check("bank", gs, []string{"factory/init1x/wtt 00 7", "umin 00 -3", "ibc/abc 00 -2", "umin 02 3", "ibc/abc 02 2", "ibc/abc 02 -1"})

	for _, bad := range []string{"umin", "12", "x1umin", "1umin,,2"} {
		if _, err := parseCoins(bad); err == nil {
			t.Errorf("parseCoins(%q) accepted", bad)
		}
	}
	if cs, err := parseCoins("1umin,,2uusdc"); err != nil || len(cs) != 2 {
		t.Errorf("parseCoins with an empty piece: %v %v", cs, err)
	}
}
