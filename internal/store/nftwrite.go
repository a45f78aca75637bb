package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rollgate/rollgate/internal/sqldb"
)

// NFTRows are a block's rows of the NFT index, in BlockBundle.Extensions: its NFT changes in
// event order, applied after its txs, and the contracts found at this height not to be NFT
// collections (nft_not_collection).
type NFTRows struct {
	NFTs   []NFTChange
	NotNFT [][]byte
}

func (*NFTRows) WriterName() string         { return "nft" }
func (*NFTRows) NewWriter() ExtensionWriter { return &nftWriter{} }
func (r *NFTRows) Count() int               { return len(r.NFTs) }

// nftBlock is one bundle's NFT rows as the writer took them; first is the sequence of the
// bundle's first tx.
type nftBlock struct {
	b     *BlockBundle
	rows  *NFTRows
	first int64
}

// nftWriter applies the NFT changes of one WriteBlocks call inside its transaction. NFT
// events are few next to txs, so each change is a statement or two; what it reads (dictionary
// entries, collections) is cached for the transaction.
type nftWriter struct {
	blocks  []nftBlock // what add took, in bundle order
	tx      *queuedTx
	dict    map[string]*dictEntry // collection\x00token_id → nft_dict entry
	nextID  int64                 // last nft_dict id handed out; 0 = not read yet
	colls   map[string]*collInfo  // collection address → what the writer knows of it
	touched map[string]bool       // collections whose nft_count must be recounted
	edges   map[[2]int64]bool
	edgeRow [][]any
	ranks   *rankCache
	owned   map[[2]string]int64 // (owner, collection) → change of its live token count
	ownKeys [][2]string         // keys of owned in first-touch order
	// toks is what the writer knows of the nft rows (read up front, then kept as it writes
	// them), so a change reads nothing and its statements can wait in the queue.
	toks map[string]tokState
	// noDict holds the tokens prefetch found without a dictionary entry: entry adds theirs
	// without asking.
	noDict map[string]bool
	// added are the dictionary entries this transaction adds, inserted by finish with their
	// final counts (nothing reads them from the table before).
	added []addedEntry
}

func (w *nftWriter) Add(b *BlockBundle, rows ExtensionRows, firstSeq int64) {
	w.blocks = append(w.blocks, nftBlock{b: b, rows: rows.(*NFTRows), first: firstSeq})
}

type addedEntry struct {
	e       *dictEntry
	coll    []byte
	tokenID string
}

type tokState struct {
	k  rankKey
	ok bool
}

type collInfo struct {
	exists  bool
	creator []byte
}

func nftKey(coll []byte, tokenID string) string { return string(coll) + "\x00" + tokenID }

// write applies every bundle's NFT changes in order.
func (w *nftWriter) Write(ctx context.Context, wt sqldb.Tx, _ string) error {
	tx := newQueuedTx(wt)
	*w = nftWriter{blocks: w.blocks, tx: tx, dict: map[string]*dictEntry{}, colls: map[string]*collInfo{},
		touched: map[string]bool{}, edges: map[[2]int64]bool{}, ranks: newRankCache(tx), owned: map[[2]string]int64{},
		toks: map[string]tokState{}, noDict: map[string]bool{}}
	if err := w.prefetch(ctx); err != nil {
		return err
	}
	changed := false
	for _, nb := range w.blocks {
		b := nb.b
		for _, addr := range nb.rows.NotNFT {
			changed = true
			if err := tx.Exec(ctx, "INSERT INTO nft_not_collection (addr, height) VALUES (?, ?) ON CONFLICT (addr) DO NOTHING",
				nonNil(addr), b.Block.Height); err != nil {
				return fmt.Errorf("record not-an-NFT contract: %w", err)
			}
		}
		for i := range nb.rows.NFTs {
			changed = true
			c := &nb.rows.NFTs[i]
			var seq int64
			if c.TxIndex >= 0 && c.TxIndex < len(b.Txs) {
				seq = nb.first + int64(c.TxIndex)
			}
			if err := w.apply(ctx, &b.Block, c, seq); err != nil {
				return fmt.Errorf("height %d: nft change %d: %w", b.Block.Height, i, err)
			}
		}
	}
	if !changed {
		return nil
	}
	if err := w.finish(ctx); err != nil {
		return err
	}
	return tx.flush(ctx)
}

