package ingest

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"google.golang.org/protobuf/proto"

	txv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/v1beta1"
	"github.com/rollgate/rollgate/internal/jsonx"
	"github.com/rollgate/rollgate/internal/store"
)

// Builder turns one height's upstream answers into the store's BlockBundle: the block row,
// and for each tx the API JSON object exactly as rollytics serves it, its message types, its
// signer and the accounts it touched.
type Builder struct {
	chainID   string
	extractor *AccountExtractor
	// signers maps a signer key (type URL and key bytes) to its address. Deriving an
	// eth_secp256k1 address decompresses the key (a modular square root) and hashes it: 28 %
	// of the ingest CPU before this cache, while a chain's txs come from a much smaller set of
	// repeat signers.
	signers *lru.Cache[string, signerAddr]
}

// signerCacheSize bounds the signer key cache (about 100 bytes an entry).
const signerCacheSize = 16384

// signerAddr is a cached derivation: the address, or nil for a key type without one.
type signerAddr struct{ addr []byte }

// NewBuilder returns a builder. chainID overrides the header's chain_id when non-empty
// (rollytics stores its CHAIN_ID setting); prefix is the bech32 account prefix.
func NewBuilder(chainID, prefix string) *Builder {
	signers, err := lru.New[string, signerAddr](signerCacheSize)
	if err != nil {
		// Only a non-positive size fails.
		panic(err)
	}
	return &Builder{chainID: chainID, extractor: NewAccountExtractor(prefix), signers: signers}
}

// signerAddress is pubKeyAddress through the cache. The returned slice is shared between the
// txs of one signer; nothing downstream modifies it.
func (b *Builder) signerAddress(typeURL string, key []byte) []byte {
	k := typeURL + "\x00" + string(key)
	if v, ok := b.signers.Get(k); ok {
		return v.addr
	}
	// An unknown key type (multisig, …) leaves the signer unknown rather than stopping
	// ingestion.
	addr, err := pubKeyAddress(typeURL, key)
	if err != nil {
		addr = nil
	}
	b.signers.Add(k, signerAddr{addr})
	return addr
}

// restTx is the part of the REST tx JSON the builder reads; the JSON itself is stored verbatim.
type restTx struct {
	Body struct {
		Messages []struct {
			Type string `json:"@type"`
		} `json:"messages"`
	} `json:"body"`
	AuthInfo struct {
		SignerInfos []struct {
			PublicKey *struct {
				Type string `json:"@type"`
				Key  []byte `json:"key"`
			} `json:"public_key"`
		} `json:"signer_infos"`
		Fee *struct {
			Amount []struct {
				Denom  string `json:"denom"`
				Amount string `json:"amount"`
			} `json:"amount"`
		} `json:"fee"`
	} `json:"auth_info"`
	Signatures []string `json:"signatures"`
}

// apiTx is rollytics' Tx object; field order is rollytics'.
type apiTx struct {
	TxHash    string          `json:"txhash"`
	Height    string          `json:"height"`
	Codespace string          `json:"codespace"`
	Code      uint32          `json:"code"`
	Data      string          `json:"data"`
	RawLog    string          `json:"raw_log"`
	Logs      json.RawMessage `json:"logs"`
	Info      string          `json:"info"`
	GasWanted string          `json:"gas_wanted"`
	GasUsed   string          `json:"gas_used"`
	Tx        json.RawMessage `json:"tx"`
	Timestamp string          `json:"timestamp"`
	Events    []Event         `json:"events"`
}

