package testutil

import (
	"sort"
	"strings"
	"testing"
)

// CanonicalDump rewrites a store dump (store.DB.Dump) so that two stores holding the same
// data compare equal even when their dictionary ids differ: PostgreSQL sequences are not
// transactional, so a transaction cut off by a crash or a failover leaves a gap, and the
// retried run numbers the same accounts differently. Nothing is lost or duplicated by that,
// and no API answer shows those ids. Dictionary ids (account_dict, msg_type_dict) are replaced
// by the values they stand for everywhere they appear (the dictionaries' own id column and the
// columns account_id, signer_id, msg_type_id), and the rows of every table so rewritten are
// sorted.
func CanonicalDump(t testing.TB, dump []byte) []byte {
	t.Helper()
	type section struct {
		header string
		cols   []string
		rows   [][]string
	}
	var secs []*section
	for _, line := range strings.Split(strings.TrimRight(string(dump), "\n"), "\n") {
		if strings.HasPrefix(line, "## ") {
			sec := &section{header: line}
			if i, j := strings.Index(line, "("), strings.LastIndex(line, ")"); i > 0 && j > i {
				sec.cols = strings.Split(line[i+1:j], ", ")
			}
			secs = append(secs, sec)
			continue
		}
		if len(secs) == 0 {
			t.Fatalf("dump line before any table header: %q", line)
		}
		secs[len(secs)-1].rows = append(secs[len(secs)-1].rows, strings.Split(line, "\t"))
	}
	dicts := map[string]map[string]string{} // dictionary table → id → value
	dictOf := map[string]string{"account_id": "account_dict", "signer_id": "account_dict", "msg_type_id": "msg_type_dict"}
	for _, sec := range secs {
		name := strings.Fields(sec.header)[1]
		if name != "account_dict" && name != "msg_type_dict" {
			continue
		}
		m := map[string]string{}
		for _, r := range sec.rows {
			m[r[0]] = r[1]
			r[0] = r[1]
		}
		dicts[name] = m
	}
	var out strings.Builder
	for _, sec := range secs {
		name := strings.Fields(sec.header)[1]
		rewritten := name == "account_dict" || name == "msg_type_dict"
		for c, col := range sec.cols {
			d, ok := dictOf[col]
			if !ok {
				continue
			}
			rewritten = true
			for _, r := range sec.rows {
				if v, ok := dicts[d][r[c]]; ok {
					r[c] = v
				} else if r[c] != `\N` {
					t.Fatalf("%s.%s = %s is not in %s", name, col, r[c], d)
				}
			}
		}
		lines := make([]string, len(sec.rows))
		for i, r := range sec.rows {
			lines[i] = strings.Join(r, "\t")
		}
		if rewritten {
			sort.Strings(lines)
		}
		out.WriteString(sec.header + "\n")
		for _, l := range lines {
			out.WriteString(l + "\n")
		}
	}
	return []byte(out.String())
}
