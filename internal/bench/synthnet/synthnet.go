// Package synthnet generates registries of a chosen size for the router's benchmarks and
// tests (`rollgate bench route`); production code never builds one.
package synthnet

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/rollgate/rollgate/internal/router/registry"
)

// Registry generates a hub-and-spoke network like Initia's at scale: one L1 hub with PFM,
// chains-1 spokes (two thirds OPinit rollups, the rest external Cosmos chains), each spoke
// with a native token, the hub holding a voucher of every spoke token, and spokes holding
// vouchers of other spokes' tokens forwarded over the hub until there are about `assets`
// assets. The same seed gives the same network.
func Registry(chains, assets int, seed uint64) (*registry.Registry, error) {
	if chains < 2 {
		return nil, fmt.Errorf("synthnet: a network needs at least 2 chains")
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	hub := &registry.Chain{Name: "hub", PrettyName: "Hub", ID: "hub-1", Type: registry.ChainTypeCosmos, Bech32Prefix: "init", L1: true, PFM: true, Hooks: true, Memo: true}
	hub.Assets = append(hub.Assets, &registry.Asset{Denom: "uinit", Symbol: "INIT", Decimals: 6})
	all := []*registry.Chain{hub}
	spokes := make([]*registry.Chain, 0, chains-1)
	for i := 1; i < chains; i++ {
		c := &registry.Chain{Name: fmt.Sprintf("spoke%d", i), ID: fmt.Sprintf("spoke-%d", i), Type: registry.ChainTypeCosmos,
			Bech32Prefix: "init", PFM: true, Memo: true}
		c.PrettyName = c.Name
		if i%3 != 0 {
			c.BridgeID = uint64(i)
			c.MinitiaType = "minievm"
			l2 := registry.L2Denom(c.BridgeID, "uinit")
			c.Assets = append(c.Assets, &registry.Asset{Denom: l2, Symbol: "INIT", Decimals: 6,
				OP: &registry.OPTrace{BridgeID: c.BridgeID, L1ChainID: hub.ID, L1Denom: "uinit"}})
		} else {
			c.Bech32Prefix = "cosmos"
		}
		hubCh := "channel-" + strconv.Itoa(i-1)
		hub.Channels = append(hub.Channels, registry.Channel{Port: "transfer", ID: hubCh, CounterpartyChainID: c.ID, CounterpartyPort: "transfer", CounterpartyID: "channel-0"})
		c.Channels = append(c.Channels, registry.Channel{Port: "transfer", ID: "channel-0", CounterpartyChainID: hub.ID, CounterpartyPort: "transfer", CounterpartyID: hubCh})
		native := fmt.Sprintf("utok%d", i)
		c.Assets = append(c.Assets, &registry.Asset{Denom: native, Symbol: fmt.Sprintf("TOK%d", i), Decimals: 6})
		p := "transfer/channel-0/uinit"
		c.Assets = append(c.Assets, &registry.Asset{Denom: registry.IBCDenom(p), Path: p, Symbol: "INIT", Decimals: 6, OriginChainID: hub.ID, OriginDenom: "uinit"})
		p = "transfer/" + hubCh + "/" + native
		hub.Assets = append(hub.Assets, &registry.Asset{Denom: registry.IBCDenom(p), Path: p, Symbol: fmt.Sprintf("TOK%d", i), Decimals: 6, OriginChainID: c.ID, OriginDenom: native})
		spokes = append(spokes, c)
		all = append(all, c)
	}
	count := 0
	for _, c := range all {
		count += len(c.Assets)
	}
	for tries := 0; count < assets && tries < assets*10; tries++ {
		src := rng.IntN(len(spokes))
		dst := rng.IntN(len(spokes))
		if src == dst {
			continue
		}
		// Token of spoke src, forwarded over the hub to spoke dst.
		p := fmt.Sprintf("transfer/channel-0/transfer/channel-%d/utok%d", src, src+1)
		d := registry.IBCDenom(p)
		dup := false
		for _, a := range spokes[dst].Assets {
			dup = dup || a.Denom == d
		}
		if dup {
			continue
		}
		spokes[dst].Assets = append(spokes[dst].Assets, &registry.Asset{Denom: d, Path: p, Symbol: fmt.Sprintf("TOK%d", src+1), Decimals: 6,
			OriginChainID: spokes[src].ID, OriginDenom: fmt.Sprintf("utok%d", src+1)})
		count++
	}
	for _, c := range all {
		for _, a := range c.Assets {
			if a.Path != "" && a.Path != a.Denom {
				a.Trace, _ = registry.SplitPath(a.Path)
			}
		}
	}
	return registry.New(all)
}
