package ingest

import "github.com/rollgate/rollgate/internal/chain/txcodec"

// pubKeyAddress derives the account (or consensus) address of a public key given as its Any
// type URL and raw key bytes; txcodec knows every key type the chains use.
func pubKeyAddress(typeURL string, key []byte) ([]byte, error) {
	return txcodec.AddressOf(typeURL, key)
}
