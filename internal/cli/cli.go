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
// can be given either way (flags win). Each flag's help names its variable. A malformed
// environment value is reported by parse, like a malformed flag.
//
// The variable names follow one scheme (docs/operations.md, "Environment variables"): the
// first name given to a flag is its variable; any further names are the ones it replaces,
// still read for one release with one WARN line naming the new variable (never the value:
// values can be credentials). A command with several modes declares the defaults that differ
// between them, and the flags only some modes take, in a modeTable (byMode).
type flags struct {
	*flag.FlagSet
	env  *Env
	errs []error

	envOf   map[string]string   // flag → its variable
	namesOf map[string][]string // flag → its variable and the names it replaces
	fromEnv map[string]string   // flag → the variable its value was read from
	renamed []renamedEnv        // replaced names found set, reported by parse
	lg      *logging            // the command's logging flags, for the WARN lines
	modes   *modeTable
	mode    func() int // which of modes applies, once the flags are parsed

	configPath string // --config, on the commands that take it
}

// renamedEnv is a replaced variable found in the environment.
type renamedEnv struct {
	old, new string
	ignored  bool // the new name is set too and wins
}

func newFlags(env *Env, name string) *flags {
	fs := flag.NewFlagSet("rollgate "+name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	return &flags{FlagSet: fs, env: env, envOf: map[string]string{}, namesOf: map[string][]string{}, fromEnv: map[string]string{}}
}

// fromEnvironment returns def, or the value of the first of names set in the environment,
// parsed; it notes every replaced name (names[1:]) found set. A flag whose default depends
// on the mode starts from its zero value: parse gives it the mode's default.
func fromEnvironment[T any](f *flags, flagName string, def T, names []string, parse func(string) (T, error)) T {
	if f.modes.row(flagName) != nil {
		var zero T
		def = zero
	}
	if len(names) == 0 {
		return def
	}
	f.envOf[flagName] = names[0]
	f.namesOf[flagName] = names
	used := ""
	for i, n := range names {
		v := f.env.Getenv(n)
		if v == "" {
			continue
		}
		if i > 0 {
			f.renamed = append(f.renamed, renamedEnv{old: n, new: names[0], ignored: used != ""})
		}
		if used != "" {
			continue
		}
		used = n
		x, err := parse(v)
		if err != nil {
			f.errs = append(f.errs, usagef("environment %s=%q: %v", n, v, err))
			continue
		}
		f.fromEnv[flagName] = n
		def = x
	}
	return def
}

// help is a flag's usage with its mode defaults (modeTable) and its variables.
func (f *flags) help(flagName, usage string, names []string) string {
	usage += f.modes.help(flagName)
	if len(names) == 0 {
		return usage
	}
	usage += " (env " + names[0]
	if len(names) > 1 {
		usage += ", formerly " + strings.Join(names[1:], ", ")
	}
	return usage + ")"
}

// ref names a flag in an error: --name (VARIABLE), the variable its value came from if any.
func (f *flags) ref(flagName string) string {
	if n := f.fromEnv[flagName]; n != "" {
		return "--" + flagName + " (" + n + ")"
	}
	if n := f.envOf[flagName]; n != "" {
		return "--" + flagName + " (" + n + ")"
	}
	return "--" + flagName
}

func parseString(s string) (string, error) { return s, nil }

func (f *flags) String(p *string, name, def, usage string, envNames ...string) {
	f.StringVar(p, name, fromEnvironment(f, name, def, envNames, parseString), f.help(name, usage, envNames))
}

func (f *flags) Int(p *int, name string, def int, usage string, envNames ...string) {
	f.IntVar(p, name, fromEnvironment(f, name, def, envNames, strconv.Atoi), f.help(name, usage, envNames))
}

func (f *flags) Int64(p *int64, name string, def int64, usage string, envNames ...string) {
	parse := func(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) }
	f.Int64Var(p, name, fromEnvironment(f, name, def, envNames, parse), f.help(name, usage, envNames))
}

func (f *flags) Bool(p *bool, name string, def bool, usage string, envNames ...string) {
	f.BoolVar(p, name, fromEnvironment(f, name, def, envNames, strconv.ParseBool), f.help(name, usage, envNames))
}

func (f *flags) Float64(p *float64, name string, def float64, usage string, envNames ...string) {
	parse := func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }
	f.Float64Var(p, name, fromEnvironment(f, name, def, envNames, parse), f.help(name, usage, envNames))
}

func (f *flags) Duration(p *time.Duration, name string, def time.Duration, usage string, envNames ...string) {
	f.DurationVar(p, name, fromEnvironment(f, name, def, envNames, time.ParseDuration), f.help(name, usage, envNames))
}

// parse reports malformed environment values, parses args, rejects positional leftovers,
// applies the mode's defaults and writes one WARN line per replaced variable found set.
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
	if err := f.applyConfig(); err != nil {
		return err
	}
	f.warnRenamed()
	if f.modes != nil {
		return f.applyMode(f.mode())
	}
	return nil
}

// config adds --config: a file of the same variables as the environment, one source more
// of the same settings (and of a mode's table), below the environment and the flags.
func (f *flags) config() {
	f.String(&f.configPath, "config", "", "file of settings as environment variables, NAME=value a line (# comments, the names -h lists); the environment wins over it, flags over both", "ROLLGATE_CONFIG")
}