// Build assembles the bundle of one height. BlockTimeMs is left 0: it depends on the previous
// block, which only the ordered writer knows.
func (b *Builder) Build(blk *RawBlock, results []TxResult, rest []json.RawMessage, proposer *store.Proposer) (store.BlockBundle, error) {
	if len(results) != len(blk.Txs) {
		return store.BlockBundle{}, fmt.Errorf("height %d: %w: %d txs but %d results", blk.Height, ErrInvalidData, len(blk.Txs), len(results))
	}
	chainID := b.chainID
	if chainID == "" {
		chainID = blk.ChainID
	}
	bundle := store.BlockBundle{Block: store.Block{
		ChainID:  chainID,
		Height:   blk.Height,
		Hash:     blk.Hash,
		LastHash: blk.LastHash,
		Time:     blk.Time.UTC(),
		Proposer: proposer,
		TxCount:  len(blk.Txs),
	}}

	parsed := make([]restTx, len(rest))
	bySigs := make(map[string]int, len(rest))
	for i, raw := range rest {
		if err := jsonx.Unmarshal(raw, &parsed[i]); err != nil {
			return store.BlockBundle{}, fmt.Errorf("height %d: %w: rest tx %d: %w", blk.Height, ErrInvalidData, i, err)
		}
		if k := strings.Join(parsed[i].Signatures, ","); k != "" {
			bySigs[k] = i
		}
	}

	fees := coinSum{}
	timestamp := blk.Time.UTC().Format(time.RFC3339Nano)
	for i, txBytes := range blk.Txs {
		hash := sha256.Sum256(txBytes)
		var raw txv1beta1.TxRaw
		if err := proto.Unmarshal(txBytes, &raw); err != nil {
			return store.BlockBundle{}, fmt.Errorf("height %d tx %X: %w: %w", blk.Height, hash, ErrInvalidData, err)
		}
		sigs := make([]string, len(raw.Signatures))
		for j, s := range raw.Signatures {
			sigs[j] = base64.StdEncoding.EncodeToString(s)
		}
		// The REST list is in block order on every node seen, but rollytics matches by the
		// signatures, which survive any reordering; position is only the fallback for a
		// tx without signatures.
		ri, ok := bySigs[strings.Join(sigs, ",")]
		if !ok {
			if len(sigs) != 0 || len(rest) != len(blk.Txs) || len(parsed[i].Signatures) != 0 {
				return store.BlockBundle{}, fmt.Errorf("height %d tx %X: %w: no REST tx with its signatures", blk.Height, hash, ErrInvalidData)
			}
			ri = i
		}
		rt := &parsed[ri]
		res := results[i]

		var msgTypes []string
		for _, m := range rt.Body.Messages {
			msgTypes = append(msgTypes, strings.TrimPrefix(m.Type, "/"))
		}
		if rt.AuthInfo.Fee != nil {
			for _, c := range rt.AuthInfo.Fee.Amount {
				if err := fees.add(c.Denom, c.Amount); err != nil {
					return store.BlockBundle{}, fmt.Errorf("height %d tx %X: %w: fee: %w", blk.Height, hash, ErrInvalidData, err)
				}
			}
		}

		var signer []byte
		if len(rt.AuthInfo.SignerInfos) > 0 && rt.AuthInfo.SignerInfos[0].PublicKey != nil {
			pk := rt.AuthInfo.SignerInfos[0].PublicKey
			signer = b.signerAddress(pk.Type, pk.Key)
		}

		events := sanitizeEvents(res.Events)
		var accounts []store.TxAccount
		signerSeen := false
		for _, a := range b.extractor.Extract(events) {
			isSigner := signer != nil && bytes.Equal(a, signer)
			signerSeen = signerSeen || isSigner
			accounts = append(accounts, store.TxAccount{Addr: a, Signer: isSigner})
		}
		if signer != nil && !signerSeen {
			accounts = append(accounts, store.TxAccount{Addr: signer, Signer: true})
		}

		txJSON, err := appendAPITx(make([]byte, 0, 512+len(rest[ri])+eventsSize(events)), &apiTx{
			TxHash:    strings.ToUpper(hex.EncodeToString(hash[:])),
			Height:    strconv.FormatInt(blk.Height, 10),
			Codespace: res.Codespace,
			Code:      res.Code,
			Data:      strings.ToUpper(hex.EncodeToString(res.Data)),
			RawLog:    res.Log,
			Logs:      abciLogs(res.Log),
			Info:      res.Info,
			GasWanted: strconv.FormatInt(res.GasWanted, 10),
			GasUsed:   strconv.FormatInt(res.GasUsed, 10),
			Tx:        sanitizeJSON(rest[ri]),
			Timestamp: timestamp,
			Events:    events,
		})
		if err != nil {
			return store.BlockBundle{}, fmt.Errorf("height %d tx %X: %w: %w", blk.Height, hash, ErrInvalidData, err)
		}

		bundle.Block.GasUsed += res.GasUsed
		bundle.Block.GasWanted += res.GasWanted
		bundle.Txs = append(bundle.Txs, store.Tx{
			Hash:     hash[:],
			Height:   blk.Height,
			Index:    i,
			Signer:   signer,
			MsgTypes: msgTypes,
			Accounts: accounts,
			JSON:     txJSON,
		})
	}
	bundle.Block.TotalFee = fees.json()
	return bundle, nil
}

