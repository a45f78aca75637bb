package move

import (
	"testing"

	"github.com/rollgate/rollgate/internal/chain/address"
	movev1 "github.com/rollgate/rollgate/internal/chain/protos/initia/move/v1"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim/simtest"
)

// Addresses from the minimove fixture README and its events, recomputed from the formulas.
func TestAddressDerivation(t *testing.T) {
	a1, a2, a3, a4 := AccAddr(acc1), AccAddr(acc2), AccAddr(acc3), AccAddr(acc4)
	umin, uusdc := CoinMetadata("umin"), CoinMetadata("uusdc")
	cases := []struct {
		name string
		got  Addr
		want string
	}{
		{"umin metadata", umin, "0x25c4855dbee8a475c72526cc888c20562befd9cac8ceb78367ed490e1b0dab3"},
		{"uusdc metadata", uusdc, "0x29824d952e035490fae7567deea5f15b504a68fa73610063c160ab1fa87dd609"},
		{"acc1 umin store", PrimaryStore(a1, umin), "0x3409c29adad900b8a2e22e88bd2c96d04cd9834d44cac9adecc51d25605a219d"},
		{"acc2 umin store", PrimaryStore(a2, umin), "0xf3bd4a79ee4e111a0dab7059a847a8b3d147c8db01e360b9b5b939922abe71e5"},
		{"fee collector umin store", PrimaryStore(AccAddr(address.ModuleAccount("fee_collector")), umin), "0xfcfff93d2ba915029374a7a6eb9f6b6487e9f3a69cd1c5a282d5adb0eacc2572"},
		{"MTT metadata", ManagedCoinMetadata(a3, "MTT"), "0x390e3a84f999b8ed587e37fc1e225c9bc19da10d3d786343851479e8830d18dc"},
		{"PTS metadata", ManagedCoinMetadata(a4, "PTS"), "0xb2107dc9ed140a903d74072b79bcf1316eed29a94bb2c31663512015eac2ea9c"},
		{"MTT via denom", CoinMetadata("move/390e3a84f999b8ed587e37fc1e225c9bc19da10d3d786343851479e8830d18dc"), "0x390e3a84f999b8ed587e37fc1e225c9bc19da10d3d786343851479e8830d18dc"},
		{"collection A", CollectionAddr(a1, "Move Test Collection"), "0xe4fb054b128789d16c9b95287d8005030754dd55b09effb17d2c04377ff598d0"},
		{"collection B", CollectionAddr(a2, "Second Collection"), "0xbd3bd0449e41beab4b6b736be449fbf9072d7b42c5ca56dbf36a7b314e32320b"},
		{"nft A_1", NftAddr(a1, "Move Test Collection", "1"), "0x69e44905fca4023591a4d9527fc155bcb0f8b7f260351a86f9a5ca053bc46a9a"},
		{"nft B_b-1", NftAddr(a2, "Second Collection", "b-1"), "0x168257529831c3fdac3be99fe82e38e6725715e0f1089ca34d709eae54616f6b"},
		{"account", a1, "0x8c8d35429f74ec245f8ef2f4fd1e551cff97d650"},
		{"stdlib", StdAddr, "0x1"},
	}
	for _, c := range cases {
		if c.got.String() != c.want {
			t.Errorf("%s = %s, want %s", c.name, c.got, c.want)
		}
		back, err := ParseAddr(c.want)
		if err != nil || back != c.got {
			t.Errorf("ParseAddr(%s) = %s, %v", c.want, back, err)
		}
	}
	fc, _ := address.Bech32("init", address.ModuleAccount("fee_collector"))
	if fc != "init17xpfvakm2amg962yls6f84z3kell8c5l70rnql" {
		t.Errorf("fee collector = %s", fc)
	}
	for _, bad := range []string{"0xzz", "", "0x" + string(make([]byte, 65))} {
		if _, err := ParseAddr(bad); err == nil {
			t.Errorf("ParseAddr(%q) accepted", bad)
		}
	}
}

func TestDecimal(t *testing.T) {
	for _, s := range []string{"0", "0.05", "1", "12.345"} {
		v, err := parseDecimal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := formatDecimal(leInt(decimalBytes(v))); got != s {
			t.Errorf("%s round-trips to %s", s, got)
		}
	}
}

// TestTraffic replays generated traffic through the handlers: the same seed and state give
// the same intents, and the intents execute (failures only where deliberate).
func TestTraffic(t *testing.T) {
	accs := simtest.Accounts("init", acc1, acc2, acc3, acc4)
	m, f := genesis(t)
	handlers := m.Handlers()
	twins := simtest.NewTwins(7, 8)
	kinds := map[string]int{}
	fails := 0
	reasons := map[string]int{}
	for range 150 {
		q, _ := f.QueryAt(nil)
		for _, in := range twins.Traffic(t, m, q, accs) {
			kv, bal := f.Snapshot()
			for _, msg := range in.Msgs {
				var err error
				switch x := msg.(type) {
				case *movev1.MsgExecuteJSON:
					kinds["json:"+x.FunctionName]++
					err = handlers[TypeMsgExecuteJSON](f, msg)
				case interface{ GetFunctionName() string }:
					kinds[x.GetFunctionName()]++
					err = handlers[TypeMsgExecute](f, msg)
				default:
					kinds["MsgSend"]++
				}
				if err != nil {
					reasons[err.Error()]++
					fails++
					f.Restore(kv, bal)
					break
				}
			}
		}
		f.Commit()
	}
	for _, k := range []string{"json:mint", "json:transfer", "create_collection", "mint", "transfer", "transfer_call", "set_uri", "burn", "initialize", "mint_to", "burn"} {
		if kinds[k] == 0 {
			t.Errorf("no %s in 150 blocks of traffic: %v", k, kinds)
		}
	}
	t.Logf("%d failures %v, mix %v", fails, reasons, kinds)
	for r := range reasons {
		if r != abort("fungible_asset", codeInsufficientBalance).Error() && r != abort("object", codeNotObjectOwner).Error() {
			t.Errorf("unintended failure %q", r)
		}
	}
	if fails == 0 || fails > 40 {
		t.Errorf("%d failures in the traffic (%v)", fails, kinds)
	}
}
