package ingest

import (
	"context"
	"errors"

	"github.com/rollgate/rollgate/internal/store"
)

// Extension is one optional part of ingestion beside the core (blocks, txs, account links):
// NFTs, EVM txs, the rich list, internal txs. The VM profile (internal/indexer/profile) picks
// a chain's extensions once and hands them to the pipeline in Config.Extensions; the pipeline
// knows them only through this interface, so none of its stages names a feature or a VM.
//
// The lifecycle methods are unexported: an extension reaches into the pipeline's stages, so
// every implementation lives in this package, and the profile only chooses among them. An
// extension that stores rows of its own is one file here: its ingest side, its rows
// (store.ExtensionRows) and their writer (store.ExtensionWriter), and, through tableOwner, the
// tables they go to; its row in the profile's table turns it on.
type Extension interface {
	// Name names the extension in logs and errors.
	Name() string
	// Needs names the source (and store) capability the extension requires. A pipeline whose
	// source or store lacks it does not start: New fails with this text.
	Needs() string

	// bind checks the pipeline's source and store for the capability and keeps them.
	bind(p *Pipeline) error
	// start runs once before core ingestion begins: indexed is the store's height, next the
	// first height fetched.
	start(ctx context.Context, indexed, next int64) error
	// extract adds the extension's part to one height's bundle, in the concurrent fetch stage.
	extract(ctx context.Context, blk *RawBlock, results []TxResult, b *store.BlockBundle) error
	// beforeWrite runs in the committer just before a batch is written.
	beforeWrite(ctx context.Context, batch []store.BlockBundle)
	// repair answers a refused write: true when it changed the batch so that the write may be
	// retried at once (not counted as an attempt).
	repair(ctx context.Context, batch []store.BlockBundle, err error) bool
	// follow is the extension's own loop beside the core stages (nil: none). It returns when
	// ctx ends; with Config.StopAtHeight, waitAtStop says Run waits for it to return itself.
	follow() (run func(ctx context.Context) error, waitAtStop bool)
	// ready is the extension's part of Ready, asked once the core is ready.
	ready(indexed int64) error
	// reset forgets what the extension learnt of the chain, when the store was emptied to
	// index another one (the pipeline's re-index); start follows.
	reset()
}

// tableOwner is an extension that owns tables of its own (store.ExtensionTable): the pipeline
// has the store create them before the extension starts, and a store that cannot keep them
// (store.ExtensionTableStore) fails New, as a missing capability does.
type tableOwner interface {
	tables() []store.ExtensionTable
}

// bindTables checks that the store can keep e's tables, when e owns some.
func bindTables(p *Pipeline, e Extension) error {
	if o, ok := e.(tableOwner); ok && len(o.tables()) > 0 {
		if _, ok := p.w.(store.ExtensionTableStore); !ok {
			return errors.New("ingest: extension " + e.Name() + " needs a store that keeps extension tables")
		}
	}
	return nil
}

// ensureTables has the store create the tables of every extension that owns some (each run:
// the statements are idempotent, and a re-index keeps the tables).
func (p *Pipeline) ensureTables(ctx context.Context) error {
	var tables []store.ExtensionTable
	for _, e := range p.exts {
		if o, ok := e.(tableOwner); ok {
			tables = append(tables, o.tables()...)
		}
	}
	if len(tables) == 0 {
		return nil
	}
	ts := p.w.(store.ExtensionTableStore) // bindTables checked it
	return p.retry(ctx, "create extension tables", func() error { return ts.EnsureExtensionTables(ctx, tables) })
}

// noHooks gives an extension the do-nothing lifecycle it does not override.
type noHooks struct{}

func (noHooks) start(context.Context, int64, int64) error { return nil }
func (noHooks) extract(context.Context, *RawBlock, []TxResult, *store.BlockBundle) error {
	return nil
}
func (noHooks) beforeWrite(context.Context, []store.BlockBundle)        {}
func (noHooks) repair(context.Context, []store.BlockBundle, error) bool { return false }
func (noHooks) follow() (func(context.Context) error, bool)             { return nil, false }
func (noHooks) ready(int64) error                                       { return nil }
func (noHooks) reset()                                                  {}

// errMissing is the start-up error of an extension whose source or store lacks its capability.
func errMissing(e Extension) error {
	return errors.New("ingest: extension " + e.Name() + " needs " + e.Needs())
}
