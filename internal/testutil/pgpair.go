package testutil

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// PGServer is a PostgreSQL cluster the test made itself with the machine's own binaries
// (initdb, pg_ctl, pg_basebackup): a primary, or a streaming hot standby of one. It listens on
// 127.0.0.1 only (no Unix socket), trusts every local connection, and is stopped when the test
// ends.
type PGServer struct {
	t    testing.TB
	bin  string
	Dir  string // data directory
	Port int
	cred *syscall.Credential // the non-root user the server runs as when the test runs as root
}

// PGPair builds a primary and a streaming hot standby of it (pg_basebackup -R: the standby's
// primary_conninfo points at the primary) and returns both running. The clusters live under a
// fresh directory that is removed at the end. The PostgreSQL binaries are found in $PG_BIN,
// else /usr/lib/postgresql/<newest>/bin, else through pg_config on $PATH. Without them the test
// is skipped on a developer machine and fails in CI (CI=true), which must have them.
func PGPair(t testing.TB) (primary, standby *PGServer) {
	t.Helper()
	primary = NewPGServer(t)
	standby = primary.Standby()
	return primary, standby
}

// NewPGServer initialises and starts one cluster with wal_level=replica, so standbys can follow it.
func NewPGServer(t testing.TB) *PGServer {
	t.Helper()
	bin := pgBinDir(t)
	root, cred := pgRoot(t)
	s := &PGServer{t: t, bin: bin, Dir: filepath.Join(root, "primary"), Port: freePort(t), cred: cred}
	s.run(60*time.Second, "initdb", "-D", s.Dir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", "--locale=C")
	// fsync off and small buffers: a test cluster is thrown away, so start-up and writes stay fast.
	s.appendConf(
		"listen_addresses = '127.0.0.1'",
		"unix_socket_directories = ''",
		"port = "+strconv.Itoa(s.Port),
		"wal_level = replica",
		"max_wal_senders = 4",
		"hot_standby = on",
		"fsync = off",
		"synchronous_commit = off",
		"full_page_writes = off",
		"shared_buffers = 16MB",
		"max_connections = 60",
		"wal_keep_size = 256MB",
	)
	s.Start()
	return s
}

// Standby makes a streaming hot standby of s on a new port and starts it.
func (s *PGServer) Standby() *PGServer {
	s.t.Helper()
	sb := &PGServer{t: s.t, bin: s.bin, Dir: filepath.Join(filepath.Dir(s.Dir), "standby"), Port: freePort(s.t), cred: s.cred}
	sb.run(120*time.Second, "pg_basebackup", "-D", sb.Dir, "-h", "127.0.0.1", "-p", strconv.Itoa(s.Port),
		"-U", "postgres", "-R", "-X", "stream", "-c", "fast", "--no-sync")
	// The copy carries the primary's configuration; a later line wins.
	sb.appendConf("port = " + strconv.Itoa(sb.Port))
	sb.Start()
	return sb
}

// DSN is the URL of database db (postgres when empty) on this server.
func (s *PGServer) DSN(db string) string {
	if db == "" {
		db = "postgres"
	}
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.Port, db)
}

// Start starts the server and waits until it accepts connections (a hot standby once it is
// consistent enough to serve reads).
func (s *PGServer) Start() {
	s.t.Helper()
	s.run(120*time.Second, "pg_ctl", "start", "-w", "-t", "110", "-D", s.Dir, "-l", s.Dir+".log")
	s.t.Cleanup(func() { s.stopQuietly() })
}

// Stop stops the server: mode "immediate" is a crash (no checkpoint; the next start recovers),
// "fast" a clean shutdown.
func (s *PGServer) Stop(mode string) {
	s.t.Helper()
	s.run(120*time.Second, "pg_ctl", "stop", "-w", "-t", "110", "-D", s.Dir, "-m", mode)
}

func (s *PGServer) stopQuietly() {
	if _, err := os.Stat(filepath.Join(s.Dir, "postmaster.pid")); err != nil {
		return
	}
	cmd := s.command("pg_ctl", "stop", "-w", "-D", s.Dir, "-m", "immediate")
	_ = cmd.Run()
}

// Promote turns a standby into a primary (pg_ctl promote) and waits until it accepts writes.
func (s *PGServer) Promote() {
	s.t.Helper()
	s.run(120*time.Second, "pg_ctl", "promote", "-w", "-t", "110", "-D", s.Dir)
}

