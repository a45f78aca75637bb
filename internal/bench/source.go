package bench

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/rollgate/rollgate/internal/chain/replay"
	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
)

// capturedHeight is one non-empty height of a captured chain, as the production source
// decoded it from the replayed capture.
type capturedHeight struct {
	block   *ingest.RawBlock
	results []ingest.TxResult
	rest    []json.RawMessage
	offset  time.Duration // block time minus the time of the first kept height
	txs     []capturedTx
}

// capturedTx locates, once, what SyntheticSource alters in each tx, so serving a height is
// copies and XORs rather than searches.
type capturedTx struct {
	sigOff, sigLen int // the first signature in the tx bytes; sigOff -1 when unsigned
	rest, restOff  int // the REST tx holding that signature and where its base64 starts; rest -1 when none
}

// SyntheticSource is an ingest.Source that repeats the non-empty blocks of a captured chain
// forever: height h serves captured block (h-1) mod len, with its own height, block hash and
// time, and every tx made unique (its first signature, in the tx bytes and in the REST JSON
// alike, is XORed with the height), so the pipeline builds, hashes and stores distinct txs
// exactly as it would real ones. Everything is decoded once up front, so serving a height is a
// few copies and the source is never the bottleneck of what it feeds.
type SyntheticSource struct {
	blocks     []capturedHeight
	validators []ingest.Validator
	base       time.Time     // time of height 1
	cycle      time.Duration // time covered by one repetition
	head       int64
	// root, when set, is the block the synthetic chain continues (a store's top, ContinueFrom):
	// it keeps its stored hash, so the blocks above link to it as a chain's do.
	rootHeight int64
	rootHash   []byte
}

// ContinueFrom makes the synthetic chain grow on top of a stored block: height keeps hash,
// which the next block names as its parent, so ingestion's continuity check accepts it.
func (s *SyntheticSource) ContinueFrom(height int64, hash []byte) {
	s.rootHeight, s.rootHash = height, hash
}

// LoadSyntheticSource replays the capture in dir over loopback HTTP through the production
// source (ingest.DialSource), keeps its non-empty heights and returns a source repeating them.
// head is what LatestHeight reports.
func LoadSyntheticSource(ctx context.Context, dir string, head int64, log *slog.Logger) (*SyntheticSource, error) {
	srv, err := replay.New(dir, replay.WithLogger(log))
	if err != nil {
		return nil, err
	}
	top := srv.CapturedMaxHeight()
	url, stop, err := serveLoopback(srv)
	if err != nil {
		return nil, err
	}
	defer stop()
	cs, err := ingest.DialSource(url, url, nil)
	if err != nil {
		return nil, err
	}
	s := &SyntheticSource{head: head}
	var first, last time.Time
	for h := int64(1); h <= top; h++ {
		blk, err := cs.Block(ctx, h)
		if err != nil {
			return nil, fmt.Errorf("captured block %d: %w", h, err)
		}
		if len(blk.Txs) == 0 {
			continue
		}
		res, err := cs.BlockResults(ctx, h)
		if err != nil {
			return nil, fmt.Errorf("captured block results %d: %w", h, err)
		}
		rest, err := cs.BlockTxs(ctx, h)
		if err != nil {
			return nil, fmt.Errorf("captured REST txs %d: %w", h, err)
		}
		if first.IsZero() {
			first = blk.Time
		}
		last = blk.Time
		c := capturedHeight{block: blk, results: res, rest: rest, offset: blk.Time.Sub(first)}
		for _, tx := range blk.Txs {
			ct := capturedTx{rest: -1}
			ct.sigOff, ct.sigLen = findSig(tx)
			if ct.sigOff >= 0 {
				quoted := []byte(`"` + base64.StdEncoding.EncodeToString(tx[ct.sigOff:ct.sigOff+ct.sigLen]) + `"`)
				for j, r := range rest {
					if i := bytes.Index(r, quoted); i >= 0 {
						ct.rest, ct.restOff = j, i+1
						break
					}
				}
			}
			c.txs = append(c.txs, ct)
		}
		s.blocks = append(s.blocks, c)
	}
	if len(s.blocks) == 0 {
		return nil, fmt.Errorf("%s: no captured block holds a tx", dir)
	}
	if s.validators, err = cs.Validators(ctx); err != nil {
		return nil, fmt.Errorf("captured validators: %w", err)
	}
	// Repetitions follow each other half a second apart, and the first starts a second after
	// the capture's top block, so a store already holding the capture stays in time order.
	s.cycle = last.Sub(first) + 500*time.Millisecond
	topBlk, err := cs.Block(ctx, top)
	if err != nil {
		return nil, fmt.Errorf("captured block %d: %w", top, err)
	}
	s.base = topBlk.Time.Add(time.Second)
	return s, nil
}

// serveLoopback serves h on an ephemeral loopback port.
func serveLoopback(h http.Handler) (url string, stop func(), err error) {
	ln, err := new(net.ListenConfig).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	return "http://" + ln.Addr().String(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	}, nil
}

// serveAPI serves an API on loopback as `rollgate indexer` does (httpapi.Serve: fasthttp for
// an API with a response cache), until stop.
func serveAPI(h http.Handler) (url string, stop func(), err error) {
	ln, err := new(net.ListenConfig).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = httpapi.Serve(ctx, ln, h, nil)
	}()
	return "http://" + ln.Addr().String(), func() { cancel(); <-done }, nil
}

