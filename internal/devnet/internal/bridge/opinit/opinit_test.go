package opinit

import (
	"encoding/hex"
	"testing"

	"github.com/rollgate/rollgate/internal/chain/address"
)

func TestL2DenomVectors(t *testing.T) {
	// initia-registry mainnet assetlists (docs/chain-events.md §5.2).
	for _, tc := range []struct {
		id   uint64
		want string
	}{
		{16, "l2/23c8396041db74441f4268d0c7e0533177dc3e028a47a8e584318f2d0c46fbe9"},
		{12, "l2/2b2d36f666e98b9eecf70d6ec24b882b79f2c8e2af73f54f97b8b670dbb87605"},
	} {
		if got := L2Denom(tc.id, "uinit"); got != tc.want {
			t.Errorf("bridge %d: %s", tc.id, got)
		}
	}
}

func TestAddresses(t *testing.T) {
	// opchild module account of the minimove fixture chain.
	if got, _ := address.Bech32("init", address.ModuleAccount("opchild")); got != "init1gz9n8jnu9fgqw7vem9ud67gqjk5q4m2w0aejne" {
		t.Errorf("opchild module %s", got)
	}
	if len(BridgeAddress(1)) != 32 || string(BridgeAddress(1)) == string(BridgeAddress(2)) {
		t.Error("bridge addresses")
	}
}

func TestWithdrawalHash(t *testing.T) {
	a := WithdrawalHash(1, 1, "init1from", "init1to", "uinit", 100)
	for _, b := range [][32]byte{
		WithdrawalHash(2, 1, "init1from", "init1to", "uinit", 100),
		WithdrawalHash(1, 2, "init1from", "init1to", "uinit", 100),
		WithdrawalHash(1, 1, "init1to", "init1from", "uinit", 100),
		WithdrawalHash(1, 1, "init1from", "init1to", "uinit", 101),
	} {
		if a == b {
			t.Errorf("collision %s", hex.EncodeToString(a[:]))
		}
	}
	if a != WithdrawalHash(1, 1, "init1from", "init1to", "uinit", 100) {
		t.Error("not deterministic")
	}
}
