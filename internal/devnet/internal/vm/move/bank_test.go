package move

import (
	"math/big"
	"testing"

	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// The flavor renders a store creation exactly once per (owner, denom), and not for stores it
// was told about.
func TestFlavorStoreCreation(t *testing.T) {
	f := NewBankFlavor()
	f.NoteStore(acc1, "umin")
	coins := []sim.Coin{{Denom: "umin", Amount: big.NewInt(5)}}
	count := func(evs []sim.Event) int {
		n := 0
		for _, e := range evs {
			if e.Type == EventType && e.Attributes[0].Value == tagPrimaryStore {
				n++
			}
		}
		return n
	}
	if n := count(f.SendEvents("init", acc2, acc1, coins)); n != 0 {
		t.Errorf("send to a noted store rendered %d creations", n)
	}
	if n := count(f.SendEvents("init", acc1, acc3, coins)); n != 1 {
		t.Errorf("first send to acc3 rendered %d creations", n)
	}
	if n := count(f.SendEvents("init", acc1, acc3, coins)); n != 0 {
		t.Errorf("second send to acc3 rendered %d creations", n)
	}
	mint := f.MintEvents("init", acc4, coins)
	if count(mint) != 1 || mint[len(mint)-1].Type != "coinbase" {
		t.Errorf("mint events: %+v", mint)
	}
	burn := f.BurnEvents("init", acc4, coins)
	if burn[len(burn)-1].Type != "burn" || burn[len(burn)-2].Type != "coin_spent" {
		t.Errorf("burn events: %+v", burn)
	}
}
