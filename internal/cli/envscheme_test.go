package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/vmkind"

	"github.com/rollgate/rollgate/internal/price"
)

// parseIndexer reads `rollgate indexer`'s flags as runIndexer does, without starting it.
func parseIndexer(vars map[string]string, args []string) (indexerConfig, string, error) {
	return parseIndexerFlags(vars, args, false)
}

// parseIndexerFlags is parseIndexer, with --config registered too when config is set (as
// parseServer registers it).
func parseIndexerFlags(vars map[string]string, args []string, config bool) (indexerConfig, string, error) {
	env, _, errb := testEnv(vars)
	var c indexerConfig
	var lg logging
	f := newFlags(env, "indexer")
	c.register(f)
	lg.register(f)
	if config {
		f.config()
	}
	err := f.parse(args)
	if err == nil {
		err = c.validate(env)
	}
	return c, errb.String(), err
}

// chainsFile is a JSON chains file with no chains, enough for --chains to parse.
func chainsFile(t *testing.T) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "chains.json")
	if err := os.WriteFile(file, []byte(`{"chains":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestIndexerModeDefaults runs both modes of `rollgate indexer` on their defaults: the
// settings whose defaults differ by mode (indexerModes) and a few they share.
func TestIndexerModeDefaults(t *testing.T) {
	file := chainsFile(t)
	type want struct {
		concurrency, maxConns, cacheMB, poolConns, budget int
		db, prefix                                        string
		reload, lease, priceRefresh                       time.Duration
		prices                                            bool
	}
	shared := func(t *testing.T, c indexerConfig) {
		t.Helper()
		if c.Mode != "all" || !c.Ingest.RichList || c.Ingest.ReadyMaxLag != 20 || c.Ingest.ReadyStaleAfter != 30*time.Second ||
			c.MaxReplicaLag != 30*time.Second || c.Streams.MaxSubscribers != 10000 || c.Listen != ":8080" || c.CORS.Origins != "*" {
			t.Errorf("shared defaults: %+v", c)
		}
	}
	for _, tc := range []struct {
		name string
		vars map[string]string
		args []string
		want want
	}{
		{"one chain", map[string]string{"CHAIN_ID": "c-1", "VM_TYPE": "move", "RPC_URL": "http://x", "REST_URL": "http://x"}, nil,
			want{concurrency: 8, maxConns: 32, cacheMB: 64, db: "sqlite:" + filepath.Join(".rollgate", "c-1.db"), prefix: "init"}},
		{"many chains", nil, []string{"--chains", file},
			want{concurrency: 4, maxConns: 16, cacheMB: 8, poolConns: 4, budget: 64, db: "sqlite:.rollgate/chains",
				reload: 30 * time.Second, lease: 15 * time.Second, prices: true, priceRefresh: price.DefaultRefresh}},
		{"many chains from the environment", map[string]string{"ROLLGATE_CHAINS": file}, nil,
			want{concurrency: 4, maxConns: 16, cacheMB: 8, poolConns: 4, budget: 64, db: "sqlite:.rollgate/chains",
				reload: 30 * time.Second, lease: 15 * time.Second, prices: true, priceRefresh: price.DefaultRefresh}},
		// A value given wins over the mode's default, zero included.
		{"many chains, given", map[string]string{"ROLLGATE_CONCURRENCY": "2"}, []string{"--chains", file, "--response-cache-mb", "0", "--db", "sqlite:/tmp/x"},
			want{concurrency: 2, maxConns: 16, cacheMB: 0, poolConns: 4, budget: 64, db: "sqlite:/tmp/x",
				reload: 30 * time.Second, lease: 15 * time.Second, prices: true, priceRefresh: price.DefaultRefresh}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _, err := parseIndexer(tc.vars, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			got := want{c.Ingest.Concurrency, c.MaxConns, c.CacheMB, c.PoolConns, c.Budget, c.DB, c.Ingest.AccountPrefix,
				c.Reload, c.Lease, c.Prices.Refresh, c.Prices.Enabled}
			if got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
			shared(t, c)
		})
	}
}

// sampleValue is a value the flag accepts.
func sampleValue(t *testing.T, fl *flag.Flag) string {
	t.Helper()
	for _, v := range []string{"1", "1s", "true", "x"} {
		if fl.Value.Set(v) == nil { // the probe's own flag set: nothing else reads it
			return v
		}
	}
	t.Fatalf("no sample value for --%s", fl.Name)
	return ""
}

// TestIndexerModeOnlyFlags: each flag one mode does not take is a usage error there, given
// as a flag or in the environment, and the error says which mode takes it.
func TestIndexerModeOnlyFlags(t *testing.T) {
	file := chainsFile(t)
	base := [][]string{
		{"--vm-type", "move", "--chain-id", "c", "--mode", "api"},
		{"--chains", file},
	}
	env, _, _ := testEnv(nil)
	probe := newFlags(env, "indexer")
	var pc indexerConfig
	pc.register(probe)
	n := 0
	for _, r := range indexerModes.rows {
		for m, d := range r.defaults {
			if d != notTaken {
				continue
			}
			n++
			fl := probe.Lookup(r.flag)
			if fl == nil {
				t.Fatalf("indexerModes names --%s, which is not a flag", r.flag)
			}
			v := sampleValue(t, fl)
			takers := indexerModes.takers(&r)
			t.Run(r.flag+" in "+indexerModes.modes[m], func(t *testing.T) {
				_, _, err := parseIndexer(nil, append(append([]string{}, base[m]...), "--"+r.flag+"="+v))
				if err == nil || !strings.Contains(err.Error(), "--"+r.flag) || !strings.Contains(err.Error(), "is for "+takers+" only") ||
					!errorsAsUsage(err) {
					t.Errorf("flag: err = %v", err)
				}
				if name := probe.envOf[r.flag]; name != "" {
					_, _, err := parseIndexer(map[string]string{name: v}, base[m])
					if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "only") {
						t.Errorf("environment %s: err = %v", name, err)
					}
				}
			})
		}
	}
	if n < 20 {
		t.Fatalf("%d mode-only flags, want the table's (at least 20)", n)
	}
}

func errorsAsUsage(err error) bool { return errors.As(err, new(usageError)) }

// helpFlag is one flag as a command's -h lists it.
type helpFlag struct {
	name, usage string
	env         string   // its variable ("" without)
	formerly    []string // the replaced names it still reads
}

var (
	helpFlagRE = regexp.MustCompile(`(?m)^  -([a-z0-9-]+)[^\n]*\n    \t([^\n]*)$`)
	helpEnvRE  = regexp.MustCompile(`\(env ([A-Z0-9_]+)(?:, formerly ([A-Z0-9_, ]+))?\)`)
)

// helpOf runs `rollgate <args> -h` and returns its flags.
func helpOf(t *testing.T, args ...string) (map[string]helpFlag, string) {
	t.Helper()
	env, _, errb := testEnv(nil)
	if code := run(context.Background(), env, append(args, "-h")); code != 0 {
		t.Fatalf("%v -h: exit %d; %s", args, code, errb)
	}
	out := errb.String()
	flags := map[string]helpFlag{}
	for _, m := range helpFlagRE.FindAllStringSubmatch(out, -1) {
		h := helpFlag{name: m[1], usage: m[2]}
		if e := helpEnvRE.FindStringSubmatch(m[2]); e != nil {
			h.env = e[1]
			if e[2] != "" {
				h.formerly = strings.Split(e[2], ", ")
			}
		}
		flags[h.name] = h
	}
	return flags, out
}

// TestIndexerHelpListsEveryFlag: `rollgate indexer --help` lists every flag of both modes
// once, each with its environment variable, and each of indexerModes' rows with its
// defaults in both modes or the mode that takes it.
func TestIndexerHelpListsEveryFlag(t *testing.T) {
	listed, out := helpOf(t, "indexer")
	env, _, _ := testEnv(nil)
	f := newFlags(env, "indexer")
	var c indexerConfig
	var lg logging
	c.register(f)
	lg.register(f)
	f.config()
	count := 0
	f.VisitAll(func(fl *flag.Flag) {
		count++
		h, ok := listed[fl.Name]
		switch {
		case !ok:
			t.Errorf("--%s is not in the help", fl.Name)
		case h.env == "" && fl.Name != "price-coingecko-key": // its key is read after parsing, never shown
			t.Errorf("--%s lists no environment variable: %s", fl.Name, h.usage)
		case h.env != "" && h.env != f.envOf[fl.Name]:
			t.Errorf("--%s lists %s, reads %s", fl.Name, h.env, f.envOf[fl.Name])
		}
	})
	if len(listed) != count {
		t.Errorf("help lists %d flags, the flag set has %d", len(listed), count)
	}
	for _, r := range indexerModes.rows {
		if want := indexerModes.help(r.flag); !strings.Contains(listed[r.flag].usage, want) {
			t.Errorf("--%s: help %q lacks %q", r.flag, listed[r.flag].usage, want)
		}
	}
	for _, want := range []string{"[default one chain: 8; --chains: 4]", "[--chains only; default 4]", "[one chain only]", "rollgate indexer --chains"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

// rollyticsEnv are the variables rollytics (the indexer whose API rollgate's answers) reads
// for settings rollgate has too; they keep rollytics' names so its deployments' environments
// carry over. Every other variable is ROLLGATE_….
var rollyticsEnv = map[string]bool{
	"CHAIN_ID": true, "VM_TYPE": true, "RPC_URL": true, "REST_URL": true, "JSON_RPC_URL": true,
	"ACCOUNT_ADDRESS_PREFIX": true, "DB_DSN": true, "LOG_FORMAT": true, "LOG_LEVEL": true,
	"MAX_CONCURRENT_REQUESTS": true, "INTERNAL_TX": true, "RICH_LIST": true, "START_HEIGHT": true,
	"CORS_ENABLED": true, "CORS_ALLOW_ORIGINS": true, "CORS_ALLOW_METHODS": true, "CORS_ALLOW_HEADERS": true,
	"CORS_ALLOW_CREDENTIALS": true, "CORS_EXPOSE_HEADERS": true, "CORS_MAX_AGE": true,
}

// envCommands are the commands with flags, each with the scopes its variables may carry
// between ROLLGATE_ and the flag name (docs/operations.md, "Environment variables").
var envCommands = []struct {
	args   []string
	scopes []string
}{
	{[]string{"indexer"}, []string{""}},
	{[]string{"router"}, []string{""}},
	{[]string{"migrate"}, []string{""}},
	{[]string{"backfill-transfers"}, []string{""}},
	{[]string{"route"}, []string{""}},
	{[]string{"transfer"}, []string{""}},
	{[]string{"up"}, []string{"", "DEVNET_"}}, // the devnet's flags are the devnet's
	{[]string{"devnet"}, []string{"DEVNET_"}},
	{[]string{"bench", "ingest"}, []string{"BENCH_INGEST_"}},
	{[]string{"bench", "api"}, []string{"BENCH_API_"}},
	{[]string{"bench", "route"}, []string{"BENCH_ROUTE_"}},
	{[]string{"bench", "stream"}, []string{"BENCH_STREAM_"}},
}

// TestEnvScheme checks every command's variables against the one scheme: rollytics' name
// where rollytics has the setting, else ROLLGATE_[scope]FLAG; one variable is one setting
// (never two flags); a replaced name is no current name, and the table of renamed variables
// in docs/operations.md lists every replacement.
func TestEnvScheme(t *testing.T) {
	flagOf := map[string]string{}  // variable → flag
	newOf := map[string][]string{} // replaced name → its new names
	where := map[string][]string{} // replaced name → commands
	count := 0
	for _, c := range envCommands {
		cmd := strings.Join(c.args, " ")
		listed, _ := helpOf(t, c.args...)
		seen := map[string]string{}
		for _, h := range listed {
			if h.env == "" {
				continue
			}
			count++
			if other, ok := seen[h.env]; ok {
				t.Errorf("%s: %s is read by --%s and --%s", cmd, h.env, other, h.name)
			}
			seen[h.env] = h.name
			if !rollyticsEnv[h.env] {
				ok := false
				for _, s := range c.scopes {
					ok = ok || h.env == "ROLLGATE_"+s+strings.ReplaceAll(strings.ToUpper(h.name), "-", "_")
				}
				if !ok {
					t.Errorf("%s --%s: %s is neither rollytics' name nor ROLLGATE_%s%s", cmd, h.name, h.env, c.scopes[0],
						strings.ReplaceAll(strings.ToUpper(h.name), "-", "_"))
				}
			}
			if f, ok := flagOf[h.env]; ok && f != h.name {
				t.Errorf("%s means --%s and --%s", h.env, f, h.name)
			}
			flagOf[h.env] = h.name
			for _, old := range h.formerly {
				if !contains(newOf[old], h.env) {
					newOf[old] = append(newOf[old], h.env)
				}
				if !contains(where[old], cmd) {
					where[old] = append(where[old], cmd)
				}
			}
		}
	}
	if count < 80 {
		t.Fatalf("%d variables over every command; the help parse missed some", count)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	var olds []string
	for old := range newOf {
		olds = append(olds, old)
	}
	sort.Strings(olds)
	for _, old := range olds {
		if _, ok := flagOf[old]; ok {
			t.Errorf("replaced name %s is also a current variable", old)
		}
		for _, n := range newOf[old] {
			row := regexp.MustCompile("(?m)^\\| `" + old + "` \\| `" + n + "` \\|")
			if !row.Match(doc) {
				t.Errorf("docs/operations.md has no row | `%s` | `%s` | (read by %s)", old, n, strings.Join(where[old], ", "))
			}
		}
	}
	t.Logf("%d variables on %d commands; %d replaced names", len(flagOf), len(envCommands), len(olds))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestDeprecatedEnvNames: a replaced name is still read, with one WARN line naming its new
// name and never its value; the new name wins when both are set; the line is in the
// command's log format.
func TestDeprecatedEnvNames(t *testing.T) {
	file := chainsFile(t)
	const secret = "owner-s3cret-value"
	c, stderr, err := parseIndexer(map[string]string{"INDEXER_CHAINS": file, "INDEXER_LEASE_OWNER": secret}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Chains != file || c.Owner != secret || c.PoolConns != 4 {
		t.Errorf("replaced names not read: chains %q owner %q pool %d", c.Chains, c.Owner, c.PoolConns)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) != 2 || strings.Contains(stderr, secret) || strings.Contains(stderr, file) {
		t.Fatalf("want two WARN lines without values, got:\n%s", stderr)
	}
	for _, want := range []string{"deprecated=INDEXER_CHAINS use=ROLLGATE_CHAINS", "deprecated=INDEXER_LEASE_OWNER use=ROLLGATE_LEASE_OWNER"} {
		if !strings.Contains(stderr, want) || !strings.Contains(stderr, "level=WARN") {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}

	c, stderr, err = parseIndexer(map[string]string{"CHAIN_ID": "c", "VM_TYPE": "move", "ROLLGATE_CONCURRENCY": "5", "INGEST_CONCURRENCY": "3"},
		[]string{"--mode", "api", "--log-format", "json"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Ingest.Concurrency != 5 {
		t.Errorf("concurrency %d, want the new name's 5", c.Ingest.Concurrency)
	}
	if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, `"level":"WARN"`) || !strings.Contains(stderr, `"deprecated":"INGEST_CONCURRENCY"`) ||
		!strings.Contains(stderr, "ignored") {
		t.Errorf("want one JSON WARN line saying INGEST_CONCURRENCY is ignored, got:\n%s", stderr)
	}

	// Another command, the same mechanism: the router's registry under its old name.
	env, _, errb := testEnv(map[string]string{"ROUTER_REGISTRY": filepath.Join(t.TempDir(), "none")})
	if code := run(context.Background(), env, []string{"router", "--listen", "127.0.0.1:0", "--track-db", "off"}); code == 0 {
		t.Fatal("router started on a missing registry")
	}
	if !strings.Contains(errb.String(), "deprecated=ROUTER_REGISTRY use=ROLLGATE_REGISTRY") || !strings.Contains(errb.String(), "registry") {
		t.Errorf("router stderr:\n%s", errb)
	}
}

// parseIndexerConfig is parseIndexer as parseServer registers the flags, --config included.
func parseIndexerConfig(vars map[string]string, args []string) (indexerConfig, string, error) {
	return parseIndexerFlags(vars, args, true)
}

// TestConfigFile: --config is one more source of the same variables, below the environment
// and the flags; it can choose the mode (and so the mode's defaults); a name no flag reads, or
// one given twice, is a usage error that does not echo the line.
func TestConfigFile(t *testing.T) {
	dir, files := t.TempDir(), 0
	write := func(body string) string {
		files++
		p := filepath.Join(dir, fmt.Sprintf("c%d.env", files))
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	one := write("# one chain\nCHAIN_ID=c-9\nexport VM_TYPE=move\nROLLGATE_CONCURRENCY=3\nROLLGATE_RESPONSE_CACHE_MB=5\nMAX_CONCURRENT_REQUESTS='7'\n\nREADY_MAX_LAG=9\n")
	c, stderr, err := parseIndexerConfig(map[string]string{"ROLLGATE_RESPONSE_CACHE_MB": "6"}, []string{"--config", one, "--mode", "api", "--max-requests", "8"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Ingest.ChainID != "c-9" || c.Ingest.VMType != vmkind.Move.String() || c.Ingest.Concurrency != 3 || c.CacheMB != 6 || c.MaxConns != 8 || c.Ingest.ReadyMaxLag != 9 {
		t.Errorf("file < environment < flags: %+v", c)
	}
	if !strings.Contains(stderr, "deprecated=READY_MAX_LAG use=ROLLGATE_READY_MAX_LAG") {
		t.Errorf("replaced name in the file: no WARN line:\n%s", stderr)
	}

	many := write("ROLLGATE_CHAINS=" + chainsFile(t) + "\nROLLGATE_POOL_CONNS=2\n")
	c, _, err = parseIndexerConfig(map[string]string{"ROLLGATE_CONFIG": many}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !c.many() || c.PoolConns != 2 || c.Ingest.Concurrency != 4 || c.CacheMB != 8 {
		t.Errorf("--chains from the file: many %v pool %d concurrency %d cache %d", c.many(), c.PoolConns, c.Ingest.Concurrency, c.CacheMB)
	}

	for name, tc := range map[string]struct{ body, want string }{
		"unknown name":    {"CHAIN_ID=c\nROLLGATE_NO_SUCH=s3cret\n", ":2: ROLLGATE_NO_SUCH is no setting of rollgate indexer"},
		"twice":           {"CHAIN_ID=c\nCHAIN_ID=d\n", ":2: CHAIN_ID sets --chain-id a second time"},
		"no equals sign":  {"s3cret\n", ":1: want NAME=value"},
		"mode-only flag":  {"CHAIN_ID=c\nVM_TYPE=move\nROLLGATE_POOL_CONNS=2\n", "--pool-conns (ROLLGATE_POOL_CONNS) is for --chains only"},
		"malformed value": {"ROLLGATE_CONCURRENCY=many\n", ":1: ROLLGATE_CONCURRENCY"},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := parseIndexerConfig(nil, []string{"--config", write(tc.body), "--mode", "api"})
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "s3cret") || !errorsAsUsage(err) {
				t.Errorf("err = %v, want a usage error with %q", err, tc.want)
			}
		})
	}
}
