package msgs

// POST /nft: the messages that send NFTs, signed by the owner on from_chain_id.
//
// The request is what InterwovenKit's Send NFT posts
// (initia-labs/interwovenkit@913e480:packages/interwovenkit-react/src/pages/wallet/txs/send-nft/SendNftFields.tsx
// with tx.ts, tx.move.ts, tx.evm.ts, tx.wasm.ts for the cross-chain fields) and initia.js v2's
// nftTransfer (initia-labs/initia.js@a60dc6b:src/bridge/router-client.ts, types.ts). The
// answer is {msgs:[{type, value}]} in amino JSON, which InterwovenKit passes to
// aminoTypes.fromAmino (initia-labs/amino-converter@0235bfe): move/MsgExecute,
// evm/MsgCall, wasm/MsgExecuteContract and nft-transfer/MsgTransfer.
//
// Before answering, the router asks the source chain's REST who owns each token (NFTOwners),
// so a token that does not exist or that the sender does not hold is a 400 here rather than
// a failed transaction the wallet has already paid for.

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/cosmos/btcutil/bech32"
	"github.com/ethereum/go-ethereum/common"
	"google.golang.org/protobuf/proto"

	wasmv1 "github.com/rollgate/rollgate/internal/chain/protos/cosmwasm/wasm/v1"
	nfttransferv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/applications/nft_transfer/v1"
	movev1 "github.com/rollgate/rollgate/internal/chain/protos/initia/move/v1"
	evmv1 "github.com/rollgate/rollgate/internal/chain/protos/minievm/evm/v1"
	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/route"
)

// Machine reasons of /nft's refusals.
const (
	ReasonTooManyTokens      = "TOO_MANY_TOKENS"
	ReasonInvalidTokenID     = "INVALID_TOKEN_ID"
	ReasonInvalidCollection  = "INVALID_COLLECTION"
	ReasonObjectAddresses    = "INVALID_OBJECT_ADDRESSES"
	ReasonNFTNotFound        = "NFT_NOT_FOUND"
	ReasonNFTNotOwned        = "NFT_NOT_OWNED"
	ReasonClassIDRequired    = "CLASS_ID_REQUIRED"
	ReasonNFTUnsupported     = "NFT_TRANSFER_UNSUPPORTED"
	ReasonNoNFTChannel       = "NO_NFT_CHANNEL"
	ReasonInvalidNFTTimeout  = "INVALID_TIMEOUT"
	MaxNFTTokens             = 30 // initia.js v2 types.ts: "max 30" token_ids and object_addresses
	defaultNFTTimeoutSeconds = 1800
	maxNFTTimeoutSeconds     = 30 * 24 * 3600 // a month; also keeps now+timeout far from overflowing
)

// Type URLs of the NFT messages (MsgCall is also the only message of the wrap hook).
const (
	TypeMsgExecute         = "/initia.move.v1.MsgExecute"
	TypeMsgCall            = "/minievm.evm.v1.MsgCall"
	TypeMsgExecuteContract = "/cosmwasm.wasm.v1.MsgExecuteContract"
	TypeMsgNFTTransfer     = "/ibc.applications.nft_transfer.v1.MsgTransfer"
)

// NFTRequest is the body of POST /nft.
type NFTRequest struct {
	FromAddress       string   `json:"from_address"`
	FromChainID       string   `json:"from_chain_id"`
	ToAddress         string   `json:"to_address"`
	ToChainID         string   `json:"to_chain_id"`
	CollectionAddress string   `json:"collection_address"`
	TokenIDs          []string `json:"token_ids"`
	ObjectAddresses   []string `json:"object_addresses"`
	// Across chains (ICS-721):
	ClassID    string      `json:"class_id"`
	ClassTrace *ClassTrace `json:"class_trace"`
	// OutgoingProxy is InterwovenKit's Wasm field: the ICS-721 outgoing proxy or JSON null.
	OutgoingProxy *string `json:"outgoing_proxy"`
	// Timeout is the relative timeout in seconds (initia.js: default 1800).
	Timeout          *int64 `json:"timeout"`
	L1RecoverAddress string `json:"l1_recover_address"`
}

// ClassTrace is an ICS-721 class's path and base class id.
type ClassTrace struct {
	Path        string `json:"path"`
	BaseClassID string `json:"base_class_id"`
}

