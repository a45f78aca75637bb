// Package cli implements rollgate's subcommands: it parses flags and environment variables
// into each package's Config, wires the pieces together and runs them as a group of actors
// that stop together on the first failure or on SIGINT/SIGTERM.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Build identifies the binary (set at link time).
type Build struct {
	Version string
	Commit  string
}

type command struct {
	summary string
	run     func(ctx context.Context, env *Env, args []string) error
}

// Env is what every subcommand gets: output streams, build info and the environment lookup
// (tests substitute their own).
type Env struct {
	Build  Build
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
}

func commands() map[string]command {
	return map[string]command{
		"version":            {"print the version", runVersion},
		"up":                 {"run the devnet, one indexer per rollup and the router, and print their URLs", runUp},
		"devnet":             {"run a local network of simulated chains", runDevnet},
		"indexer":            {"ingest one chain and/or serve the indexer API", runIndexer},
		"migrate":            {"apply the store's schema migrations", runMigrate},
		"backfill-transfers": {"fill the transfers index of heights indexed before it, from the stored txs (resumable)", runBackfillTransfers},
		"bench":              {"measure ingestion, API, route and stream performance (ingest|api|route|stream)", runBench},
		"router":             {"serve the bridging router API", runRouter},
		"route":              {"ask a router for a route and print it", runRouteCmd},
		"transfer":           {"route, sign, submit and follow a transfer to its end (exit 1 on failure)", runTransfer},
	}
}

// Main runs rollgate with the given arguments and returns the process exit code.
func Main(args []string, build Build) int {
	env := &Env{Build: build, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, env, args)
}

func run(ctx context.Context, env *Env, args []string) int {
	cmds := commands()
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(env.Stderr, cmds)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(env.Stderr, "rollgate: unknown command %q\n\n", args[0])
		usage(env.Stderr, cmds)
		return 2
	}
	err := c.run(ctx, env, args[1:])
	switch {
	case err == nil, errors.Is(err, context.Canceled) && ctx.Err() != nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, new(usageError)):
		fmt.Fprintf(env.Stderr, "rollgate %s: %v\n", args[0], err)
		return 2
	default:
		fmt.Fprintf(env.Stderr, "rollgate %s: %v\n", args[0], err)
		return 1
	}
}

func usage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "usage: rollgate <command> [flags]\n\ncommands:")
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'rollgate <command> -h' for its flags; every flag also reads the environment variable named in its help.")
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

func runVersion(_ context.Context, env *Env, _ []string) error {
	fmt.Fprintf(env.Stdout, "rollgate %s (commit %s)\n", env.Build.Version, env.Build.Commit)
	return nil
}

// flags wraps a FlagSet whose defaults come from environment variables, so every setting
// can be given either way (flags win). Each flag's help names its variables. A malformed
// environment value is reported by parse, like a malformed flag.
type flags struct {
	*flag.FlagSet
	env  *Env
	errs []error
}

func newFlags(env *Env, name string) *flags {
	fs := flag.NewFlagSet("rollgate "+name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	return &flags{FlagSet: fs, env: env}
}

// fromEnv returns the first non-empty environment variable among names, parsed.
func fromEnv[T any](f *flags, def T, names []string, parse func(string) (T, error)) T {
	for _, n := range names {
		v := f.env.Getenv(n)
		if v == "" {
			continue
		}
		x, err := parse(v)
		if err != nil {
			f.errs = append(f.errs, usagef("environment %s=%q: %v", n, v, err))
			return def
		}
		return x
	}
	return def
}

func envHelp(usage string, names []string) string {
	if len(names) == 0 {
		return usage
	}
	return usage + " (env " + strings.Join(names, ", ") + ")"
}

func (f *flags) String(p *string, name, def, usage string, envNames ...string) {
	def = fromEnv(f, def, envNames, func(s string) (string, error) { return s, nil })
	f.StringVar(p, name, def, envHelp(usage, envNames))
}

func (f *flags) Int(p *int, name string, def int, usage string, envNames ...string) {
	f.IntVar(p, name, fromEnv(f, def, envNames, strconv.Atoi), envHelp(usage, envNames))
}

func (f *flags) Int64(p *int64, name string, def int64, usage string, envNames ...string) {
	parse := func(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) }
	f.Int64Var(p, name, fromEnv(f, def, envNames, parse), envHelp(usage, envNames))
}

func (f *flags) Bool(p *bool, name string, def bool, usage string, envNames ...string) {
	f.BoolVar(p, name, fromEnv(f, def, envNames, strconv.ParseBool), envHelp(usage, envNames))
}

func (f *flags) Float64(p *float64, name string, def float64, usage string, envNames ...string) {
	parse := func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }
	f.Float64Var(p, name, fromEnv(f, def, envNames, parse), envHelp(usage, envNames))
}

func (f *flags) Duration(p *time.Duration, name string, def time.Duration, usage string, envNames ...string) {
	f.DurationVar(p, name, fromEnv(f, def, envNames, time.ParseDuration), envHelp(usage, envNames))
}

// parse reports malformed environment values, parses args and rejects positional leftovers.
func (f *flags) parse(args []string) error {
	if err := errors.Join(f.errs...); err != nil {
		return err
	}
	if err := f.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if f.NArg() > 0 {
		return usagef("unexpected arguments: %s", strings.Join(f.Args(), " "))
	}
	return nil
}

// logging holds the shared --log-format/--log-level flags.
type logging struct {
	format, level string
}

func (l *logging) register(f *flags) {
	f.String(&l.format, "log-format", "text", "log format: text or json", "LOG_FORMAT")
	f.String(&l.level, "log-level", "info", "log level: debug, info, warn or error", "LOG_LEVEL")
}

func (l *logging) logger(w io.Writer) (*slog.Logger, error) {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(l.level)); err != nil {
		return nil, usagef("--log-level %q: %v", l.level, err)
	}
	opts := &slog.HandlerOptions{Level: lvl}
	switch l.format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, usagef("--log-format must be text or json, not %q", l.format)
}
