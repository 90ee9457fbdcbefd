// Command optdp designs optimal differentially private mechanisms and
// measures what they leak. Run `optdp help` for the list of commands.
//
// Exit codes: 0 success, 1 a computation failed or its input was invalid,
// 2 the command line could not be parsed.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// command is one optdp subcommand. Each lives in its own file and adds itself
// to the table in commands() below.
type command struct {
	name    string
	summary string
	// usage is the text after "optdp NAME", and examples follow it in --help.
	usage    string
	examples []string
	// run executes the command; fs is already created with the command's name.
	run func(env *runEnv, args []string) error
}

// runEnv carries the streams a command writes to.
type runEnv struct {
	stdout, stderr io.Writer
}

// usageError marks an error in the command line (exit code 2).
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line args and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	env := &runEnv{stdout: stdout, stderr: stderr}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			if c, ok := lookup(args[1]); ok {
				printCommandHelp(stdout, c)
				return 0
			}
			fmt.Fprintf(stderr, "optdp: unknown command %q; run `optdp help`\n", args[1])
			return 2
		}
		printHelp(stdout)
		return 0
	}
	c, ok := lookup(args[0])
	if !ok {
		fmt.Fprintf(stderr, "optdp: unknown command %q; run `optdp help`\n", args[0])
		return 2
	}
	err := c.run(env, args[1:])
	if err == nil {
		return 0
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintf(stderr, "optdp %s: %v\n", c.name, err)
	var u usageError
	if errors.As(err, &u) {
		fmt.Fprintf(stderr, "run `optdp help %s` for usage\n", c.name)
		return 2
	}
	return 1
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
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run `optdp help COMMAND` or `optdp COMMAND --help` for a command's flags and examples.")
	fmt.Fprintln(w, "Exit codes: 0 success; 1 invalid input or a failed computation; 2 a bad command line.")
}

func printCommandHelp(w io.Writer, c command) {
	fmt.Fprintf(w, "optdp %s — %s\n\nUsage: optdp %s %s\n", c.name, c.summary, c.name, c.usage)
	if len(c.examples) > 0 {
		fmt.Fprintln(w, "\nExamples:")
		for _, e := range c.examples {
			fmt.Fprintf(w, "  %s\n", e)
		}
	}
	// Show the flags by running the command's flag set in help mode.
	var b strings.Builder
	env := &runEnv{stdout: &b, stderr: &b}
	_ = c.run(env, []string{"--help"})
	if b.Len() > 0 {
		fmt.Fprintf(w, "\n%s", b.String())
	}
}

// newFlags returns a flag set for command name that reports errors instead of
// exiting; parseFlags prints its defaults on --help.
func newFlags(env *runEnv, name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseFlags parses args, turning a parse failure into a usage error. On
// --help it prints the flags to env.stdout and returns flag.ErrHelp, which
// run treats as success.
func parseFlags(env *runEnv, fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(env.stdout, "Flags:")
		fs.SetOutput(env.stdout)
		fs.PrintDefaults()
		return err
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
