package devnet

import (
	"fmt"
	"strconv"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/ibc"
	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/evm"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/move"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/wasm"
)

// l1Classes are the L1's ICS-721 classes at genesis. Token ids are decimal (minievm's ERC-721
// ids are numbers); one name has spaces and non-ASCII letters, as collection names do.
var l1Classes = []struct {
	id, name string
	tokens   int
}{
	{"devnetpunks", "Devnet Punks", 6},
	{"orbs", "Ørbs of Ünïcode", 4},
	{"frogs", "Tiny Frogs", 5},
}

// l1NFTClasses builds the L1's classes with their tokens spread over the L1's keyed traffic
// accounts (the engine derives them from the seed alone), so its ICS-721 traffic has holders
// to send from.
func l1NFTClasses(cfg Config, s ChainSpec) ([]ibc.NFTClass, error) {
	n := cfg.Accounts
	if n <= 0 {
		n = 8 // the engine's default
	}
	var out []ibc.NFTClass
	for ci, c := range l1Classes {
		class := ibc.NFTClass{ID: c.id, Name: c.name, URI: "https://devnet.invalid/ics721/" + c.id + ".json"}
		for t := 1; t <= c.tokens; t++ {
			k, err := engine.DeriveKey(cfg.Seed, (ci*3+t)%n, !s.CosmosKeys)
			if err != nil {
				return nil, err
			}
			id := strconv.Itoa(t)
			class.Tokens = append(class.Tokens, ibc.NFTToken{ID: id, URI: "https://devnet.invalid/ics721/" + c.id + "/" + id + ".json", Owner: k.Address()})
		}
		out = append(out, class)
	}
	return out, nil
}

// nftSink is a chain's ICS-721 receiver (every rollup's, and the L1's for what rollups send it). The bridge modules are built before the chains,
// so it learns the chain's VM module when the bridges start (bind).
type nftSink struct {
	chainID string
	recv    func(env sim.Env, class, classURI string, tokens []ibc.NFTToken, receiver []byte) error
}

// ReceiveNFTs implements ibc.NFTReceiver.
func (s *nftSink) ReceiveNFTs(env sim.Env, class, classURI string, tokens []ibc.NFTToken, receiver []byte) error {
	if s.recv == nil {
		return fmt.Errorf("chain %s receives no NFTs", s.chainID)
	}
	return s.recv(env, class, classURI, tokens, receiver)
}

// bind points the sink at the chain's VM; the nft-transfer module account creates the
// voucher collections.
func (s *nftSink) bind(c *Chain) {
	creator := address.ModuleAccount(ibc.NFTModule)
	for _, m := range c.modules {
		switch vm := m.(type) {
		case *move.Module:
			s.recv = func(env sim.Env, class, uri string, tokens []ibc.NFTToken, to []byte) error {
				ts := make([]move.ICS721Token, len(tokens))
				for i, t := range tokens {
					ts[i] = move.ICS721Token{ID: t.ID, URI: t.URI}
				}
				return vm.ReceiveICS721(env, creator, class, uri, ts, to)
			}
		case *evm.Module:
			s.recv = func(env sim.Env, class, uri string, tokens []ibc.NFTToken, to []byte) error {
				ts := make([]evm.ICS721Token, len(tokens))
				for i, t := range tokens {
					ts[i] = evm.ICS721Token{ID: t.ID, URI: t.URI}
				}
				return vm.ReceiveICS721(env, creator, class, uri, ts, to)
			}
		case *wasm.Module:
			s.recv = func(env sim.Env, class, uri string, tokens []ibc.NFTToken, to []byte) error {
				ts := make([]wasm.ICS721Token, len(tokens))
				for i, t := range tokens {
					ts[i] = wasm.ICS721Token{ID: t.ID, URI: t.URI}
				}
				return vm.ReceiveICS721(env, creator, class, uri, ts, to)
			}
		}
	}
}

// nftEscrow sends a chain's own NFTs over ICS-721 as initia's nft-transfer does: a Move
// chain's collections (class id move/<collection>) and minievm's ERC-721 contracts (class id
// evm/<contract>). It learns the chain's VM module when the bridges start.
type nftEscrow struct {
	mv *move.Module
	ev *evm.Module
}

// Handles implements ibc.NFTEscrow.
func (e *nftEscrow) Handles(classID string) bool {
	if _, ok := move.ICS721Collection(classID); ok {
		return e.mv != nil
	}
	_, ok := evm.ICS721ClassContract(classID)
	return ok && e.ev != nil
}

// EscrowNFTs implements ibc.NFTEscrow.
func (e *nftEscrow) EscrowNFTs(env sim.Env, classID string, tokenIDs []string, sender, escrow []byte) (ibc.NFTClass, []string, error) {
	if e.mv != nil {
		name, uri, uris, err := e.mv.EscrowICS721(env, classID, tokenIDs, sender, escrow)
		return ibc.NFTClass{Name: name, URI: uri}, uris, err
	}
	name, uris, err := e.ev.EscrowICS721(env, classID, tokenIDs, sender, escrow)
	return ibc.NFTClass{Name: name}, uris, err
}

// RefundNFTs implements ibc.NFTEscrow.
func (e *nftEscrow) RefundNFTs(env sim.Env, classID string, tokenIDs []string, escrow, sender []byte) error {
	if e.mv != nil {
		return e.mv.RefundICS721(env, classID, tokenIDs, escrow, sender)
	}
	return e.ev.RefundICS721(env, classID, tokenIDs, escrow, sender)
}

func (e *nftEscrow) bind(c *Chain) {
	for _, m := range c.modules {
		switch vm := m.(type) {
		case *move.Module:
			e.mv = vm
		case *evm.Module:
			e.ev = vm
		}
	}
}
