package api

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/crypto/sha3"

	"github.com/rollgate/rollgate/internal/chain/address"
)

// ContractABI is one contract ABI the operator supplied: what getabi and getsourcecode answer
// for the address, and the names txlist gives its function selectors.
type ContractABI struct {
	ABI       json.RawMessage // the ABI's JSON array, compacted
	Name      string          // contract name (getsourcecode ContractName); may be ""
	functions map[string]string
}

// LoadABIs reads a directory of ABIs, one file per contract named by its address
// (<0x address>.json, any case). A file holds either the ABI array itself or an object with
// an "abi" array and optionally "contractName" (the shape Hardhat and Foundry write), so build
// artifacts can be copied in as they are. A file that is neither is an error: a typo should
// not silently answer "not verified".
func LoadABIs(dir string) (map[string]ContractABI, error) {
	out := map[string]ContractABI{}
	if dir == "" {
		return out, nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("abi dir: %w", err)
	}
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(strings.ToLower(name), ".json") {
			continue
		}
		stem := strings.ToLower(strings.TrimSuffix(name, filepath.Ext(name)))
		a, err := address.ParseHex(stem)
		if err != nil || len(a) != 20 {
			return nil, fmt.Errorf("abi dir: %s: the file name must be a 0x contract address", name)
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("abi dir: %w", err)
		}
		c, err := parseABIFile(b)
		if err != nil {
			return nil, fmt.Errorf("abi dir: %s: %w", name, err)
		}
		out[address.Hex(a)] = c
	}
	return out, nil
}

type abiEntry struct {
	Type   string `json:"type"`
	Name   string `json:"name"`
	Inputs []struct {
		Name       string          `json:"name"`
		Type       string          `json:"type"`
		Components json.RawMessage `json:"components"`
	} `json:"inputs"`
}

func parseABIFile(b []byte) (ContractABI, error) {
	var c ContractABI
	raw := bytes.TrimSpace(b)
	if len(raw) > 0 && raw[0] == '{' {
		var art struct {
			ABI          json.RawMessage `json:"abi"`
			ContractName string          `json:"contractName"`
		}
		if err := json.Unmarshal(raw, &art); err != nil {
			return c, err
		}
		raw, c.Name = art.ABI, art.ContractName
	}
	var entries []abiEntry
	if err := json.Unmarshal(raw, &entries); err != nil || len(raw) == 0 || raw[0] != '[' {
		return c, fmt.Errorf("not an ABI array nor an artifact with an \"abi\" array")
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return c, err
	}
	c.ABI = buf.Bytes()
	c.functions = map[string]string{}
	for _, e := range entries {
		if e.Type != "function" && e.Type != "" {
			continue
		}
		types := make([]string, len(e.Inputs))
		named := make([]string, len(e.Inputs))
		simple := true
		for i, in := range e.Inputs {
			types[i] = in.Type
			named[i] = strings.TrimSpace(in.Type + " " + in.Name)
			simple = simple && !strings.HasPrefix(in.Type, "tuple")
		}
		if !simple {
			continue // tuple signatures need the components' canonical form; left unnamed
		}
		sig := e.Name + "(" + strings.Join(types, ",") + ")"
		h := sha3.NewLegacyKeccak256()
		h.Write([]byte(sig))
		// Shown as Etherscan shows functionName: the parameters with their names.
		c.functions["0x"+hex.EncodeToString(h.Sum(nil)[:4])] = e.Name + "(" + strings.Join(named, ", ") + ")"
	}
	return c, nil
}
