package ingest

// NFT extraction: each VM's events become store.NFTChange values in event order. Whatever the
// events do not carry (EVM names and token URIs, Wasm collection names and creators, Wasm URI
// updates, a Move token whose events lack its id or URI) is asked of the chain here, in the
// concurrent fetch stage at the event's height, so the ordered writer never waits on the chain.

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"sync"

	"github.com/rollgate/rollgate/internal/jsonx"
	"github.com/rollgate/rollgate/internal/store"
)

// ErrQueryFailed reports a chain query the chain answered with a definite failure (an EVM
// revert, an unknown Wasm query, a missing Move resource), as opposed to a transport error,
// which is retried with the height.
var ErrQueryFailed = errors.New("chain query failed")

// NFTQuerier is what NFT extraction asks the chain. Every call is at a height; failures the
// chain decided wrap ErrQueryFailed.
type NFTQuerier interface {
	// EVMCall runs a read-only call of contract (as written in the log, 0x hex) with input
	// and returns the output (REST /minievm/evm/v1/call, as rollytics).
	EVMCall(ctx context.Context, height int64, contract string, input []byte) ([]byte, error)
	// MoveResource returns the move_resource JSON of struct tag at addr (0x hex).
	MoveResource(ctx context.Context, height int64, addr, structTag string) (json.RawMessage, error)
	// WasmSmart runs a smart query of contract (bech32) and returns its data.
	WasmSmart(ctx context.Context, height int64, contract string, query []byte) (json.RawMessage, error)
	// WasmCreator returns the bech32 address that instantiated contract.
	WasmCreator(ctx context.Context, height int64, contract string) (string, error)
}

// NFTVM reads the NFT events of one VM kind: one implementation per kind (MoveNFTs, EVMNFTs,
// WasmNFTs), chosen by the VM profile.
type NFTVM interface {
	// tx appends the NFT changes of one successful tx's events to b; EVM mints whose token URI
	// is asked once the block's events are read go to uris.
	tx(ctx context.Context, x *nftExtractor, h int64, txIndex int, events []Event, b *store.NFTRows, uris *[]uriJob) error
	// originName is the collection an ICS-721 class received over prefixed (port/channel/
	// classId as seen on this chain) lands in.
	originName(prefixed string) string
}

// MoveNFTs reads Move's 0x1::collection, 0x1::nft and 0x1::object events (nftmove.go).
func MoveNFTs() NFTVM { return moveNFTs{} }

// EVMNFTs reads ERC-721 Transfer logs, with names and token URIs asked by eth_call (nftevm.go).
func EVMNFTs() NFTVM { return evmNFTs{} }

// WasmNFTs reads CW721 wasm events, with collection names and creators asked of the chain
// (nftwasm.go).
func WasmNFTs() NFTVM { return wasmNFTs{} }

type (
	moveNFTs struct{}
	evmNFTs  struct{}
	wasmNFTs struct{}
)

func (moveNFTs) tx(ctx context.Context, x *nftExtractor, h int64, i int, events []Event, b *store.NFTRows, _ *[]uriJob) error {
	return x.moveTx(ctx, h, i, events, b)
}

func (evmNFTs) tx(ctx context.Context, x *nftExtractor, h int64, i int, events []Event, b *store.NFTRows, uris *[]uriJob) error {
	return x.evmTx(ctx, h, i, events, b, uris)
}

func (wasmNFTs) tx(ctx context.Context, x *nftExtractor, h int64, i int, events []Event, b *store.NFTRows, _ *[]uriJob) error {
	return x.wasmTx(ctx, h, i, events, b)
}

// On Move and EVM a received class is the voucher class id, ibc/ + the upper-case hex SHA-256
// of the prefixed id; on Wasm it is the prefixed id itself.
func (moveNFTs) originName(prefixed string) string { return voucherClass(prefixed) }
func (evmNFTs) originName(prefixed string) string  { return voucherClass(prefixed) }
func (wasmNFTs) originName(prefixed string) string { return prefixed }

