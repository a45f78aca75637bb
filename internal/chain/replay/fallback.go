package replay

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// heightRef is one capture of a state query at a height.
type heightRef struct {
	height int64
	entry  int
}

// HeightFallback answers a state query (x-cosmos-block-height set) that the capture holds only
// at other heights with the same query's capture at the highest captured height not above the
// asked one, else at the lowest above it. match picks the queries this is right for: facts
// that do not change once they exist (an ERC-721 contract's name or a minted token's URI, a
// CW721 contract's name or instantiator), which a capture script may have asked at a
// different height than an indexer does. Only successful captures stand in.
func HeightFallback(match func(method, path string) bool) Option {
	return func(s *Server) { s.fallback = match }
}

func (s *Server) addHeight(method, upath string, q url.Values, height, cbody string, idx int) {
	h, err := strconv.ParseInt(height, 10, 64)
	if err != nil {
		return
	}
	k := key(method, upath, q, "", cbody)
	s.heights[k] = append(s.heights[k], heightRef{h, idx})
}

// nearest finds the stand-in capture for a fallback query, or false.
func (s *Server) nearest(method, upath string, q url.Values, height, cbody string) (int, bool) {
	if s.fallback == nil || height == "" || !s.fallback(method, upath) {
		return 0, false
	}
	h, err := strconv.ParseInt(height, 10, 64)
	if err != nil {
		return 0, false
	}
	below, above := -1, -1
	var bh, ah int64
	for _, r := range s.heights[key(method, upath, q, "", cbody)] {
		if s.entries[r.entry].Status != http.StatusOK {
			continue
		}
		switch {
		case r.height <= h && (below < 0 || r.height > bh):
			below, bh = r.entry, r.height
		case r.height > h && (above < 0 || r.height < ah):
			above, ah = r.entry, r.height
		}
	}
	if below >= 0 {
		return below, true
	}
	return above, above >= 0
}

// NFTFacts matches the NFT indexer's lookups whose answers never change once they exist: the
// ERC-721 calls (the indexer's only REST EVM calls are name() and tokenURI()), a Wasm
// contract's info (its instantiator) and its CW721 contract_info query (its name). A token's
// nft_info is left out: update_nft_info changes it.
func NFTFacts(method, path string) bool {
	const wasm = "/cosmwasm/wasm/v1/contract/"
	switch {
	case method == http.MethodPost && path == "/minievm/evm/v1/call":
		return true
	case method == http.MethodGet && strings.HasPrefix(path, wasm):
		addr, smart, ok := strings.Cut(strings.TrimPrefix(path, wasm), "/smart/")
		if !ok {
			return !strings.Contains(addr, "/")
		}
		return smart == "eyJjb250cmFjdF9pbmZvIjp7fX0=" // base64 of {"contract_info":{}}
	}
	return false
}
