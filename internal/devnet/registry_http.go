package devnet

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/rollgate/rollgate/internal/chain/registryfile"
	"github.com/rollgate/rollgate/internal/devnet/internal/gateway"
	"github.com/rollgate/rollgate/internal/httpapi"
)

// profile is one entry of the registry's profiles.json, with the fields InterwovenKit reads
// when a chain is not in chains.json (packages/interwovenkit-react/src/data/chains.ts
// useFindChain, data/initia-vip.ts: chain_id, name, pretty_name, logo, op_bridge_id).
type profile struct {
	Name       string `json:"name"`
	PrettyName string `json:"pretty_name"`
	ChainID    string `json:"chain_id"`
	Logo       string `json:"logo"`
	OpBridgeID string `json:"op_bridge_id,omitempty"`
}

// RegistryHandler serves the network's registry over HTTP the way InterwovenKit reads its
// registryUrl (packages/interwovenkit-react/src/data/chains.ts): GET /chains.json, the
// Initia chains (the L1 and the rollups, as initia-registry's chains.json lists them) with
// each chain's indexer in apis.indexer, which the kit requires of every chain; GET
// /profiles.json; and GET /<chain_name>/chain.json and /<chain_name>/assetlist.json for every
// chain, external ones included. Each chain's metadata.assetlist is the http URL of its
// assetlist under base (the kit fetches it as is, data/assets.ts), where the written registry
// links files. indexers maps chain ids to indexer URLs. Answers carry the network's CORS
// settings, as the chains' servers do.
func (n *Network) RegistryHandler(base string, indexers map[string]string) (http.Handler, error) {
	base = strings.TrimRight(base, "/")
	chains, lists := n.registryDocs()
	files := map[string]any{}
	var kit []registryfile.Chain
	var profiles []profile
	for i, c := range chains {
		c.Metadata.Assetlist = base + "/" + c.ChainName + "/" + registryfile.AssetListFile
		if u := indexers[c.ChainID]; u != "" {
			c.APIs.Indexer = endpoints(u)
		}
		files["/"+c.ChainName+"/"+registryfile.ChainFile] = c
		files["/"+c.ChainName+"/"+registryfile.AssetListFile] = lists[i]
		if c.Metadata.IsL1 || c.Metadata.Minitia != nil {
			// InterwovenKit reads a chain's holdings from the chain itself (REST balances,
			// priced through its asset host) only when its network_type is "testnet"; any
			// other value sends the wallet view to Minity and to the DEX and VIP position
			// APIs, which a devnet does not have, and the view never leaves its skeleton
			// (@initia/interwovenkit-react 2.12.1 dist/index.js, src/data/minity: the
			// network_type === "testnet" test; src/data/initia-positions-total.ts). The
			// written registry keeps "devnet".
			c.NetworkType = "testnet"
			kit = append(kit, c)
			profiles = append(profiles, profile{Name: c.ChainName, PrettyName: c.PrettyName, ChainID: c.ChainID, OpBridgeID: c.Metadata.OpBridgeID})
		}
	}
	files["/chains.json"] = kit
	files["/profiles.json"] = profiles
	bodies := map[string][]byte{}
	for path, v := range files {
		b, err := gateway.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("registry %s: %w", path, err)
		}
		bodies[path] = b
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			gateway.WriteError(w, http.StatusMethodNotAllowed, 12, "method not allowed")
			return
		}
		b, ok := bodies[r.URL.Path]
		if !ok {
			gateway.WriteError(w, http.StatusNotFound, 5, "no registry file "+r.URL.Path)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	})
	return httpapi.CORSHandler(n.cfg.CORS, []string{http.MethodGet, http.MethodHead}, h), nil
}
