// Command optdp designs optimal differentially private mechanisms and
// measures what they leak. Run `optdp help` for the list of commands.
//
// Exit codes (exitCode applies them, printHelp documents them): 0 success,
// 1 the computation or the data said no, 2 the command line was wrong,
// 3 optdp audit found the matrix not private.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	optrun "github.com/optdp/optdp/run"
)

// command is one optdp subcommand. Each lives in its own file and adds itself
// to the table in commands() below.
type command struct {
	name    string
	summary string
	// usage is the text after "optdp NAME", and examples follow it in --help.
	usage    string
	examples []string
	// fields documents the JSON output of --json, one "name  meaning" line
	// per field (nested objects indented).
	fields []string
	// run executes the command; fs is already created with the command's name.
	run func(env *runEnv, args []string) error
}

// runEnv carries the streams a command writes to. stderrTTY reports that
// stderr is a terminal: only then does a progress bar redraw itself with
// carriage returns (see progress).
type runEnv struct {
	stdout, stderr io.Writer
	stderrTTY      bool
}

// The exit codes of optdp, one table for every command (exitCode).
const (
	exitOK = 0
	// exitFailed: the computation or the data said no: an input file that
	// cannot be read or is not valid (a prior that is not a distribution, a
	// matrix that is not stochastic), a mechanism that does not exist, a
	// problem too large for the memory budget, a solver that did not
	// converge, a failed experiment.
	exitFailed = 1
	// exitUsage: the command line was wrong: an unknown command or flag, a
	// missing required flag, a bad flag value (eps, delta, tol, ...), a spec
	// that does not parse (an unknown metric kind, workload or strategy, a
	// bad or unknown parameter).
	exitUsage = 2
	// exitNotPrivate: optdp audit ran and found the matrix not eps-private
	// for the metric.
	exitNotPrivate = 3
)

// exitCodesHelp documents the exit codes in `optdp help`.
const exitCodesHelp = `Exit codes (every command):
  0  success
  1  the computation or the data said no: an input file unreadable or invalid (a prior
     that is not a distribution, a matrix that is not stochastic), no mechanism to write,
     too large for the memory budget (the message says what to do instead), no convergence
  2  the command line was wrong: unknown command or flag, missing required flag, bad value
     (eps, delta, tol, ...), a metric/workload/strategy spec that does not parse
  3  optdp audit: the matrix is not eps-private for the metric (the audit itself ran)`

// usageError marks an error in the command line (exit code 2).
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// dataError marks an error in the data a command read from a file (exit
// code 1, even when the library calls it run.ErrBadInput).
type dataError struct{ err error }

func (d dataError) Error() string { return d.err.Error() }
func (d dataError) Unwrap() error { return d.err }

// asData marks err as a data error unless it is a usage error (or nil).
func asData(err error) error {
	var u usageError
	if err == nil || errors.As(err, &u) {
		return err
	}
	return dataError{err}
}

// notPrivateError is optdp audit's verdict that the matrix is not private
// (exit code 3); the report has been printed.
type notPrivateError struct{ eps, measured float64 }

func (e notPrivateError) Error() string {
	return fmt.Sprintf("the matrix is NOT %s-private for the metric (measured eps %.6g)", fmtFloat(e.eps), e.measured)
}

// helpRequest is what parseFlags returns for -h/--help: run prints the
// command's whole help (usage, examples, these flags, JSON fields).
type helpRequest struct{ flags string }

func (helpRequest) Error() string { return "help requested" }

// exitCode is the one mapping from a command's error to optdp's exit code
// (the table above): usage errors, and values the library refused as
// run.ErrBadInput that did not come from a data file, are command-line
// mistakes.
func exitCode(err error) int {
	var (
		u  usageError
		d  dataError
		np notPrivateError
		h  helpRequest
	)
	switch {
	case err == nil, errors.As(err, &h), errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &np):
		return exitNotPrivate
	case errors.As(err, &u):
		return exitUsage
	case errors.As(err, &d):
		return exitFailed
	case errors.Is(err, optrun.ErrBadInput):
		return exitUsage
	}
	return exitFailed
}

