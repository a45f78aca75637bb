package track

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/sqldb"
)

//go:embed migrations
var migrationFiles embed.FS

// schema is the tracker's migrations, recorded in track_schema_version (the table and its
// numbers are those of every tracker store created so far: keep them). The tracker may share
// a database with the indexer: its own table and lock keep the two apart.
var schema = sqldb.Migrations{
	FS:      migrationFiles,
	Dir:     "migrations",
	Table:   "track_schema_version",
	Comment: "tracker migrations applied to this database",
	// Two replicas starting together must not both apply a migration ("rollgate track").
	LockKey: 7237953928125212774,
}

// Store keeps tracked transfers, the bridge events seen on the watched chains and the scan
// cursors. SQLite (one process) and PostgreSQL (several replicas) share one implementation
// over database/sql (sqldb.OpenSQL); the queries are written with ? placeholders and
// rewritten for pgx.
type Store struct {
	sql      *sqldb.SQL
	db       *sql.DB
	rdb      *sql.DB // reads: a separate pool on SQLite (WAL readers wait neither for the writer nor for each other), db on PostgreSQL
	postgres bool
}

// ErrNotFound is returned for an unknown (chain, tx hash).
var ErrNotFound = errors.New("track: not found")

// OpenStore opens the tracker store named by dsn ("sqlite:<path>" or "postgres://…") and applies
// its migrations, retrying transient failures silently (OpenStoreLog logs them).
func OpenStore(ctx context.Context, dsn string) (*Store, error) {
	return OpenStoreLog(ctx, dsn, nil)
}

