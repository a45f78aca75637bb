package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/store"
)

// TestOriginNames: an ICS-721 recv_packet names the L2 collection it lands in after the class
// as seen on the rollup (Wasm: the prefixed class id; Move/EVM: its ibc/ voucher hash) and
// carries the L1 name in classData; other packets and malformed data are ignored.
func TestOriginNames(t *testing.T) {
	classData := base64.StdEncoding.EncodeToString([]byte(`{"name":"L1 Ärt","description":"d"}`))
	pkt := func(srcPort, data string) Event {
		return Event{Type: "recv_packet", Attributes: []EventAttribute{
			{Key: "packet_data", Value: data}, {Key: "packet_src_port", Value: srcPort},
			{Key: "packet_dst_port", Value: "nft-transfer"}, {Key: "packet_dst_channel", Value: "channel-3"}}}
	}
	good := `{"classId":"init1class","classData":"` + classData + `","tokenIds":["1"]}`
	sum := sha256.Sum256([]byte("nft-transfer/channel-3/init1class"))
	voucher := "ibc/" + strings.ToUpper(hex.EncodeToString(sum[:]))
	cases := []struct {
		name string
		vm   NFTVM
		ev   Event
		want []store.NFTChange
	}{
		{"wasm", WasmNFTs(), pkt("nft-transfer", good), []store.NFTChange{{Kind: store.NFTOriginName, TxIndex: 2, Name: "nft-transfer/channel-3/init1class", OriginName: "L1 Ärt"}}},
		{"move", MoveNFTs(), pkt("nft-transfer", good), []store.NFTChange{{Kind: store.NFTOriginName, TxIndex: 2, Name: voucher, OriginName: "L1 Ärt"}}},
		{"evm", EVMNFTs(), pkt("nft-transfer", good), []store.NFTChange{{Kind: store.NFTOriginName, TxIndex: 2, Name: voucher, OriginName: "L1 Ärt"}}},
		{"ics20 packet", WasmNFTs(), pkt("transfer", good), nil},
		{"not json", WasmNFTs(), pkt("nft-transfer", "{"), nil},
		{"classData not base64", WasmNFTs(), pkt("nft-transfer", `{"classId":"c","classData":"%%"}`), nil},
		{"no name", WasmNFTs(), pkt("nft-transfer", `{"classId":"c","classData":"`+base64.StdEncoding.EncodeToString([]byte(`{}`))+`"}`), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := newNFTExtractor(c.vm, "init", nil, nil)
			var b store.NFTRows
			if err := x.originNames(2, []Event{c.ev}, &b); err != nil {
				t.Fatal(err)
			}
			if len(b.NFTs) != len(c.want) {
				t.Fatalf("got %+v, want %+v", b.NFTs, c.want)
			}
			for i := range c.want {
				g, w := b.NFTs[i], c.want[i]
				if g.Kind != w.Kind || g.TxIndex != w.TxIndex || g.Name != w.Name || g.OriginName != w.OriginName {
					t.Errorf("got %+v, want %+v", g, w)
				}
			}
		})
	}
}

// fakeQuerier answers name() once and counts the calls.
type fakeQuerier struct {
	NFTQuerier
	calls int
	fail  bool
}

func (f *fakeQuerier) EVMCall(_ context.Context, _ int64, _ string, input []byte) ([]byte, error) {
	f.calls++
	if f.fail {
		return nil, ErrQueryFailed
	}
	// ABI string "N": offset 32, length 1, "N".
	out := make([]byte, 96)
	out[31], out[63], out[64] = 32, 1, 'N'
	return out, nil
}

// TestEVMNotNFTOnce: a contract whose name() reverts is marked once and never asked again,
// also after a restart (the marks come back from the store).
func TestEVMNotNFTOnce(t *testing.T) {
	log := func(addr string) []Event {
		return []Event{{Type: "evm", Attributes: []EventAttribute{{Key: "log", Value: `{"address":"` + addr +
			`","topics":["` + transferTopic + `","` + zeroTopic + `","0x000000000000000000000000aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","0x0000000000000000000000000000000000000000000000000000000000000007"],"data":"0x"}`}}}}
	}
	const bad = "0x1111111111111111111111111111111111111111"
	q := &fakeQuerier{fail: true}
	x := newNFTExtractor(EVMNFTs(), "init", q, nil)
	var b1, b2 store.BlockBundle
	b1.Block.Height, b2.Block.Height = 5, 6
	for _, b := range []*store.BlockBundle{&b1, &b2} {
		if err := x.extract(context.Background(), []TxResult{{Events: log(bad)}}, b); err != nil {
			t.Fatal(err)
		}
	}
	r1, r2 := nftRowsOf(&b1), nftRowsOf(&b2)
	if q.calls != 1 || len(r1.NotNFT) != 1 || len(r2.NotNFT) != 0 || len(r1.NFTs)+len(r2.NFTs) != 0 {
		t.Fatalf("calls %d, marks %d/%d, changes %d", q.calls, len(r1.NotNFT), len(r2.NotNFT), len(r1.NFTs)+len(r2.NFTs))
	}
	if len(b2.Extensions) != 0 {
		t.Fatalf("a block without NFT rows carries %d extension rows", len(b2.Extensions))
	}
	// Restarted with the stored mark: not asked at all.
	q2 := &fakeQuerier{}
	x2 := newNFTExtractor(EVMNFTs(), "init", q2, r1.NotNFT)
	var b3 store.BlockBundle
	if err := x2.extract(context.Background(), []TxResult{{Events: log(bad)}}, &b3); err != nil {
		t.Fatal(err)
	}
	if r3 := nftRowsOf(&b3); q2.calls != 0 || len(r3.NFTs) != 0 {
		t.Fatalf("after restart: calls %d, changes %+v", q2.calls, r3.NFTs)
	}
	// A real collection: created before its first mint, tokenURI asked for the mint.
	var bb4 store.BlockBundle
	if err := x2.extract(context.Background(), []TxResult{{Events: log("0x2222222222222222222222222222222222222222")}}, &bb4); err != nil {
		t.Fatal(err)
	}
	b4 := nftRowsOf(&bb4)
	if len(b4.NFTs) != 2 || b4.NFTs[0].Kind != store.NFTCreateCollection || b4.NFTs[0].Name != "N" ||
		b4.NFTs[1].Kind != store.NFTMint || b4.NFTs[1].TokenID != "7" || b4.NFTs[1].URI != "N" {
		t.Fatalf("changes %+v", b4.NFTs)
	}
}

// nftRowsOf is the NFT rows extraction added to b (none: empty).
func nftRowsOf(b *store.BlockBundle) store.NFTRows {
	if r, ok := store.RowsOf[*store.NFTRows](b); ok {
		return *r
	}
	return store.NFTRows{}
}
