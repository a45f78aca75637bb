package store

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"path/filepath"
	"testing"
)

// The three write transactions on SQLite, one height per operation: what the write path costs
// beside the data it writes (begin, the state row's lock, commit).

func benchDB(b *testing.B) *DB {
	b.Helper()
	db, err := Open(context.Background(), "sqlite:"+filepath.Join(b.TempDir(), "bench.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

func BenchmarkWriteBlocks(b *testing.B) {
	db := benchDB(b)
	m := buildModel(b.N)
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		if err := db.WriteBlocks(ctx, m.bundles[i:i+1]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteRichList(b *testing.B) {
	db := benchDB(b)
	ctx := context.Background()
	blocks := make([]RichListBlock, b.N)
	for i := range blocks {
		cs := make([]BalanceChange, 8)
		for j := range cs {
			cs[j] = BalanceChange{"umin", acct((i + j) % 50), big.NewInt(int64(j + 1))}
		}
		blocks[i] = RichListBlock{Height: int64(i + 1), Changes: RichListChanges{Changes: cs}}
	}
	blocks[0].Changes.Start = true // the follower's first block starts the list; the rest continue it
	b.ResetTimer()
	for i := range b.N {
		if err := db.WriteRichList(ctx, blocks[i:i+1]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteInternalTxs(b *testing.B) {
	db := benchDB(b)
	ctx := context.Background()
	blocks := make([]InternalBlock, b.N)
	for i := range blocks {
		txs := make([]InternalTx, 8)
		for j := range txs {
			txs[j] = InternalTx{Hash: []byte(fmt.Sprintf("h-%d", i)), From: acct(j), To: acct(j + 20),
				JSON: json.RawMessage(fmt.Sprintf(`{"n":%d}`, j))}
		}
		blocks[i] = InternalBlock{Height: int64(i + 1), Txs: txs}
	}
	b.ResetTimer()
	for i := range b.N {
		if err := db.WriteInternalTxs(ctx, blocks[i:i+1]); err != nil {
			b.Fatal(err)
		}
	}
}
