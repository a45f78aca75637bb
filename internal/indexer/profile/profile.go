// Package profile is the indexer's one description of each VM kind: which ingest extensions a
// chain of that kind runs (NFTs, EVM txs, the rich list, internal txs) and what the API serves
// for them (routes, /status fields, OpenAPI paths), as the devnet's vms.go plugs a VM into a
// chain. The ingestion pipeline and the API never compare VM kinds: they get their parts from
// here, chosen once at start-up.
//
// Adding an extension is one row of the extensions table below and its implementation, one
// file in internal/indexer/ingest: its lifecycle, its rows and their writer (store.ExtensionRows,
// store.ExtensionWriter) and the tables they go to (store.ExtensionTable, created by the writer
// when the extension starts, emptied by Reset and trimmed by Prune), with its API side in
// internal/indexer/api when it serves routes. TestProfiles lists each kind's extensions, so
// the row shows there too.
package profile

import (
	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/chain/evmrpc"
	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/indexer/api"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/store"
)

// Options are the deployment's switches over a profile (rollytics' RICH_LIST and INTERNAL_TX).
type Options struct {
	// RichList keeps the rich list current with every block.
	RichList bool
	// InternalTxs traces EVM internal txs (only a kind whose profile has them may set it).
	InternalTxs bool
	// Internal tunes the internal-tx follower; zero fields take its defaults.
	Internal ingest.InternalConfig
	// EVMRPC is the chain's Ethereum JSON-RPC for the API's Etherscan-compatible answers (tx
	// bodies, token metadata, balances); nil: those answers say it is not configured.
	EVMRPC *evmrpc.Client
	// ABIs are the contract ABIs the operator supplied (api.LoadABIs).
	ABIs map[string]api.ContractABI
	// NativeDenom is the rich-list denom of the coin eth_getBalance reports ("": balances
	// from the JSON-RPC).
	NativeDenom string
}

// Reader is what the API of a profiled chain reads beyond the core: the stores of its
// extensions. *store.DB is one.
type Reader interface {
	store.EVMReader
	store.EVMRangeReader
	store.RichListReader
	store.TransferReader
}

// extension is one row of the table: an ingest extension, the kinds that run it, the switch
// that turns it on, and what it adds to the API.
type extension struct {
	name string
	// kinds run it; nil: every kind.
	kinds []vmkind.Kind
	// on says whether the deployment runs it; nil: always.
	on func(Options) bool
	// ingest is the pipeline's side.
	ingest func(vmkind.Kind, Options) ingest.Extension
	// api adds its routes, /status fields and OpenAPI paths (nil: none). It is applied whether
	// or not the deployment runs the extension when served is false: what an earlier run
	// stored stays served, as at rollytics.
	api func(f *api.Features, k vmkind.Kind, r Reader, o Options)
	// servedOnlyWhenOn limits api to deployments that run it.
	servedOnlyWhenOn bool
	// jsonRPC says the extension reads the chain's Ethereum JSON-RPC.
	jsonRPC bool
}

// extensions is every extension, in the order the pipeline runs them (extract, readiness).
var extensions = []extension{
	{
		name:   "rich-list",
		on:     func(o Options) bool { return o.RichList },
		ingest: func(k vmkind.Kind, _ Options) ingest.Extension { return ingest.RichList(richListVMs[k]()) },
		api: func(f *api.Features, k vmkind.Kind, r Reader, _ Options) {
			f.RichList, f.HexHolders = r, k == vmkind.EVM
		},
		// On EVM its corrections read eth_call balanceOf: JSON-RPC, which evm-txs requires anyway.
	},
	{
		name:   "nft",
		ingest: func(k vmkind.Kind, _ Options) ingest.Extension { return ingest.NFTs(nftVMs[k]()) },
	},
	{
		name: "transfers",
		ingest: func(k vmkind.Kind, _ Options) ingest.Extension {
			return ingest.Transfers(transferVMs[k]())
		},
		api: func(f *api.Features, k vmkind.Kind, r Reader, _ Options) {
			f.Transfers, f.TransfersHex = r, k == vmkind.EVM
			if k == vmkind.Move {
				// Every movement of a Move coin carries its metadata object, the bank's
				// and 0x1::coin's alike.
				f.TransferCoinObject = address.MoveCoinMetadata
			}
		},
	},
	{
		name:   "evm-txs",
		kinds:  []vmkind.Kind{vmkind.EVM},
		ingest: func(vmkind.Kind, Options) ingest.Extension { return ingest.EVMTxs() },
		// The Etherscan-compatible /api reads the same receipts by block range.
		api: func(f *api.Features, _ vmkind.Kind, r Reader, o Options) {
			f.EVMTxs = r
			f.Etherscan = &api.Etherscan{Range: r, RPC: o.EVMRPC, ABIs: o.ABIs, NativeDenom: o.NativeDenom}
		},
		jsonRPC: true,
	},
	{
		name:             "internal-txs",
		kinds:            []vmkind.Kind{vmkind.EVM},
		on:               func(o Options) bool { return o.InternalTxs },
		ingest:           func(_ vmkind.Kind, o Options) ingest.Extension { return ingest.InternalTxs(o.Internal) },
		api:              func(f *api.Features, _ vmkind.Kind, _ Reader, _ Options) { f.InternalTxs = true },
		servedOnlyWhenOn: true,
		jsonRPC:          true,
	},
}

