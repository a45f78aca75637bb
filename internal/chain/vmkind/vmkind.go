// Package vmkind is the one typed name of a rollup's virtual machine (rollytics' VM_TYPE):
// every part of the tree that behaves per VM compares a Kind, never a string, so the set of
// kinds and their spelling live here alone.
package vmkind

import "fmt"

// Kind is a rollup's VM. The zero value is no kind (not configured).
type Kind string

// The kinds, spelled as VM_TYPE, the registry's chain type and the devnet spell them.
const (
	EVM  Kind = "evm"
	Move Kind = "move"
	Wasm Kind = "wasm"
)

// All lists the kinds in a fixed order (help texts, tests).
var All = []Kind{EVM, Move, Wasm}

// Parse returns the kind spelled s, or an error naming the kinds there are.
func Parse(s string) (Kind, error) {
	//exhaustive:enforce
	switch k := Kind(s); k {
	case EVM, Move, Wasm:
		return k, nil
	}
	return "", fmt.Errorf("vm type %q: want evm, move or wasm", s)
}

// String is the kind's VM_TYPE spelling.
func (k Kind) String() string { return string(k) }

// Valid reports whether k is one of the kinds (the zero Kind is not).
func (k Kind) Valid() bool {
	_, err := Parse(string(k))
	return err == nil
}
