package api

import (
	"errors"
	"net/http"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/router/msgs"
)

// ReasonNFTOwnerUnavailable: the source chain could not be asked who owns the NFT.
const ReasonNFTOwnerUnavailable = "NFT_OWNER_UNAVAILABLE"

// nft serves POST /nft (InterwovenKit's Send NFT and initia.js v2's nftTransfer): the amino
// messages that send NFTs within a chain or over ICS-721. InterwovenKit posts it without its
// InterwovenKit-Version header (a fresh ky instance,
// initia-labs/interwovenkit@913e480:packages/interwovenkit-react/src/pages/wallet/txs/send-nft/SendNftFields.tsx),
// and nothing here asks for one.
func (s *server) nft(r *http.Request) (any, error) {
	var req msgs.NFTRequest
	if err := s.decode(r, &req); err != nil {
		return nil, err
	}
	out, err := s.builder(s.current()).NFT(r.Context(), s.cfg.NFTOwners, req)
	var se *msgs.SourceError
	if errors.As(err, &se) {
		return nil, &apierr.Error{Code: apierr.Unavailable, Message: se.Error(), Details: []string{ReasonNFTOwnerUnavailable}, Cause: err}
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}