// fmtFloat formats a number the user typed without float noise (0.9, not
// 0.90000000000000002): the shortest representation that reads back as v.
func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line args and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	env := &runEnv{stdout: stdout, stderr: stderr, stderrTTY: isTerminal(stderr)}
	if len(args) == 0 {
		printHelp(stderr)
		return exitUsage
	}
	if args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		if len(args) > 2 {
			fmt.Fprintf(stderr, "optdp help: want at most one command, got %q\n", strings.Join(args[1:], " "))
			return exitUsage
		}
		if len(args) == 2 {
			if args[1] == "help" {
				printHelpHelp(stdout)
				return exitOK
			}
			if c, ok := lookup(args[1]); ok {
				printCommandHelp(stdout, c)
				return exitOK
			}
			fmt.Fprintf(stderr, "optdp: unknown command %q; run `optdp help`\n", args[1])
			return exitUsage
		}
		printHelp(stdout)
		return exitOK
	}
	c, ok := lookup(args[0])
	if !ok {
		fmt.Fprintf(stderr, "optdp: unknown command %q; run `optdp help`\n", args[0])
		return exitUsage
	}
	err := c.run(env, args[1:])
	var h helpRequest
	if errors.As(err, &h) {
		printCommandHelpFlags(stdout, c, h.flags)
		return exitOK
	}
	code := exitCode(err)
	if err != nil {
		fmt.Fprintf(stderr, "optdp %s: %v\n", c.name, err)
		if code == exitUsage {
			fmt.Fprintf(stderr, "run `optdp help %s` for usage\n", c.name)
		}
	}
	return code
}

func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// commands lists every subcommand. Add new ones here.
func commands() []command {
	cs := []command{versionCommand()}
	cs = append(cs, extraCommands()...)
	sort.Slice(cs, func(i, j int) bool { return cs[i].name < cs[j].name })
	return cs
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "optdp designs provably optimal differentially private mechanisms and measures what they leak.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: optdp COMMAND [flags]   (every command accepts --json)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "  %-10s %s\n", "help", "this text; `optdp help COMMAND` for a command's usage, examples, flags and JSON fields")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run `optdp help COMMAND` or `optdp COMMAND --help` for a command's flags, examples and JSON fields.")
	fmt.Fprintln(w, "Progress goes to stderr: a bar redrawn in place on a terminal, plain lines otherwise; --json keeps")
	fmt.Fprintln(w, "stderr quiet unless --progress is given.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, exitCodesHelp)
}

// printHelpHelp is `optdp help help`.
func printHelpHelp(w io.Writer) {
	fmt.Fprintln(w, "optdp help — list the commands, or describe one")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: optdp help [COMMAND]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Examples:")
	fmt.Fprintln(w, "  optdp help")
	fmt.Fprintln(w, "  optdp help tight        (the same as optdp tight --help)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, exitCodesHelp)
}

// printCommandHelp is `optdp help NAME`: the command's flags come from
// running it with --help.
func printCommandHelp(w io.Writer, c command) {
	var b strings.Builder
	err := c.run(&runEnv{stdout: &b, stderr: &b}, []string{"--help"})
	var h helpRequest
	if errors.As(err, &h) {
		printCommandHelpFlags(w, c, h.flags)
		return
	}
	printCommandHelpFlags(w, c, "")
}

// printCommandHelpFlags writes a command's help: summary, usage, examples,
// flags, JSON fields and exit codes.
func printCommandHelpFlags(w io.Writer, c command, flags string) {
	fmt.Fprintf(w, "optdp %s — %s\n\nUsage: optdp %s %s\n", c.name, c.summary, c.name, c.usage)
	if len(c.examples) > 0 {
		fmt.Fprintln(w, "\nExamples:")
		for _, e := range c.examples {
			fmt.Fprintf(w, "  %s\n", e)
		}
	}
	if flags != "" {
		fmt.Fprintf(w, "\nFlags:\n%s", flags)
	}
	fields := c.fields
	if len(fields) == 0 {
		fields = commandFields[c.name]
	}
	if len(fields) > 0 {
		fmt.Fprintln(w, "\nJSON output (--json); a field is null or absent when it was not computed:")
		for _, f := range fields {
			fmt.Fprintf(w, "  %s\n", f)
		}
	}
	fmt.Fprintln(w, "\nExit codes: 0 success; 1 the computation or the data said no; 2 a bad command line"+auditExitNote(c.name)+" (optdp help).")
}

func auditExitNote(name string) string {
	if name == "audit" {
		return "; 3 the matrix is not private"
	}
	return ""
}

// newFlags returns a flag set for command name that reports errors instead of
// exiting; parseFlags turns --help into a helpRequest.
func newFlags(env *runEnv, name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseFlags parses args, turning a parse failure into a usage error. On
// -h/--help it returns a helpRequest carrying the flags' defaults, which run
// prints with the command's usage, examples and JSON fields (exit 0).
func parseFlags(env *runEnv, fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		var b strings.Builder
		fs.SetOutput(&b)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
		return helpRequest{flags: b.String()}
	}
	if err != nil {
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// writeJSON writes v as indented JSON followed by a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
