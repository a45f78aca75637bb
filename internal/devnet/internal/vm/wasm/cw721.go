package wasm

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// nftInfoType is the storage type name cw721 0.19 reports when a token is missing.
const nftInfoType = "cw721::state::NftInfo<core::option::Option<cw721::state::NftExtension>>"

// queryVariants are the query variants cw721-metadata-onchain 0.19 lists in its parse error.
const queryVariants = "`owner_of`, `approval`, `approvals`, `operator`, `all_operators`, `num_tokens`, `contract_info`, `get_config`, `get_collection_info_and_extension`, `get_all_info`, `get_collection_extension_attributes`, `ownership`, `minter`, `get_minter_ownership`, `get_creator_ownership`, `nft_info`, `get_nft_by_extension`, `all_nft_info`, `tokens`, `all_tokens`, `extension`, `get_collection_extension`, `get_withdraw_address`"

const queryMsgType = "cw721::msg::Cw721QueryMsg<core::option::Option<cw721::state::NftExtension>, core::option::Option<cw721::state::CollectionExtension<cw721::state::RoyaltyInfo>>, cosmwasm_std::results::empty::Empty>"

const executeMsgType = "cw721::msg::Cw721ExecuteMsg<core::option::Option<cw721::state::NftExtensionMsg>, core::option::Option<cw721::state::CollectionExtensionMsg<cw721::state::RoyaltyInfoResponse>>, cosmwasm_std::results::empty::Empty>"

// collectionExtension is cw721's CollectionExtension in its JSON field order.
type collectionExtension struct {
	Description      json.RawMessage `json:"description"`
	Image            json.RawMessage `json:"image"`
	ExternalLink     json.RawMessage `json:"external_link"`
	ExplicitContent  json.RawMessage `json:"explicit_content"`
	StartTradingTime json.RawMessage `json:"start_trading_time"`
	RoyaltyInfo      json.RawMessage `json:"royalty_info"`
}

type royaltyInfo struct {
	PaymentAddress json.RawMessage `json:"payment_address"`
	Share          json.RawMessage `json:"share"`
}

// nftExtension is cw721's NftExtension (on-chain metadata) in its JSON field order.
type nftExtension struct {
	Image           json.RawMessage `json:"image"`
	ImageData       json.RawMessage `json:"image_data"`
	ExternalURL     json.RawMessage `json:"external_url"`
	Description     json.RawMessage `json:"description"`
	Name            json.RawMessage `json:"name"`
	Attributes      []trait         `json:"attributes"`
	BackgroundColor json.RawMessage `json:"background_color"`
	AnimationURL    json.RawMessage `json:"animation_url"`
	YoutubeURL      json.RawMessage `json:"youtube_url"`
}

type trait struct {
	DisplayType json.RawMessage `json:"display_type"`
	TraitType   string          `json:"trait_type"`
	Value       string          `json:"value"`
}

func null(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage("null")
	}
	return r
}

func isNull(r json.RawMessage) bool { s := strings.TrimSpace(string(r)); return s == "" || s == "null" }

// normalizeCollectionExt renders the instantiate's collection_info_extension as the contract
// stores it (every field present, cw721's order); null stays null.
func normalizeCollectionExt(raw json.RawMessage) (json.RawMessage, error) {
	if isNull(raw) {
		return json.RawMessage("null"), nil
	}
	var e collectionExtension
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, err
	}
	e.Description, e.Image, e.ExternalLink = null(e.Description), null(e.Image), null(e.ExternalLink)
	e.ExplicitContent, e.StartTradingTime = null(e.ExplicitContent), null(e.StartTradingTime)
	if isNull(e.RoyaltyInfo) {
		e.RoyaltyInfo = json.RawMessage("null")
	} else {
		var r royaltyInfo
		if err := json.Unmarshal(e.RoyaltyInfo, &r); err != nil {
			return nil, err
		}
		r.PaymentAddress, r.Share = null(r.PaymentAddress), null(r.Share)
		e.RoyaltyInfo = marshalNoEscape(r)
	}
	return marshalNoEscape(e), nil
}

