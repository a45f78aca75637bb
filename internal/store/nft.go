package store

import (
	"context"
	"strings"
	"time"
	"unicode"
)

// NFTChangeKind says what an NFTChange does.
type NFTChangeKind int

// The NFT changes ingestion records, applied by the writer in block order.
const (
	// NFTCreateCollection adds a collection unless it is already known.
	NFTCreateCollection NFTChangeKind = iota + 1
	// NFTMint adds a token (or replaces a burned one's row with the same id).
	NFTMint
	// NFTTransfer sets a token's owner.
	NFTTransfer
	// NFTBurn deletes a token.
	NFTBurn
	// NFTSetURI sets a token's URI.
	NFTSetURI
	// NFTOriginName sets origin_name on the collections named Name (ICS-721 receive).
	NFTOriginName
)

// NFTChange is one NFT event of a block. A token is named by (Collection, TokenID), or, for
// Move transfers, URI changes and burns, by its ObjectAddr alone (Move events name the object).
// Changes to a collection the store does not hold are ignored, as are changes to unknown tokens.
type NFTChange struct {
	Kind NFTChangeKind
	// TxIndex is the position in the block of the tx that made the change, for the token's
	// tx history; -1 for none.
	TxIndex int
	// Edge links the tx to the token in nft_txs (EVM and Wasm; Move history goes through the
	// NFT object's tx_accounts).
	Edge bool

	Collection []byte
	TokenID    string
	ObjectAddr []byte // Move NFT object
	// Owner is the new owner (mint, transfer). A Move mint leaves it nil: the token starts with
	// the collection's creator, as in rollytics, until the following transfer event.
	Owner []byte
	URI   string
	// MintIfMissing (EVM, a store started past genesis): a transfer of a token the store does
	// not hold adds it with Owner and URI, as a mint at this height would; it was minted
	// before the store's first height.
	MintIfMissing bool

	// Collection creation and origin names.
	Name       string
	OriginName string
	Creator    []byte
	// CreatorFromFirstTx (EVM) takes creator, height and time of the collection from the first
	// tx touching the contract address, which ERC-721 logs do not carry.
	CreatorFromFirstTx bool
}

// Collection is one NFT collection as the API serves it.
type Collection struct {
	Addr       []byte
	Name       string
	OriginName string
	Creator    []byte // empty when unknown
	NFTCount   int64
	Height     int64
	Time       time.Time
}

// Token is one live NFT as the API serves it.
type Token struct {
	Collection           []byte
	CollectionName       string
	CollectionOriginName string
	TokenID              string
	ObjectAddr           []byte // empty outside Move
	Owner                []byte
	URI                  string
	Height               int64
	Time                 time.Time
}

// CollectionFilter narrows a collection list; the zero value lists every collection.
type CollectionFilter struct {
	// Owner keeps the collections in which that account holds at least one token.
	Owner []byte
	// Name, when NameSet, keeps the collections whose normalised name or origin name contains
	// NormalizeCollectionName(Name); a name that normalises to "" matches every collection.
	Name    string
	NameSet bool
}

// TokenFilter narrows a token list.
type TokenFilter struct {
	Owner      []byte // nil: any owner
	Collection []byte // nil: any collection
	TokenID    string // exact; "" with TokenIDSet false: any
	TokenIDSet bool
	// OrderByHeight orders by (height, token_id, collection); otherwise (token_id, height,
	// collection), token ids compared as text ("10" < "9"), as in rollytics.
	OrderByHeight bool
}

// TokenCursor is a keyset position in a token list: the page starts strictly after it.
// Rollytics' composite key carries height and token_id; Collection (ours) makes it unique when one
// account holds equal token ids of several collections, and is empty in rollytics' keys.
type TokenCursor struct {
	Height     int64
	TokenID    string
	Collection []byte
}

// CollectionPage is one page of collections; Total is exact, or 0 when not counted.
type CollectionPage struct {
	Collections []Collection
	Total       int64
}

// TokenPage is one page of tokens; Total is exact, or 0 when not counted.
type TokenPage struct {
	Tokens []Token
	Total  int64
}

// NFTReader is the API side of the NFT tables.
type NFTReader interface {
	// Collection returns one collection or ErrNotFound.
	Collection(ctx context.Context, addr []byte) (Collection, error)
	// Collections returns a page of collections ordered by (height, addr). A height cursor
	// continues after every collection of that height.
	Collections(ctx context.Context, f CollectionFilter, p Page) (CollectionPage, error)
	// Tokens returns a page of live tokens; after, when non-nil, replaces p.Offset and p.After.
	Tokens(ctx context.Context, f TokenFilter, p Page, after *TokenCursor) (TokenPage, error)
	// NFTTxs returns the tx history of a live token (empty when the token is unknown or
	// burned), ordered by sequence like Txs.
	NFTTxs(ctx context.Context, collection []byte, tokenID string, p Page) (TxPage, error)
	// NotNFTContracts lists the contracts recorded as not being NFT collections, so ingestion
	// does not ask the chain about them again after a restart.
	NotNFTContracts(ctx context.Context) ([][]byte, error)
}

// NormalizeCollectionName is rollytics' by_name normalisation: every character that is not
// a letter, a mark or a digit is removed and the rest lowercased.
func NormalizeCollectionName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsNumber(r) {
			b.WriteString(strings.ToLower(string(r)))
		}
	}
	return b.String()
}