func (w *nftWriter) apply(ctx context.Context, blk *Block, c *NFTChange, seq int64) error {
	h, tns := blk.Height, blk.Time.UnixNano()
	if c.Kind == NFTTransfer && c.MintIfMissing && c.Collection != nil {
		if _, had, err := w.token(ctx, c.Collection, c.TokenID); err != nil {
			return err
		} else if !had {
			m := *c
			m.Kind = NFTMint
			return w.apply(ctx, blk, &m, seq)
		}
	}
	switch c.Kind {
	case NFTCreateCollection:
		return w.createCollection(ctx, blk, c)
	case NFTOriginName:
		return w.tx.Exec(ctx, "UPDATE nft_collection SET origin_name = ?, origin_norm = ? WHERE name = ?",
			clean(c.OriginName), NormalizeCollectionName(clean(c.OriginName)), clean(c.Name))
	case NFTMint:
		ci, err := w.collection(ctx, c.Collection)
		if err != nil || !ci.exists {
			return err
		}
		owner := c.Owner
		if owner == nil {
			owner = ci.creator
		}
		e, err := w.entry(ctx, c.Collection, c.TokenID)
		if err != nil {
			return err
		}
		prev, had, err := w.token(ctx, c.Collection, c.TokenID)
		if err != nil {
			return err
		}
		if err := w.tx.Exec(ctx, "INSERT INTO nft (collection_addr, token_id, nft_id, object_addr, owner, uri, height, time_ns) "+
			"VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (collection_addr, token_id) DO UPDATE SET nft_id = excluded.nft_id, "+
			"object_addr = excluded.object_addr, owner = excluded.owner, uri = excluded.uri, height = excluded.height, time_ns = excluded.time_ns",
			c.Collection, clean(c.TokenID), e.id, nonNil(c.ObjectAddr), nonNil(owner), clean(c.URI), h, tns); err != nil {
			return fmt.Errorf("mint: %w", err)
		}
		if had {
			if err := w.delToken(ctx, prev); err != nil {
				return err
			}
		}
		k := rankKey{coll: c.Collection, owner: nonNil(owner), tokenID: clean(c.TokenID), height: h}
		w.toks[nftKey(c.Collection, k.tokenID)] = tokState{k: k, ok: true}
		if err := w.addToken(ctx, k); err != nil {
			return err
		}
		w.touched[string(c.Collection)] = true
		return w.edge(c, e, seq)
	}

	// Changes to an existing token.
	coll, tokenID := c.Collection, c.TokenID
	if coll == nil {
		// Move: the event names the NFT object only.
		err := queryRow(ctx, w.tx, "SELECT collection_addr, token_id FROM nft WHERE object_addr = ?", []any{nonNil(c.ObjectAddr)}, &coll, &tokenID)
		if errors.Is(err, ErrNotFound) {
			return nil // not an NFT object (Move transfers every kind of object)
		}
		if err != nil {
			return err
		}
	}
	// Only a token the store holds changes or gets an edge, as in rollytics (tx_nfts is written
	// for the rows the change touched).
	prev, ok, err := w.token(ctx, coll, tokenID)
	if err != nil || !ok {
		return err
	}
	var q string
	var args []any
	next := prev
	switch c.Kind {
	case NFTTransfer:
		q, args = "UPDATE nft SET owner = ?, height = ?, time_ns = ? WHERE collection_addr = ? AND token_id = ?", []any{nonNil(c.Owner), h, tns}
		next.owner, next.height = nonNil(c.Owner), h
	case NFTSetURI:
		q, args = "UPDATE nft SET uri = ?, height = ?, time_ns = ? WHERE collection_addr = ? AND token_id = ?", []any{clean(c.URI), h, tns}
		next.height = h
	case NFTBurn:
		q = "DELETE FROM nft WHERE collection_addr = ? AND token_id = ?"
		w.touched[string(coll)] = true
	default:
		return fmt.Errorf("unknown change kind %d", c.Kind)
	}
	if err := w.tx.Exec(ctx, q, append(args, coll, clean(tokenID))...); err != nil {
		return err
	}
	w.toks[nftKey(coll, clean(tokenID))] = tokState{k: next, ok: c.Kind != NFTBurn}
	if err := w.delToken(ctx, prev); err != nil {
		return err
	}
	if c.Kind != NFTBurn {
		if err := w.addToken(ctx, next); err != nil {
			return err
		}
	}
	if !c.Edge || seq == 0 {
		return nil
	}
	e, err := w.entry(ctx, coll, tokenID)
	if err != nil {
		return err
	}
	return w.edge(c, e, seq)
}

