package api

import "testing"

// The search route on the benchmark store, without the response cache: a tx hash (two hash
// lookups), a height (one block read and the collection-name range), and a name that matches
// nothing (the prefix ranges alone). Compare with BenchmarkTxByHash and BenchmarkTxsList.

func BenchmarkSearchTxHash(b *testing.B) {
	h, total := benchSetup(b)
	benchGet(b, h, "/indexer/search/v1?q="+benchTxHash(b, total))
}

func BenchmarkSearchHeight(b *testing.B) {
	h, _ := benchSetup(b)
	benchGet(b, h, "/indexer/search/v1?q=100")
}

func BenchmarkSearchName(b *testing.B) {
	h, _ := benchSetup(b)
	benchGet(b, h, "/indexer/search/v1?q=zzqqnothing")
}
