package server

import (
	"testing"

	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// TestTxMatches: CometBFT kv-indexer semantics: every event condition must hold on one and the
// same event occurrence; only indexed attributes count; tx.height filters; ranges compare numbers.
func TestTxMatches(t *testing.T) {
	evs := []sim.Event{
		{Type: "send_packet", Attributes: []sim.Attribute{{Key: "packet_sequence", Value: "5", Index: true}, {Key: "packet_src_channel", Value: "channel-0", Index: true}}},
		{Type: "send_packet", Attributes: []sim.Attribute{{Key: "packet_sequence", Value: "6", Index: true}, {Key: "packet_src_channel", Value: "channel-1", Index: true}}},
		{Type: "message", Attributes: []sim.Attribute{{Key: "action", Value: "/ibc.applications.transfer.v1.MsgTransfer", Index: true}, {Key: "hidden", Value: "x", Index: false}}},
	}
	cases := []struct {
		q    string
		want bool
	}{
		{"send_packet.packet_sequence='5'", true},
		{"send_packet.packet_sequence='5' AND send_packet.packet_src_channel='channel-0'", true},
		{"send_packet.packet_sequence='5' AND send_packet.packet_src_channel='channel-1'", false}, // two occurrences
		{"message.action='/ibc.applications.transfer.v1.MsgTransfer' AND send_packet.packet_sequence='5'", false},
		{"send_packet.packet_sequence = 6", true},
		{"send_packet.packet_sequence>5", true},
		{"send_packet.packet_sequence>6", false},
		{"tx.height=7 AND send_packet.packet_sequence='5'", true},
		{"tx.height=8", false},
		{"tx.height>=7", true},
		{"message.hidden='x'", false},
		{"message.action EXISTS", true},
		{"message.action CONTAINS 'transfer'", true},
		{"tx.hash='ABCD'", true},
	}
	for _, c := range cases {
		conds, err := parseQuery(c.q)
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		if got := txMatches(conds, 7, "ABCD", evs); got != c.want {
			t.Errorf("%s = %v, want %v", c.q, got, c.want)
		}
	}
	if _, err := parseQuery(""); err == nil {
		t.Error("empty query accepted")
	}
}