// token reads the rank key of a live token; ok is false when the store does not hold it.
func (w *nftWriter) token(ctx context.Context, coll []byte, tokenID string) (k rankKey, ok bool, err error) {
	if t, hit := w.toks[nftKey(coll, clean(tokenID))]; hit {
		return t.k, t.ok, nil
	}
	k = rankKey{coll: coll, tokenID: clean(tokenID)}
	err = queryRow(ctx, w.tx, "SELECT owner, height FROM nft WHERE collection_addr = ? AND token_id = ?", []any{nonNil(coll), k.tokenID}, &k.owner, &k.height)
	if errors.Is(err, ErrNotFound) {
		return k, false, nil
	}
	if err != nil {
		return k, false, fmt.Errorf("read token: %w", err)
	}
	k.owner = nonNil(k.owner)
	w.toks[nftKey(coll, k.tokenID)] = tokState{k: k, ok: true}
	return k, true, nil
}

// prefetchChunk bounds the (collection, token) pairs of one prefetch query.
const prefetchChunk = 400

// prefetch reads, in a few queries, the nft rows and dictionary entries of the tokens the
// changes name (a Move change names only an object and is read when applied). A token absent
// from nft is remembered as absent; one absent from nft_dict is left for entry to add.
func (w *nftWriter) prefetch(ctx context.Context) error {
	var pairs []any
	seen := map[string]bool{}
	for _, nb := range w.blocks {
		for i := range nb.rows.NFTs {
			c := &nb.rows.NFTs[i]
			if c.Collection == nil || c.Kind == NFTCreateCollection || c.Kind == NFTOriginName {
				continue
			}
			k := nftKey(c.Collection, clean(c.TokenID))
			if seen[k] {
				continue
			}
			seen[k] = true
			pairs = append(pairs, nonNil(c.Collection), clean(c.TokenID))
		}
	}
	for start := 0; start < len(pairs); start += 2 * prefetchChunk {
		part := padTuples(pairs[start:min(len(pairs), start+2*prefetchChunk)], 2)
		in := " WHERE (collection_addr, token_id) IN (" + strings.TrimSuffix(strings.Repeat("(?, ?),", len(part)/2), ",") + ")"
		r, err := w.tx.Query(ctx, "SELECT collection_addr, token_id, owner, height FROM nft"+in, part...)
		if err != nil {
			return fmt.Errorf("read tokens: %w", err)
		}
		for r.Next() {
			var k rankKey
			if err := r.Scan(&k.coll, &k.tokenID, &k.owner, &k.height); err != nil {
				r.Close()
				return fmt.Errorf("read tokens: %w", err)
			}
			k.owner = nonNil(k.owner)
			w.toks[nftKey(k.coll, k.tokenID)] = tokState{k: k, ok: true}
		}
		r.Close()
		if err := r.Err(); err != nil {
			return fmt.Errorf("read tokens: %w", err)
		}
		r, err = w.tx.Query(ctx, "SELECT collection_addr, token_id, id, tx_count FROM nft_dict"+in, part...)
		if err != nil {
			return fmt.Errorf("read nft dictionary: %w", err)
		}
		for r.Next() {
			var coll []byte
			var tokenID string
			e := &dictEntry{}
			if err := r.Scan(&coll, &tokenID, &e.id, &e.txCount); err != nil {
				r.Close()
				return fmt.Errorf("read nft dictionary: %w", err)
			}
			w.dict[nftKey(coll, tokenID)] = e
		}
		r.Close()
		if err := r.Err(); err != nil {
			return fmt.Errorf("read nft dictionary: %w", err)
		}
	}
	// The rank lists the changes will touch: their collections', their tokens' owners' and
	// the new owners'.
	var keys []rankKey
	for _, nb := range w.blocks {
		for i := range nb.rows.NFTs {
			c := &nb.rows.NFTs[i]
			if c.Collection == nil || c.Kind == NFTCreateCollection || c.Kind == NFTOriginName {
				continue
			}
			keys = append(keys, rankKey{coll: c.Collection, owner: c.Owner})
			if t, ok := w.toks[nftKey(c.Collection, clean(c.TokenID))]; ok && t.ok {
				keys = append(keys, t.k)
			}
		}
	}
	for _, l := range rankLists {
		var scopes [][]any
		for _, k := range keys {
			if l.kind == 1 && k.owner == nil {
				continue
			}
			scopes = append(scopes, l.scopeOf(k))
		}
		if err := w.ranks.preload(ctx, l.rankList, scopes); err != nil {
			return err
		}
	}
	for i := 0; i < len(pairs); i += 2 {
		k := nftKey(pairs[i].([]byte), pairs[i+1].(string))
		if _, ok := w.dict[k]; !ok {
			w.noDict[k] = true
		}
		if _, ok := w.toks[k]; !ok {
			w.toks[k] = tokState{k: rankKey{coll: pairs[i].([]byte), tokenID: pairs[i+1].(string)}, ok: false}
		}
	}
	return nil
}

