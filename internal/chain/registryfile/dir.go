package registryfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// File and directory names of a registry directory: `<chain_name>/chain.json`,
// `<chain_name>/assetlist.json` and `_IBC/*.json`.
const (
	ChainFile     = "chain.json"
	AssetListFile = "assetlist.json"
	IBCDir        = "_IBC"
)

// Networks are the directories a checkout of initia-registry keeps its chains under, one per
// network; the devnet writes a flat directory instead.
var Networks = []string{"mainnets", "testnets"}

// NetworkDirs returns the registry directories under root: root/mainnets and root/testnets
// (those present) when root is an initia-registry checkout, else root itself.
func NetworkDirs(root string) ([]string, error) {
	var out []string
	for _, n := range Networks {
		d := filepath.Join(root, n)
		st, err := os.Stat(d)
		switch {
		case err == nil && st.IsDir():
			out = append(out, d)
		case err != nil && !errors.Is(err, os.ErrNotExist):
			return nil, err
		}
	}
	if len(out) == 0 {
		if _, err := os.ReadDir(root); err != nil {
			return nil, err
		}
		out = []string{root}
	}
	return out, nil
}

// ChainDirs returns the names of dir's subdirectories that may hold a chain, in name order:
// every directory but those starting with "_" (_IBC, _non-cosmos, ...) or ".". A name's
// chain.json may still be missing.
func ChainDirs(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), "_") && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// IBCPairFiles returns the paths of dir's _IBC/*.json files, sorted.
func IBCPairFiles(dir string) []string {
	files, _ := filepath.Glob(filepath.Join(dir, IBCDir, "*.json")) // the pattern is valid
	sort.Strings(files)
	return files
}

// Entry is one chain of a registry directory.
type Entry struct {
	// Network is the network directory the chain is under in a checkout ("mainnets",
	// "testnets"); "" in a flat directory.
	Network string
	// Dir is the chain's directory name (its chain_name in a well-formed registry).
	Dir   string
	Chain Chain
	// AssetList is nil when the chain has no assetlist.json.
	AssetList *AssetList
}

// Read reads every chain of a registry directory (a flat one; see NetworkDirs for a
// checkout), strictly: a malformed file is an error naming it. Directories without a
// chain.json are skipped. Readers that must survive odd entries decode the files
// themselves with ChainDirs, Chain and AssetListEntries.
func Read(dir string) ([]Entry, error) {
	names, err := ChainDirs(dir)
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, name := range names {
		e := Entry{Dir: name}
		if err := readJSON(filepath.Join(dir, name, ChainFile), &e.Chain); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			return nil, err
		}
		var l AssetList
		switch err := readJSON(filepath.Join(dir, name, AssetListFile), &l); {
		case err == nil:
			e.AssetList = &l
		case !errors.Is(err, os.ErrNotExist):
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// ReadAll reads every chain under root in either layout (see NetworkDirs), strictly as Read
// does, mainnets before testnets.
func ReadAll(root string) ([]Entry, error) {
	dirs, err := NetworkDirs(root)
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, d := range dirs {
		entries, err := Read(d)
		if err != nil {
			return nil, err
		}
		if d != root {
			for i := range entries {
				entries[i].Network = filepath.Base(d)
			}
		}
		out = append(out, entries...)
	}
	return out, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// WriteChain writes c as dir/<chain_name>/chain.json; dir is a flat registry directory or a
// checkout's network directory (root/testnets).
func WriteChain(dir string, c Chain) error {
	return WriteJSON(filepath.Join(dir, c.ChainName, ChainFile), c)
}

// WriteAssetList writes l as dir/<chain_name>/assetlist.json.
func WriteAssetList(dir string, l AssetList) error {
	return WriteJSON(filepath.Join(dir, l.ChainName, AssetListFile), l)
}

// WriteJSON writes v as the registry's files are written: two-space indent, a final
// newline, parent directories created.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