func normalizeNftExt(raw json.RawMessage) (json.RawMessage, error) {
	if isNull(raw) {
		return json.RawMessage("null"), nil
	}
	var e nftExtension
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, err
	}
	e.Image, e.ImageData, e.ExternalURL, e.Description = null(e.Image), null(e.ImageData), null(e.ExternalURL), null(e.Description)
	e.Name, e.BackgroundColor, e.AnimationURL, e.YoutubeURL = null(e.Name), null(e.BackgroundColor), null(e.AnimationURL), null(e.YoutubeURL)
	for i := range e.Attributes {
		e.Attributes[i].DisplayType = null(e.Attributes[i].DisplayType)
	}
	return marshalNoEscape(e), nil
}

func cw721Instantiate(env sim.Env, msg []byte, sender string) (collectionRec, error) {
	var in struct {
		Name                    string          `json:"name"`
		Symbol                  string          `json:"symbol"`
		CollectionInfoExtension json.RawMessage `json:"collection_info_extension"`
		Minter                  *string         `json:"minter"`
		Creator                 *string         `json:"creator"`
		WithdrawAddress         *string         `json:"withdraw_address"`
	}
	if err := json.Unmarshal(msg, &in); err != nil {
		return collectionRec{}, &sim.CodedError{Codespace: Codespace, Code: 4,
			Log: fmt.Sprintf("Error parsing into type cw721::msg::Cw721InstantiateMsg: %v: instantiate wasm contract failed", err)}
	}
	ext, err := normalizeCollectionExt(in.CollectionInfoExtension)
	if err != nil {
		return collectionRec{}, &sim.CodedError{Codespace: Codespace, Code: 4, Log: fmt.Sprintf("Error parsing into type cw721::msg::Cw721InstantiateMsg: %v: instantiate wasm contract failed", err)}
	}
	col := collectionRec{Name: in.Name, Symbol: in.Symbol, Extension: ext, Minter: sender, Creator: sender,
		UpdatedAt: strconv.FormatInt(env.Time().UnixNano(), 10)}
	for _, p := range []struct {
		v   *string
		dst *string
	}{{in.Minter, &col.Minter}, {in.Creator, &col.Creator}} {
		if p.v == nil {
			continue
		}
		if _, err := address.FromBech32(env.AddressPrefix(), *p.v); err != nil {
			return collectionRec{}, &sim.CodedError{Codespace: Codespace, Code: 4,
				Log: fmt.Sprintf("Generic error: addr_validate errored: %v: instantiate wasm contract failed", err)}
		}
		*p.dst = *p.v
	}
	return col, nil
}

// cw721 is one execution against a CW721 contract.
type cw721 struct {
	env    sim.Env
	kv     sim.KV
	addr   []byte
	caddr  string
	sender string
	col    collectionRec
}

type subMsg struct {
	contract []byte
	msg      []byte
}

// tokenKeyMessage renders the storage key of a token the way cw-storage-plus prints it.
func tokenKeyMessage(tokenID string) string {
	key := append([]byte{0, 6}, "tokens"...)
	key = append(key, tokenID...)
	parts := make([]string, len(key))
	for i, b := range key {
		parts[i] = fmt.Sprintf("%02X", b)
	}
	return fmt.Sprintf("type: %s; key: [%s] not found", nftInfoType, strings.Join(parts, ", "))
}

func (c *cw721) token(id string) (tokenRec, error) {
	var t tokenRec
	if !getJSON(c.kv, keyToken(c.addr, id), &t) {
		return t, contractErr(tokenKeyMessage(id))
	}
	return t, nil
}

func (c *cw721) expired(raw json.RawMessage) bool {
	var e struct {
		AtHeight *uint64 `json:"at_height"`
		AtTime   *string `json:"at_time"`
	}
	if isNull(raw) || json.Unmarshal(raw, &e) != nil {
		return false
	}
	if e.AtHeight != nil {
		return uint64(c.env.Height()) >= *e.AtHeight
	}
	if e.AtTime != nil {
		ns, err := strconv.ParseInt(*e.AtTime, 10, 64)
		return err == nil && c.env.Time().UnixNano() >= ns
	}
	return false
}

