package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
)

// Members of the registry files that registryfile's types hold (the devnet writes them, round
// trips keep them) but that this loader does not use. Before the formats were shared the
// loader never decoded them, so a malformed one must not cost the entry: a chain.json with
// `"slip44": "118"` still loads. Paths are dotted as json.UnmarshalTypeError.Field gives
// them, arrays passed through.
var (
	unreadChain = []string{"$schema", "images", "key_algos", "slip44",
		"apis.grpc", "apis.indexer", "apis.json-rpc-websocket",
		"apis.rpc.provider", "apis.rest.provider", "apis.json-rpc.provider", "metadata.assetlist"}
	unreadAsset = []string{"images", "oracle_symbol", "token_type"}
	unreadPair  = []string{"$schema", "chain_1.client_id", "chain_1.connection_id", "chain_2.client_id",
		"chain_2.connection_id", "channels.ordering", "channels.tags"}
)

// decodeTolerant decodes raw as a T. A type error in an unread member is taken as if the
// member were absent: the document is decoded again without the unread members, and only an
// error in a member the loader uses is returned.
func decodeTolerant[T any](raw []byte, unread []string) (T, error) {
	var v T
	err := json.Unmarshal(raw, &v)
	var te *json.UnmarshalTypeError
	if err == nil || !errors.As(err, &te) || !isUnread(te.Field, unread) {
		return v, err
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber() // numbers keep their text
	var tree any
	if d.Decode(&tree) != nil {
		return v, err
	}
	for _, p := range unread {
		strip(tree, strings.Split(p, "."))
	}
	b, merr := json.Marshal(tree)
	if merr != nil {
		return v, err
	}
	var again T
	return again, json.Unmarshal(b, &again)
}

func isUnread(field string, unread []string) bool {
	for _, p := range unread {
		if field == p || strings.HasPrefix(field, p+".") {
			return true
		}
	}
	return false
}

// strip deletes the member at path from every object it reaches, through arrays.
func strip(v any, path []string) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			strip(e, path)
		}
	case map[string]any:
		if len(path) == 1 {
			delete(x, path[0])
			return
		}
		if next, ok := x[path[0]]; ok {
			strip(next, path[1:])
		}
	}
}