func voucherClass(prefixed string) string {
	sum := sha256.Sum256([]byte(prefixed))
	return "ibc/" + strings.ToUpper(hex.EncodeToString(sum[:]))
}

// nftExtractor turns one block's tx results into NFT changes for one VM kind.
type nftExtractor struct {
	vm     NFTVM
	prefix string
	q      NFTQuerier
	// startHeight is the store's first height when it started past genesis (START_HEIGHT > 1):
	// EVM tokens minted before it are then learnt from their later transfers.
	startHeight int64

	mu sync.Mutex
	// notNFT holds contracts found not to be NFT collections (persisted through
	// store.NFTRows.NotNFT and reloaded on start), so they are asked about once.
	notNFT map[string]bool
	// known holds what was learnt of collections (EVM names, Wasm name and creator), so a
	// collection is asked about once per process rather than once per block.
	known   map[string]collectionInfo
	pending map[string]*inflight
}

type collectionInfo struct {
	name    string
	creator []byte
}

func newNFTExtractor(vm NFTVM, prefix string, q NFTQuerier, notNFT [][]byte) *nftExtractor {
	x := &nftExtractor{vm: vm, prefix: prefix, q: q, notNFT: map[string]bool{}, known: map[string]collectionInfo{},
		pending: map[string]*inflight{}}
	for _, a := range notNFT {
		x.notNFT[string(a)] = true
	}
	return x
}

// inflight is one lookup of a contract in progress; other heights wait for it rather than
// asking the chain the same thing at a later height (heights are dispatched in ascending
// order, so the first asker is normally the contract's first appearance).
type inflight struct {
	done   chan struct{}
	ci     collectionInfo
	notNFT bool
	err    error
}

// lookup returns what is known of a contract, running fetch once for all concurrent heights.
// fetch reports a contract that is no collection with ErrQueryFailed; only the caller whose
// fetch found that gets mine = true, so it alone records the mark in its bundle.
func (x *nftExtractor) lookup(ctx context.Context, addr []byte, fetch func() (collectionInfo, error)) (ci collectionInfo, notNFT, mine bool, err error) {
	for {
		x.mu.Lock()
		if x.notNFT[string(addr)] {
			x.mu.Unlock()
			return collectionInfo{}, true, false, nil
		}
		if ci, ok := x.known[string(addr)]; ok {
			x.mu.Unlock()
			return ci, false, false, nil
		}
		if p := x.pending[string(addr)]; p != nil {
			x.mu.Unlock()
			select {
			case <-p.done:
			case <-ctx.Done():
				return collectionInfo{}, false, false, ctx.Err()
			}
			if p.err == nil {
				return p.ci, p.notNFT, false, nil
			}
			continue // that attempt failed in transport: try at this height
		}
		p := &inflight{done: make(chan struct{})}
		x.pending[string(addr)] = p
		x.mu.Unlock()

		p.ci, p.err = fetch()
		if errors.Is(p.err, ErrQueryFailed) {
			p.notNFT, p.err = true, nil
		}
		x.mu.Lock()
		delete(x.pending, string(addr))
		switch {
		case p.err != nil:
		case p.notNFT:
			x.notNFT[string(addr)] = true
		default:
			x.known[string(addr)] = p.ci
		}
		x.mu.Unlock()
		close(p.done)
		return p.ci, p.notNFT, p.notNFT, p.err
	}
}

func (x *nftExtractor) isNotNFT(addr []byte) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.notNFT[string(addr)]
}

// extract adds the block's NFT changes (and not-an-NFT marks) to b, as its store.NFTRows. Only successful txs
// count: a failed tx keeps its ante events only, and its VM events were reverted.
func (x *nftExtractor) extract(ctx context.Context, results []TxResult, b *store.BlockBundle) error {
	if x == nil {
		return nil
	}
	h := b.Block.Height
	rows := &store.NFTRows{}
	var uris []uriJob // EVM mints whose URI is asked once the block's events are read
	for i, res := range results {
		if res.Code != 0 {
			continue
		}
		if err := x.vm.tx(ctx, x, h, i, res.Events, rows, &uris); err != nil {
			return err
		}
		if err := x.originNames(i, res.Events, rows); err != nil {
			return err
		}
	}
	if err := x.evmTokenURIs(ctx, h, uris, rows); err != nil {
		return err
	}
	if len(rows.NFTs)+len(rows.NotNFT) > 0 {
		b.Extensions = append(b.Extensions, rows)
	}
	return nil
}