func (w *nftWriter) createCollection(ctx context.Context, blk *Block, c *NFTChange) error {
	ci, err := w.collection(ctx, c.Collection)
	if err != nil || ci.exists {
		return err
	}
	h, tns, creator := blk.Height, blk.Time.UnixNano(), c.Creator
	if c.CreatorFromFirstTx {
		if fh, ft, fc, ok, err := firstTxOf(ctx, w.tx, c.Collection); err != nil {
			return err
		} else if ok {
			h, tns, creator = fh, ft, fc
		}
	}
	name := clean(c.Name)
	if err := w.tx.Exec(ctx, "INSERT INTO nft_collection (addr, height, time_ns, name, origin_name, name_norm, origin_norm, creator, nft_count) "+
		"VALUES (?, ?, ?, ?, '', ?, '', ?, 0)", c.Collection, h, tns, name, NormalizeCollectionName(name), nonNil(creator)); err != nil {
		return fmt.Errorf("create collection: %w", err)
	}
	ci.exists, ci.creator = true, nonNil(creator)
	return nil
}

// firstTxOf finds the first tx touching addr (its ord-1 tx_accounts row): its height, block
// time and signer. The txs of the batch being written are already in the tables.
func firstTxOf(ctx context.Context, tx sqldb.Tx, addr []byte) (height, timeNs int64, signer []byte, ok bool, err error) {
	var signerID *int64
	err = queryRow(ctx, tx, "SELECT t.height, b.time_ns, t.signer_id FROM account_dict a "+
		"JOIN tx_accounts e ON e.account_id = a.id AND e.ord = 1 JOIN tx t ON t.sequence = e.sequence "+
		"JOIN block b ON b.height = t.height WHERE a.account = ?", []any{addr}, &height, &timeNs, &signerID)
	if errors.Is(err, ErrNotFound) {
		return 0, 0, nil, false, nil
	}
	if err != nil {
		return 0, 0, nil, false, fmt.Errorf("first tx of collection: %w", err)
	}
	if signerID != nil {
		if err := queryRow(ctx, tx, "SELECT account FROM account_dict WHERE id = ?", []any{*signerID}, &signer); err != nil {
			return 0, 0, nil, false, fmt.Errorf("collection creator: %w", err)
		}
	}
	return height, timeNs, signer, true, nil
}

