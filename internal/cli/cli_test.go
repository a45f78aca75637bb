package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/testutil"
)

func testEnv(vars map[string]string) (*Env, *testutil.SyncBuffer, *testutil.SyncBuffer) {
	var out, errb testutil.SyncBuffer
	return &Env{
		Build:  Build{Version: "v1.2.3", Commit: "abc"},
		Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return vars[k] },
	}, &out, &errb
}

// checkErr fails t unless err contains wantErr, or is nil when wantErr is empty; it is true
// when the case goes on to check a result (no error was wanted).
func checkErr(t *testing.T, err error, wantErr string) bool {
	t.Helper()
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("err = %v, want %q", err, wantErr)
		}
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	return true
}

// flagGroup is a set of flags commands share (CORS, streams).
type flagGroup interface {
	register(f *flags)
	validate() error
}

// parseGroup registers g alone, parses args with the environment vars and validates g.
func parseGroup(vars map[string]string, args []string, g flagGroup) error {
	env, _, _ := testEnv(vars)
	f := newFlags(env, "t")
	g.register(f)
	if err := f.parse(args); err != nil {
		return err
	}
	return g.validate()
}

func TestRunExitCodes(t *testing.T) {
	tests := []struct {
		args     []string
		code     int
		inStdout string
		inStderr string
	}{
		{[]string{"version"}, 0, "rollgate v1.2.3 (commit abc)", ""},
		{nil, 2, "", "usage: rollgate"},
		{[]string{"help"}, 0, "", "commands:"},
		{[]string{"nope"}, 2, "", `unknown command "nope"`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			env, out, errb := testEnv(nil)
			if code := run(context.Background(), env, tc.args); code != tc.code {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tc.code, errb)
			}
			if !strings.Contains(out.String(), tc.inStdout) || !strings.Contains(errb.String(), tc.inStderr) {
				t.Errorf("stdout %q / stderr %q; want %q / %q", out, errb, tc.inStdout, tc.inStderr)
			}
		})
	}
}

func TestFlagsFromEnvironment(t *testing.T) {
	tests := []struct {
		name    string
		vars    map[string]string
		args    []string
		want    string
		wantN   int
		wantDur time.Duration
		wantErr string
	}{
		{name: "defaults", want: "def", wantN: 7, wantDur: time.Second},
		{name: "first env name wins", vars: map[string]string{"A": "a", "B": "b", "N": "9", "D": "2s"}, want: "a", wantN: 9, wantDur: 2 * time.Second},
		{name: "replaced name is accepted", vars: map[string]string{"B": "b"}, want: "b", wantN: 7, wantDur: time.Second},
		{name: "flag beats env", vars: map[string]string{"A": "a", "N": "9"}, args: []string{"-s", "flag", "-n", "3"}, want: "flag", wantN: 3, wantDur: time.Second},
		{name: "bad env integer", vars: map[string]string{"N": "nine"}, wantErr: `environment N="nine"`},
		{name: "bad flag", args: []string{"-n", "x"}, wantErr: "invalid value"},
		{name: "positional leftovers", args: []string{"extra"}, wantErr: "unexpected arguments: extra"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _, _ := testEnv(tc.vars)
			f := newFlags(env, "t")
			var s string
			var n int
			var d time.Duration
			f.String(&s, "s", "def", "a string", "A", "B")
			f.Int(&n, "n", 7, "a number", "N")
			f.Duration(&d, "d", time.Second, "a duration", "D")
			err := f.parse(tc.args)
			if !checkErr(t, err, tc.wantErr) {
				return
			}
			if s != tc.want || n != tc.wantN || d != tc.wantDur {
				t.Errorf("got %q %d %v, want %q %d %v", s, n, d, tc.want, tc.wantN, tc.wantDur)
			}
		})
	}
}

func TestDevnetFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
		check   func(t *testing.T, d devnetFlags)
	}{
		{name: "defaults", check: func(t *testing.T, d devnetFlags) {
			if d.seed != 1 || d.portBase != 26600 || d.faultsRaw != "0" || d.retainBlocks != 600 || d.keepWithdraw != 30*time.Minute {
				t.Errorf("defaults: %+v", d)
			}
		}},
		{name: "faults out of range", args: []string{"--faults", "1.5"}, wantErr: "--faults must be a number from 0 to 1"},
		{name: "faults not a number", args: []string{"--faults", "lots"}, wantErr: "--faults must be a number"},
		{name: "interval too short", args: []string{"--interval", "1ms"}, wantErr: "--interval must be at least 10ms"},
		{name: "bad chains", args: []string{"--chains", "a:nope"}, wantErr: "--chains"},
		{name: "custom chains", args: []string{"--chains", "l1-1:l1,evm-1:evm", "--faults", "0.25"}},
		{name: "negative retention", args: []string{"--retain-blocks", "-1"}, wantErr: "--retain-blocks must be 0"},
		{name: "negative withdrawal keep", args: []string{"--keep-withdrawals", "-1m"}, wantErr: "--keep-withdrawals must be 0"},
		{name: "keep withdrawals", args: []string{"--keep-withdrawals", "2h"}, check: func(t *testing.T, d devnetFlags) {
			if d.keepWithdraw != 2*time.Hour {
				t.Errorf("keep %s", d.keepWithdraw)
			}
		}},
		{name: "keep every block", args: []string{"--retain-blocks", "0"}, check: func(t *testing.T, d devnetFlags) {
			if d.retainBlocks != 0 {
				t.Errorf("retain %d", d.retainBlocks)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _, _ := testEnv(nil)
			f := newFlags(env, "devnet")
			var d devnetFlags
			d.register(f)
			if err := f.parse(tc.args); err != nil {
				t.Fatal(err)
			}
			cfg, err := d.config(t.TempDir())
			if !checkErr(t, err, tc.wantErr) {
				return
			}
			if tc.check != nil {
				tc.check(t, d)
			}
			if tc.name == "custom chains" && (len(cfg.Chains) != 2 || cfg.Faults != 0.25) {
				t.Errorf("config: %d chains, faults %v", len(cfg.Chains), cfg.Faults)
			}
		})
	}
}

// checkLastLogLine requires the last line of a command's log to be the message msg: a command
// logs its stop once everything it ran has stopped and closed, so nothing may follow it.
func checkLastLogLine(t *testing.T, log, msg string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(log), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, `msg="`+msg+`"`) {
		t.Errorf("last log line %q, want %s", last, msg)
	}
}