// OpenStoreLog is OpenStore with a logger. A transient failure at any step (sqldb.IsTransient:
// the server ended the session, is restarting or cannot be reached yet, SQLite busy) is
// weather: the open is tried again on fresh connections with backoff (each logged at warn)
// until it succeeds, fails for good or ctx ends (sqldb.RetryOpen). The migrations run in one
// transaction, so a retry starts from the schema as it was.
func OpenStoreLog(ctx context.Context, dsn string, log *slog.Logger) (*Store, error) {
	var s *Store
	err := sqldb.RetryOpen(ctx, log, "track store: open", func() error {
		// One writer connection: SQLite serialises writers anyway, and the tracker's reads are
		// point lookups. 8 read connections (the whole pool on PostgreSQL).
		db, err := sqldb.OpenSQL(ctx, dsn, sqldb.Options{ReadConns: 8})
		if err != nil {
			return fmt.Errorf("track store: %w", err)
		}
		if err := schema.Apply(ctx, db, db.Dialect); err != nil {
			db.Close()
			return fmt.Errorf("track store: %w", err)
		}
		s = &Store{sql: db, db: db.W, rdb: db.R, postgres: db.Dialect == sqldb.Postgres}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.sql.Close() }

// Ping makes one round trip to the database on a read connection (readiness).
func (s *Store) Ping(ctx context.Context) error {
	var one int
	return s.rdb.QueryRowContext(ctx, "SELECT 1").Scan(&one)
}

// q rewrites ? placeholders to $n for PostgreSQL.
func (s *Store) q(query string) string { return s.sql.Q(query) }

// Event is one stored chain event.
type Event struct {
	ID       int64
	ChainID  string
	Kind     string
	Key      string
	Height   int64
	TxIndex  int
	Pos      int
	MsgIndex int
	TxHash   string
	Time     time.Time
	Attrs    map[string]string
}

// Transfer is one stored tracked transfer.
type Transfer struct {
	ChainID, TxHash string
	Created         time.Time
	State           string
	Terminal        bool
	Doc             json.RawMessage
}

// Register inserts a transfer in STATE_SUBMITTED, leased to owner (the replica that received
// it processes it), unless it is already known; created reports whether this call inserted it.
func (s *Store) Register(ctx context.Context, chainID, hash, owner string, now time.Time, lease time.Duration, doc []byte) (created bool, err error) {
	res, err := s.db.ExecContext(ctx, s.q(`INSERT INTO track_transfer (chain_id, tx_hash, created_ns, updated_ns, state, terminal, doc, owner, lease_until)
		VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?) ON CONFLICT (chain_id, tx_hash) DO NOTHING`),
		chainID, hash, now.UnixNano(), now.UnixNano(), StateSubmitted, string(doc), owner, now.Add(lease).UnixNano())
	if err != nil {
		return false, fmt.Errorf("track register: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// Retrack puts an abandoned transfer back to STATE_SUBMITTED as if registered at now, leased to
// owner; retracked reports whether it was abandoned (ErrNotFound when it is not registered).
func (s *Store) Retrack(ctx context.Context, chainID, hash, owner string, now time.Time, lease time.Duration, doc []byte) (retracked bool, err error) {
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE track_transfer SET created_ns = ?, updated_ns = ?, state = ?, terminal = 0, doc = ?, owner = ?, lease_until = ?
		WHERE chain_id = ? AND tx_hash = ? AND state = ?`),
		now.UnixNano(), now.UnixNano(), StateSubmitted, string(doc), owner, now.Add(lease).UnixNano(), chainID, hash, StateAbandoned)
	if err != nil {
		return false, fmt.Errorf("track retrack: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return true, nil
	}
	if _, err := s.Get(ctx, chainID, hash); err != nil {
		return false, err
	}
	return false, nil
}

// Get returns one transfer.
func (s *Store) Get(ctx context.Context, chainID, hash string) (*Transfer, error) {
	var t Transfer
	var created int64
	var term int
	var doc string
	err := s.rdb.QueryRowContext(ctx, s.q("SELECT chain_id, tx_hash, created_ns, state, terminal, doc FROM track_transfer WHERE chain_id = ? AND tx_hash = ?"),
		chainID, hash).Scan(&t.ChainID, &t.TxHash, &created, &t.State, &term, &doc)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("track get: %w", err)
	}
	t.Created, t.Terminal, t.Doc = time.Unix(0, created), term == 1, json.RawMessage(doc)
	return &t, nil
}

// Claim renews owner's leases on the active transfers it holds, takes up to limit more that
// are free or whose lease expired, and returns every active transfer it holds now (fresh
// reports how many were newly taken). On PostgreSQL the candidate rows are locked with FOR
// UPDATE SKIP LOCKED, so two replicas claiming at once never take the same row.
func (s *Store) Claim(ctx context.Context, owner string, now time.Time, lease time.Duration, limit int) (held []Transfer, fresh int, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("track claim: %w", err)
	}
	defer tx.Rollback()
	until := now.Add(lease).UnixNano()
	if _, err := tx.ExecContext(ctx, s.q("UPDATE track_transfer SET lease_until = ? WHERE owner = ? AND terminal = 0"), until, owner); err != nil {
		return nil, 0, fmt.Errorf("track claim: %w", err)
	}
	sel := "SELECT chain_id, tx_hash FROM track_transfer WHERE terminal = 0 AND owner <> ? AND lease_until <= ? ORDER BY created_ns LIMIT ?"
	if s.postgres {
		sel += " FOR UPDATE SKIP LOCKED"
	}
	rows, err := tx.QueryContext(ctx, s.q(sel), owner, now.UnixNano(), limit)
	if err != nil {
		return nil, 0, fmt.Errorf("track claim: %w", err)
	}
	var take [][2]string
	for rows.Next() {
		var k [2]string
		if err := rows.Scan(&k[0], &k[1]); err != nil {
			rows.Close() //nolint:sqlclosecheck // closed on every path before the next query on this transaction
			return nil, 0, err
		}
		take = append(take, k)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	for _, k := range take {
		if _, err := tx.ExecContext(ctx, s.q("UPDATE track_transfer SET owner = ?, lease_until = ? WHERE chain_id = ? AND tx_hash = ?"),
			owner, until, k[0], k[1]); err != nil {
			return nil, 0, fmt.Errorf("track claim: %w", err)
		}
	}
	rows, err = tx.QueryContext(ctx, s.q("SELECT chain_id, tx_hash, created_ns, state FROM track_transfer WHERE owner = ? AND terminal = 0"), owner)
	if err != nil {
		return nil, 0, fmt.Errorf("track claim: %w", err)
	}
	for rows.Next() {
		var t Transfer
		var created int64
		if err := rows.Scan(&t.ChainID, &t.TxHash, &created, &t.State); err != nil {
			rows.Close() //nolint:sqlclosecheck // closed on every path before the next query on this transaction
			return nil, 0, err
		}
		t.Created = time.Unix(0, created)
		held = append(held, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	return held, len(take), tx.Commit()
}

// Release gives up owner's leases (graceful shutdown), so another replica takes over at once.
func (s *Store) Release(ctx context.Context, owner string) error {
	_, err := s.db.ExecContext(ctx, s.q("UPDATE track_transfer SET owner = '', lease_until = 0 WHERE owner = ?"), owner)
	if err == nil {
		_, err = s.db.ExecContext(ctx, s.q("UPDATE track_cursor SET owner = '', lease_until = 0 WHERE owner = ?"), owner)
	}
	return err
}

// Update is one transfer's new state and status document.
type Update struct {
	ChainID, TxHash, State string
	Terminal               bool
	Doc                    []byte
}

// Apply writes updates in one transaction, each only while owner holds the transfer's lease (a
// replica whose lease expired must not overwrite its successor's work); ok[i] is false where
// the lease was lost.
func (s *Store) Apply(ctx context.Context, owner string, ups []Update, now time.Time) (ok []bool, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("track update: %w", err)
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, s.q("UPDATE track_transfer SET state = ?, terminal = ?, doc = ?, updated_ns = ? WHERE chain_id = ? AND tx_hash = ? AND owner = ?"))
	if err != nil {
		return nil, fmt.Errorf("track update: %w", err)
	}
	defer stmt.Close()
	ok = make([]bool, len(ups))
	for i, u := range ups {
		term := 0
		if u.Terminal {
			term = 1
		}
		res, err := stmt.ExecContext(ctx, u.State, term, string(u.Doc), now.UnixNano(), u.ChainID, u.TxHash, owner)
		if err != nil {
			return nil, fmt.Errorf("track update: %w", err)
		}
		n, _ := res.RowsAffected()
		ok[i] = n == 1
	}
	return ok, tx.Commit()
}

// Update writes one transfer (see Apply).
func (s *Store) Update(ctx context.Context, owner, chainID, hash, state string, terminal bool, doc []byte, now time.Time) (bool, error) {
	ok, err := s.Apply(ctx, owner, []Update{{ChainID: chainID, TxHash: hash, State: state, Terminal: terminal, Doc: doc}}, now)
	if err != nil {
		return false, err
	}
	return ok[0], nil
}

// Pending lists the hashes of a chain's transfers not yet seen on chain.
func (s *Store) Pending(ctx context.Context, chainID string) (map[string]bool, error) {
	rows, err := s.rdb.QueryContext(ctx, s.q("SELECT tx_hash FROM track_transfer WHERE chain_id = ? AND state = ? AND terminal = 0"), chainID, StateSubmitted)
	if err != nil {
		return nil, fmt.Errorf("track pending: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			return nil, err
		}
		out[h] = true
	}
	return out, rows.Err()
}

// Cursor is a chain's scan position.
type Cursor struct {
	Height int64
	Time   time.Time
	// Hash is the block at Height's hash (upper-case hex; "" before the first scanned block,
	// and on a store scanned before hashes were kept): the chain's identity (chaincheck.go).
	Hash string
	// Halted is the mismatch that stopped this chain's scan (nil while it is scanned).
	Halted *ChainMismatch
}

// LeaseCursor takes or renews owner's lease on scanning chainID and returns the cursor; ok is
// false while another replica holds it. A chain never scanned gets a cursor at start (-1: the
// caller picks the first height and saves it).
func (s *Store) LeaseCursor(ctx context.Context, chainID, owner string, now time.Time, lease time.Duration, start int64) (Cursor, bool, error) {
	if _, err := s.db.ExecContext(ctx, s.q("INSERT INTO track_cursor (chain_id, height, time_ns, owner, lease_until) VALUES (?, ?, 0, '', 0) ON CONFLICT (chain_id) DO NOTHING"),
		chainID, start); err != nil {
		return Cursor{}, false, fmt.Errorf("track cursor: %w", err)
	}
	res, err := s.db.ExecContext(ctx, s.q("UPDATE track_cursor SET owner = ?, lease_until = ? WHERE chain_id = ? AND (owner = ? OR lease_until <= ?)"),
		owner, now.Add(lease).UnixNano(), chainID, owner, now.UnixNano())
	if err != nil {
		return Cursor{}, false, fmt.Errorf("track cursor: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return Cursor{}, false, nil
	}
	var c Cursor
	var tns int64
	var halted string
	if err := s.db.QueryRowContext(ctx, s.q("SELECT height, time_ns, block_hash, halted FROM track_cursor WHERE chain_id = ?"), chainID).
		Scan(&c.Height, &tns, &c.Hash, &halted); err != nil {
		return Cursor{}, false, fmt.Errorf("track cursor: %w", err)
	}
	if tns > 0 {
		c.Time = time.Unix(0, tns)
	}
	if halted != "" {
		c.Halted = &ChainMismatch{}
		if err := json.Unmarshal([]byte(halted), c.Halted); err != nil {
			return Cursor{}, false, fmt.Errorf("track cursor of %s: halted: %w", chainID, err)
		}
	}
	return c, true, nil
}

// ChainTime returns the time of the last block scanned on chainID (zero when none).
func (s *Store) ChainTime(ctx context.Context, chainID string) (time.Time, error) {
	var tns int64
	err := s.rdb.QueryRowContext(ctx, s.q("SELECT time_ns FROM track_cursor WHERE chain_id = ?"), chainID).Scan(&tns)
	if errors.Is(err, sql.ErrNoRows) || tns == 0 {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, err
	}
	return time.Unix(0, tns), nil
}

// SaveBlocks stores the events of scanned blocks and advances chainID's cursor in one
// transaction, only while owner holds the scan lease and the chain is not halted, so a crash
// between the two cannot skip or half-write a block.
func (s *Store) SaveBlocks(ctx context.Context, chainID, owner string, evs []Event, to Cursor) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("track save: %w", err)
	}
	defer tx.Rollback()
	if err := s.insertEvents(ctx, tx, evs); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, s.q("UPDATE track_cursor SET height = ?, time_ns = ?, block_hash = ? WHERE chain_id = ? AND owner = ? AND height < ? AND halted = ''"),
		to.Height, to.Time.UnixNano(), to.Hash, chainID, owner, to.Height)
	if err != nil {
		return fmt.Errorf("track save: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("track save: lost the scan lease of %s", chainID)
	}
	return tx.Commit()
}

// InsertEvents stores events outside a scan (a tracked tx looked up by hash); duplicates of
// what a scan stored are ignored.
func (s *Store) InsertEvents(ctx context.Context, evs []Event) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := s.insertEvents(ctx, tx, evs); err != nil {
		return err
	}
	return tx.Commit()
}

// insertRows is how many events one INSERT carries: a scan of a block with thousands of
// packets was one round trip per event (13 s for 3,200 on a loaded PostgreSQL), now one per
// insertRows (10 parameters each, under both databases' limits).
const insertRows = 200

func (s *Store) insertEvents(ctx context.Context, tx *sql.Tx, evs []Event) error {
	for len(evs) > 0 {
		part := evs[:min(len(evs), insertRows)]
		evs = evs[len(part):]
		var q strings.Builder
		q.WriteString("INSERT INTO track_event (chain_id, kind, key, height, tx_index, pos, msg_index, tx_hash, time_ns, attrs) VALUES ")
		args := make([]any, 0, 10*len(part))
		for i, e := range part {
			if i > 0 {
				q.WriteByte(',')
			}
			q.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
			a, _ := json.Marshal(e.Attrs)
			args = append(args, e.ChainID, e.Kind, e.Key, e.Height, e.TxIndex, e.Pos, e.MsgIndex, e.TxHash, e.Time.UnixNano(), string(a))
		}
		q.WriteString(" ON CONFLICT (chain_id, height, tx_index, pos) DO NOTHING")
		if _, err := tx.ExecContext(ctx, s.q(q.String()), args...); err != nil {
			return fmt.Errorf("track events: %w", err)
		}
	}
	return nil
}

const eventCols = "id, chain_id, kind, key, height, tx_index, pos, msg_index, tx_hash, time_ns, attrs"

func scanEvents(rows *sql.Rows) ([]Event, error) {
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		var tns int64
		var attrs string
		if err := rows.Scan(&e.ID, &e.ChainID, &e.Kind, &e.Key, &e.Height, &e.TxIndex, &e.Pos, &e.MsgIndex, &e.TxHash, &tns, &attrs); err != nil {
			return nil, err
		}
		e.Time = time.Unix(0, tns).UTC()
		if err := json.Unmarshal([]byte(attrs), &e.Attrs); err != nil {
			return nil, fmt.Errorf("track event %d: %w", e.ID, err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// Find returns the first event of kind with key on chainID, nil when none was seen.
func (s *Store) Find(ctx context.Context, chainID, kind, key string) (*Event, error) {
	rows, err := s.rdb.QueryContext(ctx, s.q("SELECT "+eventCols+" FROM track_event WHERE chain_id = ? AND kind = ? AND key = ? ORDER BY height, tx_index, pos LIMIT 1"),
		chainID, kind, key)
	if err != nil {
		return nil, fmt.Errorf("track find: %w", err)
	}
	evs, err := scanEvents(rows)
	if err != nil || len(evs) == 0 {
		return nil, err
	}
	return &evs[0], nil
}

// MsgEvents returns the events of kind emitted by one message (msg_index) of the tx at
// (height, txIndex) on chainID, in order: what a packet receipt or a deposit finalization
// started. Relayer txs carry thousands of messages; this reads only the one asked for.
func (s *Store) MsgEvents(ctx context.Context, chainID string, height int64, txIndex, msgIndex int, kind string) ([]Event, error) {
	rows, err := s.rdb.QueryContext(ctx, s.q("SELECT "+eventCols+" FROM track_event WHERE chain_id = ? AND height = ? AND tx_index = ? AND msg_index = ? AND kind = ? ORDER BY pos"),
		chainID, height, txIndex, msgIndex, kind)
	if err != nil {
		return nil, fmt.Errorf("track msg events: %w", err)
	}
	return scanEvents(rows)
}

// TxEvents returns the stored events of one tx in order.
func (s *Store) TxEvents(ctx context.Context, chainID, hash string) ([]Event, error) {
	rows, err := s.rdb.QueryContext(ctx, s.q("SELECT "+eventCols+" FROM track_event WHERE chain_id = ? AND tx_hash = ? ORDER BY height, tx_index, pos"), chainID, hash)
	if err != nil {
		return nil, fmt.Errorf("track tx events: %w", err)
	}
	return scanEvents(rows)
}

// EventKey identifies what a transfer waits for.
type EventKey struct{ ChainID, Kind, Key string }

// Since returns the keys of events stored after id, and the highest id seen.
func (s *Store) Since(ctx context.Context, id int64, limit int) ([]EventKey, int64, error) {
	rows, err := s.rdb.QueryContext(ctx, s.q("SELECT id, chain_id, kind, key FROM track_event WHERE id > ? ORDER BY id LIMIT ?"), id, limit)
	if err != nil {
		return nil, id, fmt.Errorf("track since: %w", err)
	}
	defer rows.Close()
	var out []EventKey
	for rows.Next() {
		var k EventKey
		if err := rows.Scan(&id, &k.ChainID, &k.Kind, &k.Key); err != nil {
			return nil, id, err
		}
		out = append(out, k)
	}
	return out, id, rows.Err()
}

// MaxEventID is the highest event id stored (0 when none).
func (s *Store) MaxEventID(ctx context.Context) (int64, error) {
	var id sql.NullInt64
	err := s.rdb.QueryRowContext(ctx, "SELECT MAX(id) FROM track_event").Scan(&id)
	return id.Int64, err
}

// Counts returns the number of transfers by state (tests, metrics).
func (s *Store) Counts(ctx context.Context) (map[string]int, error) {
	rows, err := s.rdb.QueryContext(ctx, "SELECT state, COUNT(*) FROM track_transfer GROUP BY state")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var st string
		var n int
		if err := rows.Scan(&st, &n); err != nil {
			return nil, err
		}
		out[st] = n
	}
	return out, rows.Err()
}

// inChunk bounds the values of one IN list: SQLite allows 32,766 parameters, PostgreSQL
// 65,535; smaller lists keep each statement's plan and answer modest.
const inChunk = 500

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// FindMany is Find for many keys of one chain and kind at once: the first event of each key
// (keys with none are absent from the map).
func (s *Store) FindMany(ctx context.Context, chainID, kind string, keys []string) (map[string]*Event, error) {
	out := make(map[string]*Event, len(keys))
	for len(keys) > 0 {
		part := keys[:min(len(keys), inChunk)]
		keys = keys[len(part):]
		args := []any{chainID, kind}
		for _, k := range part {
			args = append(args, k)
		}
		rows, err := s.rdb.QueryContext(ctx, s.q("SELECT "+eventCols+" FROM track_event WHERE chain_id = ? AND kind = ? AND key IN ("+placeholders(len(part))+") ORDER BY key, height, tx_index, pos"), args...)
		if err != nil {
			return nil, fmt.Errorf("track find: %w", err)
		}
		evs, err := scanEvents(rows)
		if err != nil {
			return nil, fmt.Errorf("track find: %w", err)
		}
		for i := range evs {
			if _, ok := out[evs[i].Key]; !ok {
				out[evs[i].Key] = &evs[i]
			}
		}
	}
	return out, nil
}

// TxEventsMany is TxEvents for many txs of one chain: each hash's events in order.
func (s *Store) TxEventsMany(ctx context.Context, chainID string, hashes []string) (map[string][]Event, error) {
	out := make(map[string][]Event, len(hashes))
	for len(hashes) > 0 {
		part := hashes[:min(len(hashes), inChunk)]
		hashes = hashes[len(part):]
		args := []any{chainID}
		for _, h := range part {
			args = append(args, h)
		}
		rows, err := s.rdb.QueryContext(ctx, s.q("SELECT "+eventCols+" FROM track_event WHERE chain_id = ? AND tx_hash IN ("+placeholders(len(part))+") ORDER BY tx_hash, height, tx_index, pos"), args...)
		if err != nil {
			return nil, fmt.Errorf("track tx events: %w", err)
		}
		evs, err := scanEvents(rows)
		if err != nil {
			return nil, fmt.Errorf("track tx events: %w", err)
		}
		for _, e := range evs {
			out[e.TxHash] = append(out[e.TxHash], e)
		}
	}
	return out, nil
}

// MsgEventsMany is MsgEvents for many messages of one tx: the events of kind each message
// emitted, in order.
func (s *Store) MsgEventsMany(ctx context.Context, chainID string, height int64, txIndex int, kind string, msgIndexes []int) (map[int][]Event, error) {
	out := make(map[int][]Event, len(msgIndexes))
	for len(msgIndexes) > 0 {
		part := msgIndexes[:min(len(msgIndexes), inChunk)]
		msgIndexes = msgIndexes[len(part):]
		args := []any{chainID, height, txIndex, kind}
		for _, i := range part {
			args = append(args, i)
		}
		rows, err := s.rdb.QueryContext(ctx, s.q("SELECT "+eventCols+" FROM track_event WHERE chain_id = ? AND height = ? AND tx_index = ? AND kind = ? AND msg_index IN ("+placeholders(len(part))+") ORDER BY msg_index, pos"), args...)
		if err != nil {
			return nil, fmt.Errorf("track msg events: %w", err)
		}
		evs, err := scanEvents(rows)
		if err != nil {
			return nil, fmt.Errorf("track msg events: %w", err)
		}
		for _, e := range evs {
			out[e.MsgIndex] = append(out[e.MsgIndex], e)
		}
	}
	return out, nil
}

// ChainTimes returns the time of the last block scanned on every chain with one.
func (s *Store) ChainTimes(ctx context.Context) (map[string]time.Time, error) {
	rows, err := s.rdb.QueryContext(ctx, "SELECT chain_id, time_ns FROM track_cursor WHERE time_ns > 0")
	if err != nil {
		return nil, fmt.Errorf("track chain times: %w", err)
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var id string
		var tns int64
		if err := rows.Scan(&id, &tns); err != nil {
			return nil, err
		}
		out[id] = time.Unix(0, tns)
	}
	return out, rows.Err()
}