// Len is the number of captured blocks one repetition holds.
func (s *SyntheticSource) Len() int { return len(s.blocks) }

// TxsPerCycle is the number of txs one repetition holds.
func (s *SyntheticSource) TxsPerCycle() int {
	n := 0
	for _, b := range s.blocks {
		n += len(b.block.Txs)
	}
	return n
}

// TxsAt is the number of txs served at height h.
func (s *SyntheticSource) TxsAt(h int64) int { return len(s.at(h).block.Txs) }

func (s *SyntheticSource) at(h int64) *capturedHeight {
	return &s.blocks[int((h-1)%int64(len(s.blocks)))]
}

func (s *SyntheticSource) check(h int64) error {
	if h < 1 {
		return fmt.Errorf("height %d: %w", h, ingest.ErrInvalidData)
	}
	if h > s.head {
		return fmt.Errorf("height %d above %d: %w", h, s.head, ingest.ErrFutureHeight)
	}
	return nil
}

// hash is the block hash of height h.
func (s *SyntheticSource) hash(h int64) []byte {
	if s.rootHash != nil && h == s.rootHeight {
		return s.rootHash
	}
	hash := sha256.Sum256(binary.BigEndian.AppendUint64([]byte("rollgate-bench-block"), uint64(h)))
	return hash[:]
}

// LatestHeight implements ingest.Source.
func (s *SyntheticSource) LatestHeight(context.Context) (int64, error) { return s.head, nil }

// Block implements ingest.Source.
func (s *SyntheticSource) Block(_ context.Context, h int64) (*ingest.RawBlock, error) {
	if err := s.check(h); err != nil {
		return nil, err
	}
	c := s.at(h)
	rep := (h - 1) / int64(len(s.blocks))
	b := *c.block
	b.Height = h
	b.Hash = s.hash(h)
	b.LastHash = nil
	if h > 1 {
		b.LastHash = s.hash(h - 1) // a chain: each block names its parent, as ingestion checks
	}
	b.Time = s.base.Add(time.Duration(rep)*s.cycle + c.offset)
	b.Txs = make([][]byte, len(c.block.Txs))
	for i, tx := range c.block.Txs {
		b.Txs[i] = alterTx(tx, c.txs[i].sigOff, c.txs[i].sigLen, h)
	}
	return &b, nil
}

// BlockResults implements ingest.Source. The results are shared between repetitions: the
// pipeline only reads them.
func (s *SyntheticSource) BlockResults(_ context.Context, h int64) ([]ingest.TxResult, error) {
	if err := s.check(h); err != nil {
		return nil, err
	}
	return s.at(h).results, nil
}

// BlockTxs implements ingest.Source: the REST JSON of each tx carries the same altered
// signature as its bytes, so the builder pairs them as it pairs real ones.
func (s *SyntheticSource) BlockTxs(_ context.Context, h int64) ([]json.RawMessage, error) {
	if err := s.check(h); err != nil {
		return nil, err
	}
	c := s.at(h)
	out := make([]json.RawMessage, len(c.rest))
	copy(out, c.rest)
	for i, tx := range c.block.Txs {
		ct := c.txs[i]
		if ct.sigOff < 0 || ct.rest < 0 {
			continue
		}
		sig := append([]byte(nil), tx[ct.sigOff:ct.sigOff+ct.sigLen]...)
		xorHeight(sig, h)
		r := append(json.RawMessage(nil), out[ct.rest]...)
		base64.StdEncoding.Encode(r[ct.restOff:], sig) // same length as the original's base64
		out[ct.rest] = r
	}
	return out, nil
}

// Validators implements ingest.Source.
func (s *SyntheticSource) Validators(context.Context) ([]ingest.Validator, error) {
	return s.validators, nil
}

// findSig returns where the first signature of a TxRaw encoding lies, or -1 when it has none.
func findSig(tx []byte) (off, n int) {
	for b := tx; len(b) > 0; {
		num, typ, k := protowire.ConsumeTag(b)
		if k < 0 {
			break
		}
		m := protowire.ConsumeFieldValue(num, typ, b[k:])
		if m < 0 {
			break
		}
		if num == 3 && typ == protowire.BytesType {
			if v, j := protowire.ConsumeBytes(b[k:]); j >= 0 && len(v) > 0 {
				return len(tx) - len(b) + k + j - len(v), len(v)
			}
		}
		b = b[k+m:]
	}
	return -1, 0
}

// alterTx returns a copy of a TxRaw encoding made unique to height h: its first signature
// (at off, n bytes) XORed with h, so nothing else moves, or, for a tx without signatures
// (off < 0), h appended as an unknown field, which protobuf decoders keep aside.
func alterTx(tx []byte, off, n int, h int64) []byte {
	out := append(make([]byte, 0, len(tx)+12), tx...)
	if off < 0 {
		out = protowire.AppendTag(out, 1000, protowire.VarintType)
		return protowire.AppendVarint(out, uint64(h))
	}
	xorHeight(out[off:off+n], h)
	return out
}

func xorHeight(sig []byte, h int64) {
	var x [8]byte
	binary.BigEndian.PutUint64(x[:], uint64(h))
	for i := range min(len(sig), len(x)) {
		sig[i] ^= x[i]
	}
}

var _ ingest.Source = (*SyntheticSource)(nil)

// errStoreNotEmpty rejects replaying a capture into a store that already holds blocks.
var errStoreNotEmpty = errors.New("store is not empty")