// NFTResponse is the /nft answer: amino messages to sign on from_chain_id.
type NFTResponse struct {
	Msgs []AminoMsg `json:"msgs"`
}

// AminoMsg is one {type, value} amino JSON message.
type AminoMsg struct {
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

// ErrNFTMissing is what an NFTOwners source returns when the chain answers that the token
// (or object) does not exist.
var ErrNFTMissing = errors.New("nft does not exist")

// MoveNFT is a Move NFT object as the chain reports it.
type MoveNFT struct {
	Owner      []byte // 32-byte Move address
	Collection []byte // 32-byte collection object address
	TokenID    string
}

// NFTOwners asks a chain who holds an NFT. Every method returns ErrNFTMissing (wrapped) when
// the chain answers that the token does not exist, and any other error when it cannot be asked.
type NFTOwners interface {
	MoveNFT(ctx context.Context, c *registry.Chain, object string) (MoveNFT, error)
	// ERC721Owner returns ownerOf(tokenID) (20 bytes).
	ERC721Owner(ctx context.Context, c *registry.Chain, contract common.Address, tokenID *big.Int) ([]byte, error)
	// CW721Owner returns the owner_of answer's owner (bech32).
	CW721Owner(ctx context.Context, c *registry.Chain, contract, tokenID string) (string, error)
}

// SourceError is an owner lookup that failed for a reason other than the token: the chain
// could not be asked. The API answers it with 503.
type SourceError struct{ Err error }

func (e *SourceError) Error() string {
	return "asking the source chain who owns the NFT: " + e.Err.Error()
}
func (e *SourceError) Unwrap() error { return e.Err }

// nftVM is how a chain holds NFTs: Move objects (the L1 and minimove), ERC-721 (minievm) or
// CW721 (miniwasm). InterwovenKit chooses the same way (tx.ts: is_l1 → Move, else
// metadata.minitia.type).
func nftVM(c *registry.Chain) vmkind.Kind {
	// A switch on the registry's metadata, not on the kind: the kind is what it finds.
	switch {
	case c.L1 || c.MinitiaType == "minimove":
		return vmkind.Move
	case c.MinitiaType == "minievm":
		return vmkind.EVM
	case c.MinitiaType == "miniwasm":
		return vmkind.Wasm
	}
	return ""
}

// nftKind is how one VM kind holds NFTs and sends them: one implementation per kind
// (moveNFTs, evmNFTs, wasmNFTs) in nftKinds, which TestEveryKindSendsNFTs holds complete.
type nftKind interface {
	// hexAccounts says a 0x hex account is accepted besides bech32.
	hexAccounts() bool
	// plan checks the request fields only this kind reads.
	plan(p *nftPlan) error
	// sameChain builds the messages that move the tokens within the chain.
	sameChain(ctx context.Context, owners NFTOwners, p *nftPlan) ([]proto.Message, error)
	// crossChain builds the messages that send the tokens over the ICS-721 channel x.ch.
	crossChain(ctx context.Context, owners NFTOwners, p *nftPlan, x nftCross) ([]proto.Message, error)
}

// nftCross is what a cross-chain send is built from.
type nftCross struct {
	ch               registry.Channel
	sender, receiver string // bech32 on from and to
	timeout          uint64 // unix nanoseconds
	// transfer is the nft-transfer module's MsgTransfer (Move and EVM chains have the module).
	transfer func() []proto.Message
}

var nftKinds = map[vmkind.Kind]nftKind{vmkind.Move: moveNFTs{}, vmkind.EVM: evmNFTs{}, vmkind.Wasm: wasmNFTs{}}

type (
	moveNFTs struct{}
	evmNFTs  struct{}
	wasmNFTs struct{}
)

// nftKindOf is the chain's nftKind; nil when it holds no NFTs the router can send.
func nftKindOf(c *registry.Chain) nftKind { return nftKinds[nftVM(c)] }

func (moveNFTs) hexAccounts() bool { return false }
func (evmNFTs) hexAccounts() bool  { return true }
func (wasmNFTs) hexAccounts() bool { return false }

func nftInvalid(reason, format string, args ...any) *route.Error {
	return route.Invalidf(reason, format, args...)
}

// nftAccount parses an account address for a chain: bech32 with its prefix (what
// InterwovenKit sends everywhere, InitiaAddress(..).bech32) or, on an EVM rollup, 0x hex.
func nftAccount(c *registry.Chain, field, s string) ([]byte, error) {
	if k := nftKindOf(c); k != nil && k.hexAccounts() && strings.HasPrefix(s, "0x") {
		if !common.IsHexAddress(s) || len(s) != 42 {
			return nil, nftInvalid(ReasonInvalidAddress, "%s: %q is not a 0x-prefixed 20-byte hex address", field, s)
		}
		return common.HexToAddress(s).Bytes(), nil
	}
	hrp, data, err := bech32.DecodeToBase256(s)
	switch {
	case s == "":
		return nil, nftInvalid(route.ReasonMissingField, "%s is required", field)
	case err != nil:
		return nil, nftInvalid(ReasonInvalidAddress, "%s: %q is not bech32: %v", field, s, err)
	case hrp != c.Bech32Prefix:
		return nil, nftInvalid(ReasonInvalidAddress, "%s: %q has prefix %q, chain %s uses %q", field, s, hrp, c.ID, c.Bech32Prefix)
	case len(data) != 20 && len(data) != 32:
		return nil, nftInvalid(ReasonInvalidAddress, "%s: %q holds %d bytes, want 20 or 32", field, s, len(data))
	}
	return data, nil
}

func bech(prefix string, b []byte) string {
	conv, _ := bech32.ConvertBits(b, 8, 5, true) // 8→5 bit regrouping of bytes cannot fail
	s, _ := bech32.Encode(prefix, conv)          // the prefix is a registry chain's, already validated
	return s
}

// moveAddr parses a Move address (0x + 1..64 hex digits) into its 32 bytes.
func moveAddr(s string) ([]byte, bool) {
	h, ok := strings.CutPrefix(s, "0x")
	if !ok || h == "" || len(h) > 64 {
		return nil, false
	}
	if len(h)%2 == 1 {
		h = "0" + h
	}
	b, err := hex.DecodeString(h)
	if err != nil {
		return nil, false
	}
	return append(make([]byte, 32-len(b)), b...), true
}

// widen is an account address as a 32-byte Move address.
func widen(b []byte) []byte {
	if len(b) >= 32 {
		return b[len(b)-32:]
	}
	return append(make([]byte, 32-len(b)), b...)
}

// nftPlan is a validated /nft request.
type nftPlan struct {
	req      NFTRequest
	from, to *registry.Chain
	kind     nftKind
	sender   []byte // account bytes on from
	receiver []byte // account bytes on to
}

func (b Builder) planNFT(req NFTRequest) (*nftPlan, error) {
	p := &nftPlan{req: req}
	for _, f := range []struct{ name, v string }{{"from_chain_id", req.FromChainID}, {"to_chain_id", req.ToChainID}} {
		if f.v == "" {
			return nil, nftInvalid(route.ReasonMissingField, "%s is required", f.name)
		}
		if b.Reg.Chain(f.v) == nil {
			return nil, route.Unknownf(route.ReasonUnknownChain, "%s: unknown chain %q", f.name, f.v)
		}
	}
	p.from, p.to = b.Reg.Chain(req.FromChainID), b.Reg.Chain(req.ToChainID)
	if p.kind = nftKindOf(p.from); p.kind == nil {
		return nil, nftInvalid(ReasonNFTUnsupported, "chain %s holds no NFTs the router can send (it is neither the Initia L1 nor a minimove, minievm or miniwasm rollup)", p.from.ID)
	}
	if nftKindOf(p.to) == nil {
		return nil, nftInvalid(ReasonNFTUnsupported, "chain %s cannot receive NFTs over ICS-721 from the Initia network", p.to.ID)
	}
	var err error
	if p.sender, err = nftAccount(p.from, "from_address", req.FromAddress); err != nil {
		return nil, err
	}
	if p.receiver, err = nftAccount(p.to, "to_address", req.ToAddress); err != nil {
		return nil, err
	}
	switch n := len(req.TokenIDs); {
	case n == 0:
		return nil, nftInvalid(route.ReasonMissingField, "token_ids is required (at least one token)")
	case n > MaxNFTTokens:
		return nil, nftInvalid(ReasonTooManyTokens, "token_ids holds %d tokens, at most %d can be sent at once", n, MaxNFTTokens)
	}
	if len(req.ObjectAddresses) > MaxNFTTokens {
		return nil, nftInvalid(ReasonTooManyTokens, "object_addresses holds %d addresses, at most %d", len(req.ObjectAddresses), MaxNFTTokens)
	}
	seen := map[string]bool{}
	for i, id := range req.TokenIDs {
		if id == "" {
			return nil, nftInvalid(ReasonInvalidTokenID, "token_ids[%d] is empty", i)
		}
		if seen[id] {
			return nil, nftInvalid(ReasonInvalidTokenID, "token_ids[%d]: %q appears twice", i, id)
		}
		seen[id] = true
	}
	if err := p.kind.plan(p); err != nil {
		return nil, err
	}
	if req.Timeout != nil && (*req.Timeout <= 0 || *req.Timeout > maxNFTTimeoutSeconds) {
		return nil, nftInvalid(ReasonInvalidNFTTimeout, "timeout must be between 1 and %d seconds, got %d", maxNFTTimeoutSeconds, *req.Timeout)
	}
	return p, nil
}

// NFT builds the /nft answer. owners is asked who holds each token first.
func (b Builder) NFT(ctx context.Context, owners NFTOwners, req NFTRequest) (*NFTResponse, error) {
	p, err := b.planNFT(req)
	if err != nil {
		return nil, err
	}
	var ms []proto.Message
	if p.from.ID == p.to.ID {
		ms, err = p.kind.sameChain(ctx, owners, p)
	} else {
		ms, err = b.nftCrossChain(ctx, owners, p)
	}
	if err != nil {
		return nil, err
	}
	out := &NFTResponse{Msgs: make([]AminoMsg, 0, len(ms))}
	for _, m := range ms {
		raw, err := txcodec.MarshalAmino(m)
		if err != nil {
			return nil, fmt.Errorf("amino encoding of %s: %w", proto.MessageName(m), err)
		}
		var am AminoMsg
		if err := json.Unmarshal(raw, &am); err != nil {
			return nil, fmt.Errorf("amino encoding of %s: %w", proto.MessageName(m), err)
		}
		out.Msgs = append(out.Msgs, am)
	}
	return out, nil
}

// ownerErr turns an owner lookup's failure into the answer's error.
func ownerErr(chainID, what string, err error) error {
	if errors.Is(err, ErrNFTMissing) {
		return nftInvalid(ReasonNFTNotFound, "%s does not exist on %s", what, chainID)
	}
	return &SourceError{Err: fmt.Errorf("%s on %s: %w", what, chainID, err)}
}

func notOwned(p *nftPlan, what, owner string) error {
	return nftInvalid(ReasonNFTNotOwned, "%s on %s belongs to %s, not to from_address %s", what, p.from.ID, owner, p.req.FromAddress)
}

// checkMove checks that each object is an NFT (of the collection, when named) with the token
// id at the same index, owned by the sender. It reads each object's resources
// (ObjectCore.owner, nft::Nft.collection and token_id) in one REST call per object.
func checkMove(ctx context.Context, owners NFTOwners, p *nftPlan) error {
	var col []byte
	if p.req.CollectionAddress != "" {
		var ok bool
		if col, ok = moveAddr(p.req.CollectionAddress); !ok {
			return nftInvalid(ReasonInvalidCollection, "collection_address: %q is not a 0x-prefixed Move address", p.req.CollectionAddress)
		}
	}
	want := widen(p.sender)
	for i, obj := range p.req.ObjectAddresses {
		what := fmt.Sprintf("NFT object %s", obj)
		n, err := owners.MoveNFT(ctx, p.from, obj)
		if err != nil {
			return ownerErr(p.from.ID, what, err)
		}
		if col != nil && string(n.Collection) != string(col) {
			return nftInvalid(ReasonNFTNotFound, "%s is not a token of collection %s on %s", what, p.req.CollectionAddress, p.from.ID)
		}
		if n.TokenID != p.req.TokenIDs[i] {
			return nftInvalid(ReasonNFTNotFound, "%s is token %q, not token_ids[%d] %q", what, n.TokenID, i, p.req.TokenIDs[i])
		}
		if string(n.Owner) != string(want) {
			return notOwned(p, what, "0x"+hex.EncodeToString(n.Owner))
		}
	}
	return nil
}

func evmContract(s string) (common.Address, bool) {
	if !common.IsHexAddress(s) || !strings.HasPrefix(s, "0x") || len(s) != 42 {
		return common.Address{}, false
	}
	return common.HexToAddress(s), true
}

func evmTokenIDs(ids []string) ([]*big.Int, error) {
	out := make([]*big.Int, len(ids))
	for i, id := range ids {
		v, ok := new(big.Int).SetString(id, 10)
		if !ok || v.Sign() < 0 || v.BitLen() > 256 || (len(id) > 1 && id[0] == '0') {
			return nil, nftInvalid(ReasonInvalidTokenID, "token_ids[%d]: %q is not an ERC-721 token id (a decimal uint256)", i, id)
		}
		out[i] = v
	}
	return out, nil
}

// ownedERC721s parses the request's token ids as ERC-721 ids and checks that the sender owns
// each of them on contract.
func ownedERC721s(ctx context.Context, owners NFTOwners, p *nftPlan, contract common.Address) ([]*big.Int, error) {
	ids, err := evmTokenIDs(p.req.TokenIDs)
	if err != nil {
		return nil, err
	}
	if err := checkERC721(ctx, owners, p, contract, ids); err != nil {
		return nil, err
	}
	return ids, nil
}

func checkERC721(ctx context.Context, owners NFTOwners, p *nftPlan, contract common.Address, ids []*big.Int) error {
	for i, id := range ids {
		what := fmt.Sprintf("token %s of ERC-721 %s", p.req.TokenIDs[i], contract.Hex())
		owner, err := owners.ERC721Owner(ctx, p.from, contract, id)
		if err != nil {
			return ownerErr(p.from.ID, what, err)
		}
		if string(owner) != string(p.sender) {
			return notOwned(p, what, common.BytesToAddress(owner).Hex())
		}
	}
	return nil
}

func checkCW721(ctx context.Context, owners NFTOwners, p *nftPlan, contract string) error {
	for _, id := range p.req.TokenIDs {
		what := fmt.Sprintf("token %s of CW721 %s", id, contract)
		owner, err := owners.CW721Owner(ctx, p.from, contract, id)
		if err != nil {
			return ownerErr(p.from.ID, what, err)
		}
		_, data, derr := bech32.DecodeToBase256(owner)
		if derr != nil || string(data) != string(p.sender) {
			return notOwned(p, what, owner)
		}
	}
	return nil
}

// nftChannel is the ICS-721 channel end on from that leads to the next chain: from the L1
// straight to the destination, from a rollup to the L1.
func (b Builder) nftChannel(p *nftPlan) (registry.Channel, error) {
	next := p.to
	if !p.from.L1 && !p.to.L1 {
		// InterwovenKit routes rollup → rollup through the L1 (intermediaryChain: layer1), and
		// ICS-721 has no packet-forward middleware: that takes a hop the router does not build yet.
		return registry.Channel{}, nftInvalid(ReasonNFTUnsupported,
			"sending an NFT from rollup %s to rollup %s takes two ICS-721 hops through the L1; send it to the L1 first, then from the L1 to %s", p.from.ID, p.to.ID, p.to.ID)
	}
	for _, ch := range p.from.NFTChannels {
		if ch.CounterpartyChainID == next.ID {
			return ch, nil
		}
	}
	return registry.Channel{}, nftInvalid(ReasonNoNFTChannel, "the registry lists no ICS-721 channel from %s to %s", p.from.ID, next.ID)
}

func (b Builder) nftCrossChain(ctx context.Context, owners NFTOwners, p *nftPlan) ([]proto.Message, error) {
	// initia.js v2 types.ts: class_id "Required for cross-chain transfers".
	if p.req.ClassID == "" {
		return nil, nftInvalid(ReasonClassIDRequired, "class_id is required to send an NFT from %s to %s (the ICS-721 class: move/<collection>, evm/<contract>, ibc/<hash> or the CW721 contract)", p.from.ID, p.to.ID)
	}
	ch, err := b.nftChannel(p)
	if err != nil {
		return nil, err
	}
	now := time.Now
	if b.Now != nil {
		now = b.Now
	}
	secs := int64(defaultNFTTimeoutSeconds)
	if p.req.Timeout != nil {
		secs = *p.req.Timeout
	}
	timeout := uint64(now().Add(time.Duration(secs) * time.Second).UnixNano())
	sender := bech(p.from.Bech32Prefix, p.sender)
	receiver := bech(p.to.Bech32Prefix, p.receiver)
	transfer := func() []proto.Message {
		return []proto.Message{&nfttransferv1.MsgTransfer{SourcePort: ch.Port, SourceChannel: ch.ID, ClassId: p.req.ClassID,
			TokenIds: p.req.TokenIDs, Sender: sender, Receiver: receiver, TimeoutTimestamp: timeout}}
	}
	return p.kind.crossChain(ctx, owners, p, nftCross{ch: ch, sender: sender, receiver: receiver, timeout: timeout, transfer: transfer})
}

// plan: InterwovenKit always sends object_addresses: [nft.object_addr], which the indexer
// leaves empty for ERC-721 and CW721 tokens; only Move chains read them.
func (moveNFTs) plan(p *nftPlan) error {
	req := p.req
	if len(req.ObjectAddresses) > 0 {
		if len(req.ObjectAddresses) != len(req.TokenIDs) {
			return nftInvalid(ReasonObjectAddresses, "object_addresses holds %d addresses for %d token_ids: one per token", len(req.ObjectAddresses), len(req.TokenIDs))
		}
		for i, a := range req.ObjectAddresses {
			if _, ok := moveAddr(a); !ok {
				return nftInvalid(ReasonObjectAddresses, "object_addresses[%d]: %q is not a 0x-prefixed Move address", i, a)
			}
		}
	}
	return nil
}

func (evmNFTs) plan(*nftPlan) error  { return nil }
func (wasmNFTs) plan(*nftPlan) error { return nil }

func (moveNFTs) sameChain(ctx context.Context, owners NFTOwners, p *nftPlan) ([]proto.Message, error) {
	sender := bech(p.from.Bech32Prefix, p.sender)
	var out []proto.Message
	// initia.js v2 types.ts: object_addresses "Required for same-chain Move transfers".
	if len(p.req.ObjectAddresses) == 0 {
		return nil, nftInvalid(ReasonObjectAddresses, "object_addresses is required to send Move NFTs within %s (one NFT object address per token id)", p.from.ID)
	}
	if err := checkMove(ctx, owners, p); err != nil {
		return nil, err
	}
	to := widen(p.receiver)
	for _, obj := range p.req.ObjectAddresses {
		o, _ := moveAddr(obj) // checked in planNFT
		// 0x1::object::transfer_call(owner: &signer, object: address, to: address)
		// (initia-labs/movevm@01f0046:precompile/modules/initia_stdlib/sources/object.move): the
		// signer is implied, the two addresses are BCS (32 raw bytes each).
		out = append(out, &movev1.MsgExecute{Sender: sender, ModuleAddress: "0x1", ModuleName: "object",
			FunctionName: "transfer_call", Args: [][]byte{o, to}})
	}
	return out, nil
}

func (evmNFTs) sameChain(ctx context.Context, owners NFTOwners, p *nftPlan) ([]proto.Message, error) {
	sender := bech(p.from.Bech32Prefix, p.sender)
	var out []proto.Message
	if len(p.sender) != 20 || len(p.receiver) != 20 {
		return nil, nftInvalid(ReasonInvalidAddress, "from_address and to_address must be 20-byte accounts on the EVM rollup %s", p.from.ID)
	}
	contract, ok := evmContract(p.req.CollectionAddress)
	if !ok {
		return nil, nftInvalid(ReasonInvalidCollection, "collection_address: %q is not an ERC-721 contract address (0x + 40 hex digits)", p.req.CollectionAddress)
	}
	ids, err := ownedERC721s(ctx, owners, p, contract)
	if err != nil {
		return nil, err
	}
	from := common.BytesToAddress(p.sender)
	to := common.BytesToAddress(p.receiver)
	for _, id := range ids {
		// transferFrom, not safeTransferFrom: a wallet's send must also reach contract
		// accounts that do not implement onERC721Received.
		in, err := parsedNFTABI.Pack("transferFrom", from, to, id)
		if err != nil {
			return nil, fmt.Errorf("transferFrom calldata: %w", err)
		}
		out = append(out, &evmv1.MsgCall{Sender: sender, ContractAddr: contract.Hex(), Input: "0x" + hex.EncodeToString(in), Value: "0"})
	}
	return out, nil
}

func (wasmNFTs) sameChain(ctx context.Context, owners NFTOwners, p *nftPlan) ([]proto.Message, error) {
	sender := bech(p.from.Bech32Prefix, p.sender)
	var out []proto.Message
	contract := p.req.CollectionAddress
	if _, err := nftAccount(p.from, "collection_address", contract); err != nil {
		return nil, nftInvalid(ReasonInvalidCollection, "collection_address: %q is not a CW721 contract address of %s", contract, p.from.ID)
	}
	if err := checkCW721(ctx, owners, p, contract); err != nil {
		return nil, err
	}
	recipient := bech(p.to.Bech32Prefix, p.receiver)
	for _, id := range p.req.TokenIDs {
		msg, _ := json.Marshal(map[string]any{"transfer_nft": map[string]string{"recipient": recipient, "token_id": id}})
		out = append(out, &wasmv1.MsgExecuteContract{Sender: sender, Contract: contract, Msg: msg})
	}
	return out, nil
}

func (moveNFTs) crossChain(ctx context.Context, owners NFTOwners, p *nftPlan, x nftCross) ([]proto.Message, error) {
	// The objects are checked when the wallet names them (InterwovenKit always does); the
	// class id alone does not say which objects the token ids are.
	if err := checkMove(ctx, owners, p); err != nil {
		return nil, err
	}
	return x.transfer(), nil
}

func (evmNFTs) crossChain(ctx context.Context, owners NFTOwners, p *nftPlan, x nftCross) ([]proto.Message, error) {
	// An evm/<contract> class carries the contract's own token ids; an ibc/ class carries
	// the origin ids (InterwovenKit maps them, tx.evm.ts), which ownerOf does not know.
	if h, ok := strings.CutPrefix(p.req.ClassID, "evm/"); ok {
		contract, ok := evmContract("0x" + h)
		if !ok {
			return nil, nftInvalid(ReasonInvalidCollection, "class_id: %q is not evm/<contract address>", p.req.ClassID)
		}
		if _, err := ownedERC721s(ctx, owners, p, contract); err != nil {
			return nil, err
		}
	}
	return x.transfer(), nil
}

func (wasmNFTs) crossChain(ctx context.Context, owners NFTOwners, p *nftPlan, x nftCross) ([]proto.Message, error) {
	// miniwasm has no nft-transfer module; the cw721 sends the token to the ICS-721
	// contract (the port wasm.<contract>) or its outgoing proxy with the IBC destination
	// (InterwovenKit tx.wasm.ts reads both from the channel and the contract).
	ics721, ok := strings.CutPrefix(x.ch.Port, "wasm.")
	if !ok {
		return nil, nftInvalid(ReasonNoNFTChannel, "the ICS-721 channel %s of %s is on port %s, not on an ICS-721 contract (wasm.<contract>)", x.ch.ID, p.from.ID, x.ch.Port)
	}
	target := ics721
	if p.req.OutgoingProxy != nil && *p.req.OutgoingProxy != "" {
		target = *p.req.OutgoingProxy
		if _, err := nftAccount(p.from, "outgoing_proxy", target); err != nil {
			return nil, err
		}
	}
	contract := p.req.CollectionAddress
	if _, err := nftAccount(p.from, "collection_address", contract); err != nil {
		return nil, nftInvalid(ReasonInvalidCollection, "collection_address: %q is not a CW721 contract address of %s", contract, p.from.ID)
	}
	if err := checkCW721(ctx, owners, p, contract); err != nil {
		return nil, err
	}
	// ics721's IbcOutgoingMsg: receiver, channel_id, timeout (IbcTimeout), memo.
	inner, _ := json.Marshal(map[string]any{"receiver": x.receiver, "channel_id": x.ch.ID,
		"timeout": map[string]string{"timestamp": fmt.Sprint(x.timeout)}})
	var out []proto.Message
	for _, id := range p.req.TokenIDs {
		msg, _ := json.Marshal(map[string]any{"send_nft": map[string]string{"contract": target, "token_id": id,
			"msg": base64.StdEncoding.EncodeToString(inner)}})
		out = append(out, &wasmv1.MsgExecuteContract{Sender: x.sender, Contract: contract, Msg: msg})
	}
	return out, nil
}
