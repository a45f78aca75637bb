package msgs

import (
	"testing"

	"github.com/rollgate/rollgate/internal/chain/vmkind"
)

// TestEveryKindSendsNFTs: every kind has its way of sending NFTs in nftKinds (a kind added to
// vmkind.All without one fails here), and nothing else is in the table.
func TestEveryKindSendsNFTs(t *testing.T) {
	for _, k := range vmkind.All {
		if nftKinds[k] == nil {
			t.Errorf("%s: no nftKind in nftKinds", k)
		}
	}
	if len(nftKinds) != len(vmkind.All) {
		t.Errorf("nftKinds has %d kinds, vmkind.All %d", len(nftKinds), len(vmkind.All))
	}
}
