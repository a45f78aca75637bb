package store

import "testing"

// TestRowsOf: an extension finds its own rows among a bundle's and drops them without
// touching another extension's rows or a copy of the bundle (the pipeline keeps the batch it
// retries).
func TestRowsOf(t *testing.T) {
	rl := &RichListChanges{Sets: make([]BalanceSet, 2)}
	nft := &NFTRows{NotNFT: [][]byte{{1}}}
	b := BlockBundle{Extensions: []ExtensionRows{nft, rl, TransferRows{{Kind: TransferSend}}}}
	if got, ok := RowsOf[*RichListChanges](&b); !ok || got != rl {
		t.Fatalf("RowsOf rich list: %v %v", got, ok)
	}
	if _, ok := RowsOf[*NFTRows](&BlockBundle{}); ok {
		t.Fatal("RowsOf found rows in an empty bundle")
	}
	kept := b
	DropRows[*RichListChanges](&b)
	if _, ok := RowsOf[*RichListChanges](&b); ok || len(b.Extensions) != 2 {
		t.Fatalf("after DropRows: %d rows", len(b.Extensions))
	}
	if got, _ := RowsOf[*NFTRows](&b); got != nft {
		t.Fatal("DropRows dropped the NFT rows")
	}
	if got, ok := RowsOf[*RichListChanges](&kept); !ok || got != rl || len(kept.Extensions) != 3 {
		t.Fatal("DropRows changed a copy of the bundle")
	}
}
