package denom

import "testing"

// Vectors from the Initia registry quoted in docs/chain-events.md §2.4, §5.2.
func TestIBC(t *testing.T) {
	cases := []struct{ path, base, want string }{
		{"transfer/channel-3", "uusdc", "ibc/6490A7EAB61059BFC1CDDEB05917DD70BDF3A611654162A1A47DB930D40D8AF4"},
		{"transfer/channel-0/transfer/channel-3", "uusdc", "ibc/AA4E7DF065DC4D4B29B8662A919295F525B19251FB2618C41C0DED3BD1128FEE"},
		{"", "uinit", "uinit"},
	}
	for _, c := range cases {
		if got := IBC(c.path, c.base); got != c.want {
			t.Errorf("IBC(%q,%q) = %s, want %s", c.path, c.base, got, c.want)
		}
		tr, err := ParseTrace(Trace{Path: c.path, Base: c.base}.FullPath())
		if err != nil || tr.IBCDenom() != c.want {
			t.Errorf("trace round trip %q: %+v %v", c.path, tr, err)
		}
	}
}

func TestL2(t *testing.T) {
	cases := []struct {
		id   uint64
		l1   string
		want string
	}{
		{16, "uinit", "l2/23c8396041db74441f4268d0c7e0533177dc3e028a47a8e584318f2d0c46fbe9"},
		{12, "uinit", "l2/2b2d36f666e98b9eecf70d6ec24b882b79f2c8e2af73f54f97b8b670dbb87605"},
	}
	for _, c := range cases {
		if got := L2(c.id, c.l1); got != c.want {
			t.Errorf("L2(%d,%q) = %s, want %s", c.id, c.l1, got, c.want)
		}
	}
}

func TestParseTrace(t *testing.T) {
	cases := []struct {
		in         string
		path, base string
		err        bool
	}{
		{"uinit", "", "uinit", false},
		{"transfer/channel-0/uinit", "transfer/channel-0", "uinit", false},
		{"transfer/channel-0/transfer/channel-12/uusdc", "transfer/channel-0/transfer/channel-12", "uusdc", false},
		{"transfer/channel-0/l2/abcd", "transfer/channel-0", "l2/abcd", false},
		{"transfer/channel-1/factory/init1x/wtt", "transfer/channel-1", "factory/init1x/wtt", false},
		{"factory/init1x/wtt", "", "factory/init1x/wtt", false},
		{"transfer/chan-0/uinit", "", "transfer/chan-0/uinit", false},
		{"transfer/channel-0", "", "transfer/channel-0", false},
		{"", "", "", true},
	}
	for _, c := range cases {
		tr, err := ParseTrace(c.in)
		if c.err {
			if err == nil {
				t.Errorf("ParseTrace(%q) no error", c.in)
			}
			continue
		}
		if err != nil || tr.Path != c.path || tr.Base != c.base {
			t.Errorf("ParseTrace(%q) = %+v, %v; want %q %q", c.in, tr, err, c.path, c.base)
		}
		if tr.FullPath() != c.in {
			t.Errorf("FullPath(%+v) = %q", tr, tr.FullPath())
		}
	}
}

func TestReceiveDenom(t *testing.T) {
	cases := []struct {
		name                  string
		denom, sp, sc, dp, dc string
		wantPath, wantBase    string
		unwind                bool
	}{
		{"native out", "uinit", "transfer", "channel-0", "transfer", "channel-7", "transfer/channel-7", "uinit", false},
		{"voucher home", "transfer/channel-0/uinit", "transfer", "channel-0", "transfer", "channel-7", "", "uinit", true},
		{"two hop home one", "transfer/channel-0/transfer/channel-3/uusdc", "transfer", "channel-0", "transfer", "channel-9", "transfer/channel-3", "uusdc", true},
		{"forward further", "transfer/channel-5/uusdc", "transfer", "channel-0", "transfer", "channel-9", "transfer/channel-9/transfer/channel-5", "uusdc", false},
	}
	for _, c := range cases {
		tr, unwind, err := ReceiveDenom(c.denom, c.sp, c.sc, c.dp, c.dc)
		if err != nil || tr.Path != c.wantPath || tr.Base != c.wantBase || unwind != c.unwind {
			t.Errorf("%s: %+v unwind=%v err=%v", c.name, tr, unwind, err)
		}
	}
}

func TestTraceHelpers(t *testing.T) {
	tr := Trace{Base: "uinit"}.Prepend("transfer", "channel-1").Prepend("transfer", "channel-2")
	if tr.Path != "transfer/channel-2/transfer/channel-1" {
		t.Fatalf("Prepend: %q", tr.Path)
	}
	hops := tr.Hops()
	if len(hops) != 2 || hops[0].String() != "transfer/channel-2" || hops[1].Channel != "channel-1" {
		t.Fatalf("Hops: %+v", hops)
	}
	if tr.HasPrefix("transfer", "channel-1") || !tr.HasPrefix("transfer", "channel-2") {
		t.Fatal("HasPrefix")
	}
	if tr.HasPrefix("transfer", "channel-") {
		t.Fatal("HasPrefix matched inside a segment")
	}
	u, ok := tr.Unwind("transfer", "channel-2")
	if !ok || u.Path != "transfer/channel-1" {
		t.Fatalf("Unwind: %+v %v", u, ok)
	}
	u, ok = u.Unwind("transfer", "channel-1")
	if !ok || !u.IsNative() || u.IBCDenom() != "uinit" {
		t.Fatalf("Unwind to native: %+v", u)
	}
	if !IsIBC(tr.IBCDenom()) || IsIBC("ibc/xyz") || IsIBC("uinit") {
		t.Fatal("IsIBC")
	}
}
