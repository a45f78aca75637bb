package registry

import "fmt"

// New builds a registry from chains given in code (tests, benchmarks, generated networks):
// channel ends are paired and origins resolved exactly as for a loaded directory. Asset
// ChainID and Path default to the chain and the denom.
func New(chains []*Chain) (*Registry, error) {
	for _, c := range chains {
		c.assets = make(map[string]*Asset, len(c.Assets))
		for _, a := range c.Assets {
			if a.ChainID == "" {
				a.ChainID = c.ID
			}
			if a.Path == "" {
				a.Path = a.Denom
			}
			if _, dup := c.assets[a.Denom]; dup {
				return nil, fmt.Errorf("registry: duplicate asset %s on %s", a.Denom, c.ID)
			}
			c.assets[a.Denom] = a
		}
	}
	return build(chains, nil)
}
