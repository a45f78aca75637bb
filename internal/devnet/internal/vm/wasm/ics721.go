package wasm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"

	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// ICS721Token is one token an ICS-721 packet brings: its id and URI.
type ICS721Token struct {
	ID  string
	URI string
}

// ics721Code is the CW721 code the nft-transfer module instantiates for received classes; its
// checksum is that of these bytes (the devnet runs no real wasm).
var ics721Code = []byte("rollgate devnet cw721 code for ICS-721 voucher collections")

const keyICS721Code = "ics721/code"

func keyICS721Class(class string) string { return "ics721/class/" + class }

// ICS721Contract returns the CW721 contract holding a received voucher class (kv is the
// module's store).
func ICS721Contract(kv sim.KVReader, class string) ([]byte, bool) {
	b, ok := kv.Get(keyICS721Class(class))
	return b, ok
}

// ReceiveICS721 mints tokens of a class received over ICS-721 as CW721 tokens: the first
// receive instantiates a CW721 contract from creator (the nft-transfer module account, minter
// and creator of the collection) named after the class's prefixed path, storing the module's
// CW721 code first if the chain has none yet; each token is then minted to receiver by the
// module with the contract's own `mint` execution and wasm events.
func (m *Module) ReceiveICS721(env sim.Env, creator []byte, class, classURI string, tokens []ICS721Token, receiver []byte) error {
	kvs := env.Store(StoreName)
	minter := bech(env, creator)
	contract, ok := ICS721Contract(kvs, class)
	if !ok {
		var err error
		if contract, err = m.instantiateICS721(env, kvs, minter, class, classURI); err != nil {
			return err
		}
	}
	owner := bech(env, receiver)
	for _, t := range tokens {
		mint := map[string]any{"token_id": t.ID, "owner": owner}
		if t.URI != "" {
			mint["token_uri"] = t.URI
		}
		msg, err := json.Marshal(map[string]any{"mint": mint})
		if err != nil {
			return err
		}
		if err := m.call(env, contract, kindCW721, minter, msg); err != nil {
			return err
		}
	}
	return nil
}

func (m *Module) instantiateICS721(env sim.Env, kvs sim.KV, minter, class, classURI string) ([]byte, error) {
	var codeID uint64
	if b, ok := kvs.Get(keyICS721Code); ok {
		codeID, _ = strconv.ParseUint(string(b), 10, 64)
	} else {
		sum := sha256.Sum256(ics721Code)
		codeID = nextSeq(kvs, keyLastCode)
		if err := putJSON(kvs, keyCode(codeID), codeRec{Creator: minter, Checksum: hex.EncodeToString(sum[:]), Kind: kindCW721}); err != nil {
			return nil, err
		}
		kvs.Set(keyICS721Code, []byte(strconv.FormatUint(codeID, 10)))
		env.Emit(ev("store_code", "code_checksum", hex.EncodeToString(sum[:]), "code_id", strconv.FormatUint(codeID, 10)))
	}
	inst := nextSeq(kvs, keyLastInstance)
	contract := ContractAddress(codeID, inst)
	caddr := bech(env, contract)
	ext := json.RawMessage("null")
	if classURI != "" {
		b, err := json.Marshal(map[string]any{"description": nil, "image": classURI, "external_link": nil,
			"explicit_content": nil, "start_trading_time": nil, "royalty_info": nil})
		if err != nil {
			return nil, err
		}
		if ext, err = normalizeCollectionExt(b); err != nil {
			return nil, err
		}
	}
	// cw721's instantiate message, in its field order.
	init, err := json.Marshal(struct {
		Name      string          `json:"name"`
		Symbol    string          `json:"symbol"`
		Extension json.RawMessage `json:"collection_info_extension"`
		Minter    string          `json:"minter"`
		Creator   string          `json:"creator"`
	}{class, class, ext, minter, minter})
	if err != nil {
		return nil, err
	}
	col := collectionRec{Name: class, Symbol: class, Extension: ext, Minter: minter, Creator: minter,
		UpdatedAt: strconv.FormatInt(env.Time().UnixNano(), 10)}
	if err := putJSON(kvs, keyCollection(contract), col); err != nil {
		return nil, err
	}
	ti, err := sim.As[sim.TxIndexer](env)
	if err != nil {
		return nil, err
	}
	txIndex := ti.TxIndex()
	rec := contractRec{CodeID: codeID, Creator: minter, Label: "ics721 " + class, Height: env.Height(), TxIndex: txIndex,
		InitMsg: compactJSON(init), Kind: kindCW721}
	if err := putJSON(kvs, keyContract(contract), rec); err != nil {
		return nil, err
	}
	kvs.Set(keyICS721Class(class), contract)
	env.Emit(ev("instantiate", "_contract_address", caddr, "code_id", strconv.FormatUint(codeID, 10)))
	env.Emit(ev(EventType, "_contract_address", caddr, "minter", minter, "creator", minter))
	return contract, nil
}
