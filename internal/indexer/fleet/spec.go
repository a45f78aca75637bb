package fleet

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rollgate/rollgate/internal/chain/registryfile"

	"github.com/rollgate/rollgate/internal/chain/vmkind"
)

// Chain is one chain the fleet indexes: what `rollgate indexer` takes as flags for one chain.
type Chain struct {
	ID            string   `json:"chain_id"`
	VMType        string   `json:"vm_type"` // evm, move or wasm
	AccountPrefix string   `json:"account_prefix,omitempty"`
	RPC           string   `json:"rpc"`                // comma-separated CometBFT RPC URLs
	REST          string   `json:"rest"`               // comma-separated Cosmos REST URLs
	JSONRPC       string   `json:"json_rpc,omitempty"` // comma-separated Ethereum JSON-RPC URLs (evm)
	Hosts         []string `json:"hosts,omitempty"`    // Host headers served as this chain's API
	// RichList and InternalTx override the fleet's defaults (rich list on; internal txs on
	// for EVM chains) for this chain.
	RichList    *bool `json:"rich_list,omitempty"`
	InternalTx  *bool `json:"internal_tx,omitempty"`
	StartHeight int64 `json:"start_height,omitempty"`
}

func (c Chain) validate() error {
	if c.ID == "" || strings.ContainsAny(c.ID, "/?#% ") || c.ID == "." || c.ID == ".." {
		return fmt.Errorf("chain id %q: want a non-empty id without '/', '?', '#', '%%' or spaces", c.ID)
	}
	if reserved[c.ID] {
		return fmt.Errorf("chain id %q: the fleet's own path /%s would hide the chain", c.ID, c.ID)
	}
	kind, err := vmkind.Parse(c.VMType)
	if err != nil {
		return fmt.Errorf("chain %s: %w", c.ID, err)
	}
	if c.RPC == "" || c.REST == "" {
		return fmt.Errorf("chain %s: rpc and rest are required", c.ID)
	}
	if kind == vmkind.EVM && c.JSONRPC == "" {
		return fmt.Errorf("chain %s: json_rpc is required on an evm chain", c.ID)
	}
	if c.InternalTx != nil && *c.InternalTx && kind != vmkind.EVM {
		return fmt.Errorf("chain %s: internal_tx is for evm chains only", c.ID)
	}
	return nil
}

// reserved are the first path segments of the fleet's own routes, never a chain's prefix.
var reserved = map[string]bool{"chains": true, "all": true, "healthz": true, "readyz": true, "metrics": true, "swagger": true, "minity": true}

func (c Chain) equal(o Chain) bool {
	a, _ := json.Marshal(c)
	b, _ := json.Marshal(o)
	return string(a) == string(b)
}

// fileSpec is the JSON file format: {"chains": [Chain, …]}.
type fileSpec struct {
	Chains []Chain `json:"chains"`
}

// Load reads the chains at path: a registry directory in the initia-registry layout
// (`<name>/chain.json`; every chain with `metadata.minitia.type` is a rollup to index, the
// L1 and other chains are left out) or a JSON file {"chains": [...]}. Chains come sorted by
// id; two with one id, or an invalid one, are an error (the whole set is refused, so a bad
// edit of the file leaves the running set as it was).
func Load(path string) ([]Chain, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	var chains []Chain
	if fi.IsDir() {
		chains, err = loadRegistry(path)
	} else {
		var f fileSpec
		b, rerr := os.ReadFile(path)
		if rerr != nil {
			return nil, rerr
		}
		d := json.NewDecoder(strings.NewReader(string(b)))
		d.DisallowUnknownFields()
		if err = d.Decode(&f); err != nil {
			err = fmt.Errorf("%s: %w", path, err)
		}
		chains = f.Chains
	}
	if err != nil {
		return nil, err
	}
	sort.Slice(chains, func(i, j int) bool { return chains[i].ID < chains[j].ID })
	hosts := map[string]string{}
	for i, c := range chains {
		if c.AccountPrefix == "" {
			chains[i].AccountPrefix = "init"
		}
		if err := c.validate(); err != nil {
			return nil, err
		}
		if i > 0 && chains[i-1].ID == c.ID {
			return nil, fmt.Errorf("chain %s listed twice", c.ID)
		}
		for _, h := range c.Hosts {
			h = strings.ToLower(h)
			if o, ok := hosts[h]; ok {
				return nil, fmt.Errorf("host %s given to both %s and %s", h, o, c.ID)
			}
			hosts[h] = c.ID
		}
	}
	return chains, nil
}

// vmOf maps the registry's minitia type to the indexer's VM type.
var vmOf = map[string]string{"minievm": "evm", "minimove": "move", "miniwasm": "wasm"}

// loadRegistry reads the rollups of a registry directory: a flat one (<name>/chain.json, as the
// devnet writes it) or an initia-registry checkout (mainnets/, testnets/), in the file types
// the devnet's writer and the router's reader share (internal/chain/registryfile). Only
// chain.json is read: the fleet needs no asset list.
func loadRegistry(dir string) ([]Chain, error) {
	nets, err := registryfile.NetworkDirs(dir)
	if err != nil {
		return nil, err
	}
	var out []Chain
	files := 0
	for _, net := range nets {
		names, err := registryfile.ChainDirs(net)
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			f := filepath.Join(net, name, registryfile.ChainFile)
			b, err := os.ReadFile(f)
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			files++
			var rc registryfile.Chain
			if err := json.Unmarshal(b, &rc); err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			if rc.Metadata.Minitia == nil {
				continue // the L1 or another chain that is not a rollup
			}
			vm, ok := vmOf[rc.Metadata.Minitia.Type]
			if !ok {
				return nil, fmt.Errorf("%s: unknown minitia type %q", f, rc.Metadata.Minitia.Type)
			}
			out = append(out, Chain{ID: rc.ChainID, VMType: vm, AccountPrefix: rc.Bech32Prefix,
				RPC: joinEndpoints(rc.APIs.RPC), REST: joinEndpoints(rc.APIs.REST), JSONRPC: joinEndpoints(rc.APIs.JSONRPC)})
		}
	}
	if len(out) == 0 && files == 0 {
		return nil, errors.New(dir + ": no <name>/chain.json (want a registry in the initia-registry layout)")
	}
	return out, nil
}

// joinEndpoints is the comma-separated URL list the indexer's clients rotate over.
func joinEndpoints(eps []registryfile.Endpoint) string {
	s := make([]string, len(eps))
	for i, e := range eps {
		s[i] = e.Address
	}
	return strings.Join(s, ",")
}