// eventAttrs maps an event's attribute keys to their first value.
func eventAttrs(ev Event) map[string]string {
	m := make(map[string]string, len(ev.Attributes))
	for _, a := range ev.Attributes {
		if _, ok := m[a.Key]; !ok {
			m[a.Key] = a.Value
		}
	}
	return m
}

// originNames reads ICS-721 `recv_packet` events (source port nft-transfer): the packet's
// classData carries the L1 collection name, and the collection it lands in is named after the
// class as seen on this chain (NFTVM.originName).
func (x *nftExtractor) originNames(txIndex int, events []Event, b *store.NFTRows) error {
	for _, ev := range events {
		if ev.Type != "recv_packet" {
			continue
		}
		a := eventAttrs(ev)
		if a["packet_src_port"] != "nft-transfer" {
			continue
		}
		var pd struct {
			ClassID   string `json:"classId"`
			ClassData string `json:"classData"`
		}
		if jsonx.Unmarshal([]byte(a["packet_data"]), &pd) != nil || pd.ClassID == "" {
			continue
		}
		cd, err := base64.StdEncoding.DecodeString(pd.ClassData)
		if err != nil {
			continue
		}
		var class struct {
			Name string `json:"name"`
		}
		if jsonx.Unmarshal(cd, &class) != nil || class.Name == "" {
			continue
		}
		l2 := x.vm.originName(a["packet_dst_port"] + "/" + a["packet_dst_channel"] + "/" + pd.ClassID)
		b.NFTs = append(b.NFTs, store.NFTChange{Kind: store.NFTOriginName, TxIndex: txIndex, Name: l2, OriginName: class.Name})
	}
	return nil
}

// notNFTLister is the store side the pipeline reloads the not-an-NFT marks from.
type notNFTLister interface {
	NotNFTContracts(ctx context.Context) ([][]byte, error)
}

// NFTs is the NFT extension of a chain whose VM vm reads: collections, tokens and their
// history from each block's VM events, with what the events do not carry asked of the chain.
func NFTs(vm NFTVM) Extension { return &nftExt{vm: vm} }

type nftExt struct {
	noHooks
	vm    NFTVM
	p     *Pipeline
	q     NFTQuerier
	marks notNFTLister
	x     *nftExtractor
}

func (e *nftExt) Name() string { return "nft" }
func (e *nftExt) Needs() string {
	return "a source that answers NFT queries (EVM calls, Move resources, Wasm smart queries)"
}

func (e *nftExt) bind(p *Pipeline) error {
	e.p = p
	var ok bool
	if e.q, ok = p.src.(NFTQuerier); !ok {
		return errMissing(e)
	}
	// The marks only spare the chain repeated questions after a restart: a store without
	// them still indexes every NFT.
	e.marks, _ = p.w.(notNFTLister)
	return nil
}

// start reloads the marks the store already holds.
func (e *nftExt) start(ctx context.Context, _, _ int64) error {
	var marks [][]byte
	if e.marks != nil {
		if err := e.p.retry(ctx, "read not-an-NFT marks", func() error {
			var err error
			marks, err = e.marks.NotNFTContracts(ctx)
			return err
		}); err != nil {
			return err
		}
	}
	e.x = newNFTExtractor(e.vm, e.p.cfg.AccountPrefix, e.q, marks)
	e.x.startHeight = e.p.cfg.StartHeight
	return nil
}

func (e *nftExt) extract(ctx context.Context, _ *RawBlock, results []TxResult, b *store.BlockBundle) error {
	return e.x.extract(ctx, results, b)
}