func (w *nftWriter) collection(ctx context.Context, addr []byte) (*collInfo, error) {
	if ci, ok := w.colls[string(addr)]; ok {
		return ci, nil
	}
	ci := &collInfo{}
	err := queryRow(ctx, w.tx, "SELECT creator FROM nft_collection WHERE addr = ?", []any{nonNil(addr)}, &ci.creator)
	switch {
	case err == nil:
		ci.exists = true
	case !errors.Is(err, ErrNotFound):
		return nil, fmt.Errorf("read collection: %w", err)
	}
	w.colls[string(addr)] = ci
	return ci, nil
}

// entry returns the token's dictionary entry, adding it with the next gapless id (as
// resolveDict does, so a replay after a crash numbers tokens the same way).
func (w *nftWriter) entry(ctx context.Context, coll []byte, tokenID string) (*dictEntry, error) {
	tokenID = clean(tokenID)
	k := nftKey(coll, tokenID)
	if e, ok := w.dict[k]; ok {
		return e, nil
	}
	e := &dictEntry{}
	err := ErrNotFound
	if !w.noDict[k] {
		err = queryRow(ctx, w.tx, "SELECT id, tx_count FROM nft_dict WHERE collection_addr = ? AND token_id = ?", []any{coll, tokenID}, &e.id, &e.txCount)
	}
	if errors.Is(err, ErrNotFound) {
		if w.nextID == 0 {
			if err := queryRow(ctx, w.tx, "SELECT COALESCE(MAX(id), 0) FROM nft_dict", nil, &w.nextID); err != nil {
				return nil, fmt.Errorf("next nft id: %w", err)
			}
		}
		w.nextID++
		e.id = w.nextID
		w.added = append(w.added, addedEntry{e: e, coll: coll, tokenID: tokenID})
		err = nil
	}
	if err != nil {
		return nil, fmt.Errorf("nft dictionary: %w", err)
	}
	w.dict[k] = e
	return e, nil
}

func (w *nftWriter) edge(c *NFTChange, e *dictEntry, seq int64) error {
	if !c.Edge || seq == 0 || w.edges[[2]int64{e.id, seq}] {
		return nil
	}
	w.edges[[2]int64{e.id, seq}] = true
	e.txCount++
	e.touched = true
	w.edgeRow = append(w.edgeRow, []any{e.id, seq, e.txCount})
	return nil
}

// addToken counts a token now in the nft table in its rank lists and its owner's collection
// count; delToken uncounts one that left or changed its key.
func (w *nftWriter) addToken(ctx context.Context, k rankKey) error {
	w.own(k, 1)
	return w.ranks.addNFT(ctx, k)
}

func (w *nftWriter) delToken(ctx context.Context, k rankKey) error {
	w.own(k, -1)
	return w.ranks.delNFT(ctx, k)
}

func (w *nftWriter) own(k rankKey, d int64) {
	key := [2]string{string(nonNil(k.owner)), string(k.coll)}
	if _, ok := w.owned[key]; !ok {
		w.ownKeys = append(w.ownKeys, key)
	}
	w.owned[key] += d
}