// abciLogs is rollytics' sdk.ParseABCILogs(raw_log) or []: SDK 0.50 chains leave raw_log empty
// or an error string, so this is practically always [].
func abciLogs(rawLog string) json.RawMessage {
	var logs []json.RawMessage
	if strings.HasPrefix(rawLog, "[") && jsonx.Unmarshal([]byte(rawLog), &logs) == nil && logs != nil {
		return json.RawMessage(rawLog)
	}
	return json.RawMessage("[]")
}

// sanitizeEvents replaces NUL characters, which rollytics' PostgreSQL jsonb cannot hold and
// which it therefore serves as U+FFFD, and drops nothing else.
func sanitizeEvents(events []Event) []Event {
	if events == nil {
		return []Event{}
	}
	out := events
	copied := false
	for i, ev := range events {
		for j, a := range ev.Attributes {
			if strings.ContainsRune(a.Key, 0) || strings.ContainsRune(a.Value, 0) {
				if !copied {
					out = append([]Event(nil), events...)
					copied = true
				}
				attrs := append([]EventAttribute(nil), out[i].Attributes...)
				attrs[j].Key = strings.ReplaceAll(a.Key, "\x00", "\uFFFD")
				attrs[j].Value = strings.ReplaceAll(a.Value, "\x00", "\uFFFD")
				out[i].Attributes = attrs
			}
		}
	}
	return out
}

// sanitizeJSON does the same for raw JSON text: a `\u0000` escape becomes `\ufffd`, unless its
// backslash is itself escaped.
func sanitizeJSON(raw json.RawMessage) json.RawMessage {
	if !bytes.Contains(raw, []byte(`\u0000`)) {
		return raw
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\\' && i+1 < len(raw) {
			if bytes.HasPrefix(raw[i:], []byte(`\u0000`)) {
				out = append(out, `\ufffd`...)
				i += 5
				continue
			}
			out = append(out, raw[i], raw[i+1])
			i++
			continue
		}
		out = append(out, raw[i])
	}
	return out
}

// coinSum adds coins the way sdk.Coins.Add does: per denom, zero sums dropped, sorted by denom.
type coinSum map[string]*big.Int

func (c coinSum) add(denom, amount string) error {
	v, ok := new(big.Int).SetString(amount, 10)
	if !ok || v.Sign() < 0 {
		return fmt.Errorf("amount %q of %q", amount, denom)
	}
	if cur, ok := c[denom]; ok {
		cur.Add(cur, v)
	} else {
		c[denom] = v
	}
	return nil
}

// json renders the sum as rollytics serves block.total_fee. Rollytics' answers show `[]` for
// every block without fees, including blocks without txs (the captured rollytics answers,
// which are the ground truth, never contain `null`), so `[]` it is.
func (c coinSum) json() json.RawMessage {
	type coin struct {
		Denom  string `json:"denom"`
		Amount string `json:"amount"`
	}
	denoms := make([]string, 0, len(c))
	for d, v := range c {
		if v.Sign() != 0 {
			denoms = append(denoms, d)
		}
	}
	sort.Strings(denoms)
	coins := make([]coin, 0, len(denoms))
	for _, d := range denoms {
		coins = append(coins, coin{Denom: d, Amount: c[d].String()})
	}
	b, _ := json.Marshal(coins)
	return b
}