func (c *cw721) isOperator(owner, who string) bool {
	var exp json.RawMessage
	return getJSON(c.kv, keyOperator(c.addr, owner, who), &exp) && !c.expired(exp)
}

// canSend: owner, an unexpired approved spender, or an operator of the owner.
func (c *cw721) canSend(t tokenRec) bool {
	if t.Owner == c.sender || c.isOperator(t.Owner, c.sender) {
		return true
	}
	for _, a := range t.Approvals {
		if a.Spender == c.sender && !c.expired(a.Expires) {
			return true
		}
	}
	return false
}

var errNotOwner = contractErr("Caller is not the contract's current owner")

func (c *cw721) validAddr(s string) error {
	if _, err := address.FromBech32(c.env.AddressPrefix(), s); err != nil {
		return contractErr(fmt.Sprintf("Generic error: addr_validate errored: %v", err))
	}
	return nil
}

func (c *cw721) execute(msg []byte) (attrs []string, sub *subMsg, err error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(msg, &top); err != nil || len(top) != 1 {
		return nil, nil, contractErr(fmt.Sprintf("Error parsing into type %s: expected value", executeMsgType))
	}
	var variant string
	var body json.RawMessage
	for k, v := range top {
		variant, body = k, v
	}
	var in struct {
		TokenID   string          `json:"token_id"`
		Owner     string          `json:"owner"`
		TokenURI  *string         `json:"token_uri"`
		Extension json.RawMessage `json:"extension"`
		Recipient string          `json:"recipient"`
		Contract  string          `json:"contract"`
		Msg       []byte          `json:"msg"`
		Spender   string          `json:"spender"`
		Operator  string          `json:"operator"`
		Expires   json.RawMessage `json:"expires"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, nil, contractErr(fmt.Sprintf("Error parsing into type %s: %v", executeMsgType, err))
	}
	switch variant {
	case "mint":
		if c.sender != c.col.Minter {
			return nil, nil, contractErr("Caller is not minter")
		}
		if err := c.validAddr(in.Owner); err != nil {
			return nil, nil, err
		}
		if _, ok := c.kv.Get(keyToken(c.addr, in.TokenID)); ok {
			return nil, nil, contractErr("token_id already claimed")
		}
		ext, err := normalizeNftExt(in.Extension)
		if err != nil {
			return nil, nil, contractErr(fmt.Sprintf("Error parsing into type %s: %v", executeMsgType, err))
		}
		if err := putJSON(c.kv, keyToken(c.addr, in.TokenID), tokenRec{Owner: in.Owner, TokenURI: in.TokenURI, Extension: ext}); err != nil {
			return nil, nil, err
		}
		c.col.NumTokens++
		c.col.Minted++
		attrs = []string{"action", "mint", "minter", c.sender, "owner", in.Owner, "token_id", in.TokenID}
		if in.TokenURI != nil {
			attrs = append(attrs, "token_uri", *in.TokenURI)
		}
		c.env.ConsumeGas(12_000)
	case "transfer_nft", "send_nft":
		t, err := c.token(in.TokenID)
		if err != nil {
			return nil, nil, err
		}
		if !c.canSend(t) {
			return nil, nil, errNotOwner
		}
		to := in.Recipient
		if variant == "send_nft" {
			to = in.Contract
		}
		if err := c.validAddr(to); err != nil {
			return nil, nil, err
		}
		t.Owner, t.Approvals = to, nil
		if err := putJSON(c.kv, keyToken(c.addr, in.TokenID), t); err != nil {
			return nil, nil, err
		}
		attrs = []string{"action", variant, "sender", c.sender, "recipient", to, "token_id", in.TokenID}
		if variant == "send_nft" {
			cb, _ := address.FromBech32(c.env.AddressPrefix(), to)
			recv, _ := json.Marshal(map[string]any{"receive_nft": map[string]any{"sender": c.sender, "token_id": in.TokenID, "msg": in.Msg}})
			sub = &subMsg{contract: cb, msg: recv}
			c.env.ConsumeGas(40_000)
		}
		c.env.ConsumeGas(8_000)
	case "approve", "revoke":
		t, err := c.token(in.TokenID)
		if err != nil {
			return nil, nil, err
		}
		if t.Owner != c.sender && !c.isOperator(t.Owner, c.sender) {
			return nil, nil, errNotOwner
		}
		if err := c.validAddr(in.Spender); err != nil {
			return nil, nil, err
		}
		kept := t.Approvals[:0]
		for _, a := range t.Approvals {
			if a.Spender != in.Spender {
				kept = append(kept, a)
			}
		}
		t.Approvals = kept
		if variant == "approve" {
			if c.expired(in.Expires) {
				return nil, nil, contractErr("Cannot set approval that is already expired")
			}
			exp := in.Expires
			if isNull(exp) {
				exp = json.RawMessage(`{"never":{}}`)
			}
			t.Approvals = append(t.Approvals, approval{Spender: in.Spender, Expires: exp})
		}
		if err := putJSON(c.kv, keyToken(c.addr, in.TokenID), t); err != nil {
			return nil, nil, err
		}
		attrs = []string{"action", variant, "sender", c.sender, "spender", in.Spender, "token_id", in.TokenID}
		c.env.ConsumeGas(14_000)
	case "approve_all", "revoke_all":
		if err := c.validAddr(in.Operator); err != nil {
			return nil, nil, err
		}
		if variant == "approve_all" {
			if c.expired(in.Expires) {
				return nil, nil, contractErr("Cannot set approval that is already expired")
			}
			exp := in.Expires
			if isNull(exp) {
				exp = json.RawMessage(`{"never":{}}`)
			}
			c.kv.Set(keyOperator(c.addr, c.sender, in.Operator), exp)
		} else {
			c.kv.Delete(keyOperator(c.addr, c.sender, in.Operator))
		}
		attrs = []string{"action", variant, "sender", c.sender, "operator", in.Operator}
	case "burn":
		t, err := c.token(in.TokenID)
		if err != nil {
			return nil, nil, err
		}
		if !c.canSend(t) {
			return nil, nil, errNotOwner
		}
		c.kv.Delete(keyToken(c.addr, in.TokenID))
		if c.col.NumTokens > 0 {
			c.col.NumTokens--
		}
		attrs = []string{"action", "burn", "sender", c.sender, "token_id", in.TokenID}
	case "update_nft_info":
		if c.sender != c.col.Creator {
			return nil, nil, contractErr("Caller is not creator")
		}
		t, err := c.token(in.TokenID)
		if err != nil {
			return nil, nil, err
		}
		t.TokenURI = in.TokenURI
		if !isNull(in.Extension) {
			if t.Extension, err = normalizeNftExt(in.Extension); err != nil {
				return nil, nil, contractErr(err.Error())
			}
		}
		if err := putJSON(c.kv, keyToken(c.addr, in.TokenID), t); err != nil {
			return nil, nil, err
		}
		attrs = []string{"action", "update_nft_info", "token_id", in.TokenID}
		c.env.ConsumeGas(9_000)
	default:
		return nil, nil, contractErr(fmt.Sprintf("Error parsing into type %s: unknown variant `%s`", executeMsgType, variant))
	}
	if err := putJSON(c.kv, keyCollection(c.addr), c.col); err != nil {
		return nil, nil, err
	}
	return attrs, sub, nil
}

// ---- queries ----

// queryError is a failed smart query: HTTP 500 with gRPC code 2 and this message.
type queryError struct{ msg string }

func (e *queryError) Error() string { return e.msg }

func qerr(msg string) error { return &queryError{msg: msg + ": query wasm contract failed"} }

// smartQuery answers a cw721 0.19 query with the contract's JSON (without the {"data":…}).
func smartQuery(kvs sim.KVReader, contract []byte, col collectionRec, msg []byte, height int64) (any, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(msg, &top); err != nil || len(top) != 1 {
		return nil, qerr(fmt.Sprintf("Error parsing into type %s: expected value", queryMsgType))
	}
	var variant string
	var body json.RawMessage
	for k, v := range top {
		variant, body = k, v
	}
	var in struct {
		TokenID    string  `json:"token_id"`
		Owner      string  `json:"owner"`
		StartAfter *string `json:"start_after"`
		Limit      *int    `json:"limit"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, qerr(fmt.Sprintf("Error parsing into type %s: %v", queryMsgType, err))
	}
	token := func() (tokenRec, error) {
		var t tokenRec
		if !getJSON(kvs, keyToken(contract, in.TokenID), &t) {
			return t, qerr(tokenKeyMessage(in.TokenID))
		}
		return t, nil
	}
	type info struct {
		TokenURI  *string         `json:"token_uri"`
		Extension json.RawMessage `json:"extension"`
	}
	type access struct {
		Owner     string     `json:"owner"`
		Approvals []approval `json:"approvals"`
	}
	accessOf := func(t tokenRec) access {
		a := access{Owner: t.Owner, Approvals: []approval{}}
		for _, ap := range t.Approvals {
			var e struct {
				AtHeight *int64 `json:"at_height"`
			}
			if json.Unmarshal(ap.Expires, &e) == nil && e.AtHeight != nil && height >= *e.AtHeight {
				continue
			}
			a.Approvals = append(a.Approvals, ap)
		}
		return a
	}
	switch variant {
	case "contract_info", "get_collection_info_and_extension":
		return struct {
			Name      string          `json:"name"`
			Symbol    string          `json:"symbol"`
			Extension json.RawMessage `json:"extension"`
			UpdatedAt string          `json:"updated_at"`
		}{col.Name, col.Symbol, null(col.Extension), col.UpdatedAt}, nil
	case "num_tokens":
		return map[string]uint64{"count": col.NumTokens}, nil
	case "minter":
		return map[string]string{"minter": col.Minter}, nil
	case "ownership", "get_minter_ownership", "get_creator_ownership":
		owner := col.Minter
		if variant == "get_creator_ownership" {
			owner = col.Creator
		}
		return orderedValue([]kv{{"owner", owner}, {"pending_owner", nil}, {"pending_expiry", nil}}), nil
	case "nft_info":
		t, err := token()
		if err != nil {
			return nil, err
		}
		return info{t.TokenURI, null(t.Extension)}, nil
	case "owner_of":
		t, err := token()
		if err != nil {
			return nil, err
		}
		return accessOf(t), nil
	case "all_nft_info":
		t, err := token()
		if err != nil {
			return nil, err
		}
		return struct {
			Access access `json:"access"`
			Info   info   `json:"info"`
		}{accessOf(t), info{t.TokenURI, null(t.Extension)}}, nil
	case "tokens", "all_tokens":
		limit := 10
		if in.Limit != nil {
			limit = min(max(*in.Limit, 0), 1000)
		}
		prefix := keyToken(contract, "")
		var ids []string
		kvs.Iterate(prefix, func(k string, b []byte) bool {
			id := strings.TrimPrefix(k, prefix)
			if in.StartAfter != nil && id <= *in.StartAfter {
				return true
			}
			if variant == "tokens" {
				var t tokenRec
				if json.Unmarshal(b, &t) != nil || t.Owner != in.Owner {
					return true
				}
			}
			ids = append(ids, id)
			return true
		})
		sort.Strings(ids)
		if len(ids) > limit {
			ids = ids[:limit]
		}
		if ids == nil {
			ids = []string{}
		}
		return map[string][]string{"tokens": ids}, nil
	}
	return nil, qerr(fmt.Sprintf("Error parsing into type %s: unknown variant `%s`, expected one of %s", queryMsgType, variant, queryVariants))
}