// richListVMs is each kind's part of the rich list: where its balances move (bank events,
// fungible-asset events, ERC-20 logs) and how one is read again (TestEveryKindHasItsStrategies
// holds it complete).
var richListVMs = map[vmkind.Kind]func() ingest.RichListVM{
	vmkind.EVM:  ingest.EVMRichList,
	vmkind.Move: ingest.MoveRichList,
	vmkind.Wasm: ingest.BankRichList,
}

// nftVMs is each kind's reading of its NFT events (TestEveryKindHasItsStrategies holds it
// complete).
var nftVMs = map[vmkind.Kind]func() ingest.NFTVM{
	vmkind.EVM:  ingest.EVMNFTs,
	vmkind.Move: ingest.MoveNFTs,
	vmkind.Wasm: ingest.WasmNFTs,
}

// transferVMs is each kind's reading of the token movements its VM reports itself, beside the
// bank and bridge events every kind shares (TestEveryKindHasItsStrategies holds it complete).
var transferVMs = map[vmkind.Kind]func() ingest.TransferVM{
	vmkind.EVM:  ingest.EVMTransfers,
	vmkind.Move: ingest.MoveTransfers,
	vmkind.Wasm: ingest.WasmTransfers,
}

// Profile is one VM kind's extensions.
type Profile struct {
	kind vmkind.Kind
	exts []extension
}

// For returns the profile of a kind; the zero Kind (no VM_TYPE) is the core alone.
func For(k vmkind.Kind) Profile {
	p := Profile{kind: k}
	if k == "" {
		return p
	}
	for _, e := range extensions {
		if e.kinds == nil || containsKind(e.kinds, k) {
			p.exts = append(p.exts, e)
		}
	}
	return p
}

// Parse is For of the kind spelled s (VM_TYPE), with vmkind.Parse's error.
func Parse(s string) (Profile, error) {
	k, err := vmkind.Parse(s)
	if err != nil {
		return Profile{}, err
	}
	return For(k), nil
}

// Kind is the profile's VM kind.
func (p Profile) Kind() vmkind.Kind { return p.kind }

// Names lists the profile's extensions, in order.
func (p Profile) Names() []string {
	out := make([]string, len(p.exts))
	for i, e := range p.exts {
		out[i] = e.name
	}
	return out
}

// Has reports whether the profile has the named extension (e.g. "internal-txs": whether
// INTERNAL_TX may be set).
func (p Profile) Has(name string) bool {
	for _, e := range p.exts {
		if e.name == name {
			return true
		}
	}
	return false
}

// JSONRPC reports whether the profile's ingestion reads the chain's Ethereum JSON-RPC, so a
// deployment that ingests must give one.
func (p Profile) JSONRPC() bool {
	for _, e := range p.exts {
		if e.jsonRPC {
			return true
		}
	}
	return false
}

// Extensions are the ingest extensions a deployment with o runs, for ingest.Config.Extensions.
func (p Profile) Extensions(o Options) []ingest.Extension {
	var out []ingest.Extension
	for _, e := range p.exts {
		if e.on == nil || e.on(o) {
			out = append(out, e.ingest(p.kind, o))
		}
	}
	return out
}

// Ingest returns cfg with the extensions its VMType's profile runs under o, whose RichList is
// cfg.RichList (the flag's home). A VMType that is no kind is left to ingest.New's validation,
// with the core alone.
func Ingest(cfg ingest.Config, o Options) ingest.Config {
	k, err := vmkind.Parse(cfg.VMType)
	if err != nil {
		return cfg
	}
	o.RichList = cfg.RichList
	cfg.Extensions = For(k).Extensions(o)
	return cfg
}

// API is what the profile adds to the API of a deployment with o whose store is r, for
// api.Config.Features.
func (p Profile) API(r Reader, o Options) api.Features {
	var f api.Features
	for _, e := range p.exts {
		if e.api == nil || (e.servedOnlyWhenOn && e.on != nil && !e.on(o)) {
			continue
		}
		e.api(&f, p.kind, r, o)
	}
	return f
}

func containsKind(ks []vmkind.Kind, k vmkind.Kind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}