// Configure appends settings to postgresql.conf and reloads them (pg_ctl reload), e.g.
// synchronous_standby_names = '*' with synchronous_commit = on (a test cluster starts with it
// off) on a primary for commits that wait for the standby. It
// returns once a new session sees every setting: pg_ctl reload only signals the postmaster,
// and on a loaded machine sessions opened right after it still ran with the old value (a
// failover test's commits did not wait for the standby and were lost with the primary).
func (s *PGServer) Configure(lines ...string) {
	s.t.Helper()
	s.appendConf(lines...)
	s.run(60*time.Second, "pg_ctl", "reload", "-D", s.Dir)
	for _, l := range lines {
		name, val, ok := strings.Cut(l, "=")
		if !ok {
			continue
		}
		name, val = strings.TrimSpace(name), strings.Trim(strings.TrimSpace(val), "'")
		deadline := time.Now().Add(60 * time.Second)
		for got := s.setting(name); got != val; got = s.setting(name) {
			if time.Now().After(deadline) {
				s.t.Fatalf("port %d: %s is %q 60 s after the reload, want %q", s.Port, name, got, val)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// setting reads a setting as a new session sees it.
func (s *PGServer) setting(name string) string {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, s.DSN(""))
	if err != nil {
		s.t.Fatalf("connect to %s: %v", s.DSN(""), err)
	}
	defer c.Close(context.Background())
	var v string
	if err := c.QueryRow(ctx, "SELECT current_setting($1)", name).Scan(&v); err != nil {
		s.t.Fatalf("setting %s on port %d: %v", name, s.Port, err)
	}
	return v
}

// Exec runs one statement on database db (postgres when empty) as the superuser.
func (s *PGServer) Exec(db, sql string) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, s.DSN(db))
	if err != nil {
		s.t.Fatalf("connect to %s: %v", s.DSN(db), err)
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(ctx, sql); err != nil {
		s.t.Fatalf("%s on port %d: %v", sql, s.Port, err)
	}
}

// Log returns the server's log, for a failing test's message.
func (s *PGServer) Log() string {
	b, _ := os.ReadFile(s.Dir + ".log")
	return string(b)
}

func (s *PGServer) appendConf(lines ...string) {
	s.t.Helper()
	f, err := os.OpenFile(filepath.Join(s.Dir, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		s.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("\n# rollgate test cluster\n" + strings.Join(lines, "\n") + "\n"); err != nil {
		s.t.Fatal(err)
	}
}

func (s *PGServer) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.Dir = filepath.Dir(s.Dir)
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	// A stray PGDATA, PGPORT or PGHOST from the environment must not redirect the tools.
	env := []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C", "TZ=UTC"}
	if s.cred != nil {
		env = append(env, "HOME="+filepath.Dir(s.Dir))
	}
	cmd.Env = env
	return cmd
}

func (s *PGServer) run(timeout time.Duration, name string, args ...string) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := s.command(name, args...)
	c := exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...)
	c.Dir, c.Env, c.SysProcAttr = cmd.Dir, cmd.Env, cmd.SysProcAttr
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	if err := c.Run(); err != nil {
		s.t.Fatalf("%s %s: %v\n%s\n%s", name, strings.Join(args, " "), err, out.String(), tail(s.Log(), 3000))
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// pgBinDir finds the directory holding initdb, pg_ctl and pg_basebackup.
func pgBinDir(t testing.TB) string {
	t.Helper()
	var cands []string
	if d := os.Getenv("PG_BIN"); d != "" {
		cands = append(cands, d)
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	// Newest major version first (numeric, so 16 sorts before 9.6).
	sort.Slice(dirs, func(i, j int) bool { return pgMajor(dirs[i]) > pgMajor(dirs[j]) })
	cands = append(cands, dirs...)
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		cands = append(cands, strings.TrimSpace(string(out)))
	}
	for _, d := range cands {
		ok := true
		for _, b := range []string{"initdb", "pg_ctl", "pg_basebackup", "postgres"} {
			if _, err := os.Stat(filepath.Join(d, b)); err != nil {
				ok = false
			}
		}
		if ok {
			return d
		}
	}
	msg := fmt.Sprintf("PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup) not found in $PG_BIN, /usr/lib/postgresql/*/bin or pg_config --bindir (tried %q)", cands)
	if os.Getenv("CI") != "" {
		t.Fatal(msg + ": CI must install the PostgreSQL server package")
	}
	t.Skip(msg)
	return ""
}

func pgMajor(binDir string) float64 {
	v, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(binDir)), 64)
	return v
}

// pgRoot makes the directory the clusters live in. PostgreSQL refuses to run as root, so a test
// running as root (CI containers do) runs the server as the "postgres" user (or
// $ROLLGATE_TEST_PG_USER) in a directory that user owns. That directory is made directly under
// the system temp dir, because the test's own t.TempDir() is private to root (mode 0700).
func pgRoot(t testing.TB) (string, *syscall.Credential) {
	t.Helper()
	dir, err := os.MkdirTemp("", "rollgate-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if os.Geteuid() != 0 {
		return dir, nil
	}
	name := os.Getenv("ROLLGATE_TEST_PG_USER")
	if name == "" {
		name = "postgres"
	}
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatalf("running as root, PostgreSQL must run as another user; %q: %v (set ROLLGATE_TEST_PG_USER)", name, err)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	if err := os.Chown(dir, int(uid), int(gid)); err != nil {
		t.Fatal(err)
	}
	// The cleanup above runs as root, so it removes what the server user wrote too.
	return dir, &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}
}

// freePort asks the kernel for a free TCP port on 127.0.0.1. Another process may take it
// before the server binds it; pg_ctl start then fails loudly, naming the port.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