// flushOwned applies the (owner, collection) count changes: grown counts in multi-row upserts,
// then the rows that reached zero deleted.
func (w *nftWriter) flushOwned(ctx context.Context) error {
	var rows []any
	var gone [][2]string
	n := 0
	for _, k := range w.ownKeys {
		d := w.owned[k]
		if d == 0 {
			continue
		}
		rows = append(rows, []byte(k[0]), []byte(k[1]), d)
		n++
		if d < 0 {
			gone = append(gone, k)
		}
	}
	for start := 0; start < n; start += rankUpsertChunk {
		m := min(n-start, rankUpsertChunk)
		q := "INSERT INTO nft_owner_collection (owner, collection_addr, n) VALUES " + strings.TrimSuffix(strings.Repeat("(?, ?, ?),", m), ",") +
			" ON CONFLICT (owner, collection_addr) DO UPDATE SET n = nft_owner_collection.n + excluded.n"
		if err := w.tx.Exec(ctx, q, rows[3*start:3*(start+m)]...); err != nil {
			return fmt.Errorf("nft_owner_collection: %w", err)
		}
	}
	for _, k := range gone {
		if err := w.tx.Exec(ctx, "DELETE FROM nft_owner_collection WHERE owner = ? AND collection_addr = ? AND n <= 0", []byte(k[0]), []byte(k[1])); err != nil {
			return fmt.Errorf("nft_owner_collection: %w", err)
		}
	}
	return nil
}

// finish writes the edges and counters and recounts the touched collections.
func (w *nftWriter) finish(ctx context.Context) error {
	if err := w.ranks.flush(ctx); err != nil {
		return err
	}
	if err := w.flushOwned(ctx); err != nil {
		return err
	}
	if err := w.tx.InsertRows(ctx, "nft_txs", []string{"nft_id", "sequence", "ord"}, w.edgeRow); err != nil {
		return fmt.Errorf("insert nft_txs: %w", err)
	}
	added := make(map[*dictEntry]bool, len(w.added))
	rows := make([][]any, len(w.added))
	for i, a := range w.added {
		added[a.e] = true
		rows[i] = []any{a.e.id, a.coll, a.tokenID, a.e.txCount}
	}
	if err := w.tx.InsertRows(ctx, "nft_dict", []string{"id", "collection_addr", "token_id", "tx_count"}, rows); err != nil {
		return fmt.Errorf("insert nft_dict: %w", err)
	}
	var ids, counts []int64
	for _, e := range w.dict {
		if e.touched && !added[e] {
			ids, counts = append(ids, e.id), append(counts, e.txCount)
		}
	}
	if err := w.setTxCounts(ctx, ids, counts); err != nil {
		return fmt.Errorf("update nft_dict: %w", err)
	}
	colls := make([]string, 0, len(w.touched))
	for k := range w.touched {
		colls = append(colls, k)
	}
	slices.Sort(colls)
	for _, k := range colls {
		if err := w.tx.Exec(ctx, "UPDATE nft_collection SET nft_count = (SELECT COUNT(*) FROM nft WHERE collection_addr = ?) WHERE addr = ?",
			[]byte(k), []byte(k)); err != nil {
			return fmt.Errorf("count collection tokens: %w", err)
		}
	}
	return nil
}

// setTxCounts sets the tx counts of existing dictionary entries: on PostgreSQL in one
// statement over arrays, on SQLite (no round trips to save) one statement each.
func (w *nftWriter) setTxCounts(ctx context.Context, ids, counts []int64) error {
	if len(ids) == 0 {
		return nil
	}
	if w.tx.b != nil {
		return w.tx.Exec(ctx, "UPDATE nft_dict SET tx_count = v.c FROM unnest(?::bigint[], ?::bigint[]) AS v(id, c) WHERE nft_dict.id = v.id", ids, counts)
	}
	for i, id := range ids {
		if err := w.tx.Exec(ctx, "UPDATE nft_dict SET tx_count = ? WHERE id = ?", counts[i], id); err != nil {
			return err
		}
	}
	return nil
}

// clean removes NUL characters, which PostgreSQL text cannot hold (rollytics strips them too).
func clean(s string) string {
	if strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\x00", "")
}