// applyConfig sets, from the --config file, each flag given neither on the command line nor
// in the environment. A name no flag reads, or one given twice, is a usage error; a replaced
// name is read as in the environment, with its WARN line. Errors name the line, never echo it.
func (f *flags) applyConfig() error {
	if f.configPath == "" {
		return nil
	}
	b, err := os.ReadFile(f.configPath)
	if err != nil {
		return usagef("--config: %v", err)
	}
	flagOf := map[string]string{}
	for fl, names := range f.namesOf {
		for _, n := range names {
			flagOf[n] = fl
		}
	}
	given := map[string]bool{}
	f.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	seen := map[string]bool{}
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		at := fmt.Sprintf("--config %s:%d", f.configPath, i+1)
		name, val, ok := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		name = strings.TrimSpace(name)
		fl, known := flagOf[name]
		switch {
		case !ok:
			return usagef("%s: want NAME=value", at)
		case !known || fl == "config":
			return usagef("%s: %s is no setting of %s (its -h lists them)", at, name, f.Name())
		case seen[fl]:
			return usagef("%s: %s sets --%s a second time", at, name, fl)
		}
		seen[fl] = true
		if names := f.namesOf[fl]; name != names[0] {
			f.renamed = append(f.renamed, renamedEnv{old: name, new: names[0]})
		}
		if given[fl] || f.fromEnv[fl] != "" {
			continue
		}
		if err := f.Set(fl, unquote(strings.TrimSpace(val))); err != nil {
			return usagef("%s: %s: %v", at, name, err)
		}
		f.fromEnv[fl] = name
	}
	return nil
}

// unquote strips one pair of matching quotes, as env files write values with spaces.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// warnRenamed logs the replaced variables found set, in the command's log format when it
// has one (its level, its output).
func (f *flags) warnRenamed() {
	if len(f.renamed) == 0 {
		return
	}
	log := slog.New(slog.NewTextHandler(f.env.Stderr, nil))
	if f.lg != nil {
		if l, err := f.lg.logger(f.env.Stderr); err == nil {
			log = l
		}
	}
	seen := map[string]bool{}
	for _, r := range f.renamed {
		if seen[r.old] {
			continue
		}
		seen[r.old] = true
		if r.ignored {
			log.Warn("deprecated environment variable ignored: its new name is set too", "deprecated", r.old, "use", r.new)
			continue
		}
		log.Warn("deprecated environment variable: read this release only", "deprecated", r.old, "use", r.new)
	}
}

// modeTable declares, for a command whose defaults depend on its mode, the flags whose
// defaults differ between the modes and the flags only some modes take. It is the one
// source of those defaults: parse sets them, --help prints them, the tests read them.
type modeTable struct {
	modes []string  // the modes as help and errors name them, e.g. "one chain"
	rows  []modeRow // the flags whose default differs, or that a mode does not take
}

// modeRow is one flag's default in each mode (notTaken: the mode does not take the flag).
type modeRow struct {
	flag     string
	defaults []string // in modeTable.modes' order, as given on the command line
}

// notTaken marks a mode that does not take a flag: giving the flag in it is a usage error.
const notTaken = "\x00not taken"

func (t *modeTable) row(flagName string) *modeRow {
	if t == nil {
		return nil
	}
	for i := range t.rows {
		if t.rows[i].flag == flagName {
			return &t.rows[i]
		}
	}
	return nil
}

// takers names the modes that take r's flag.
func (t *modeTable) takers(r *modeRow) string {
	var in []string
	for i, d := range r.defaults {
		if d != notTaken {
			in = append(in, t.modes[i])
		}
	}
	return strings.Join(in, ", ")
}

// help says what the table says of a flag: its default in each mode, or the modes that
// take it and its default there.
func (t *modeTable) help(flagName string) string {
	r := t.row(flagName)
	if r == nil {
		return ""
	}
	var parts []string
	only := false
	for i, d := range r.defaults {
		switch {
		case d == notTaken:
			only = true
		case d == "":
			parts = append(parts, t.modes[i]+": empty")
		default:
			parts = append(parts, t.modes[i]+": "+d)
		}
	}
	if !only {
		return " [default " + strings.Join(parts, "; ") + "]"
	}
	s := " [" + t.takers(r) + " only"
	for _, d := range r.defaults {
		if d != notTaken && d != "" && len(parts) == 1 {
			s += "; default " + d
		}
	}
	return s + "]"
}

// applyMode gives every flag of the table that was neither on the command line nor in the
// environment mode m's default, and rejects a flag given that m does not take.
func (f *flags) applyMode(m int) error {
	given := map[string]bool{}
	f.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	for i := range f.modes.rows {
		r := &f.modes.rows[i]
		set := given[r.flag] || f.fromEnv[r.flag] != ""
		d := r.defaults[m]
		switch {
		case d == notTaken && set:
			return usagef("%s is for %s only, not %s", f.ref(r.flag), f.modes.takers(r), f.modes.modes[m])
		case d == notTaken, set, d == "":
		default:
			if err := f.Set(r.flag, d); err != nil {
				return fmt.Errorf("default of --%s for %s: %w", r.flag, f.modes.modes[m], err)
			}
		}
	}
	return nil
}

// logging holds the shared --log-format/--log-level flags.
type logging struct {
	format, level string
}

func (l *logging) register(f *flags) {
	f.lg = l
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
