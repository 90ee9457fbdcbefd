package main

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADMECommands runs every `./optdp ...` command of the README's shell
// blocks (the quick start and "more to try"), so the README cannot drift from
// the CLI: each must exit 0. Files named by --out go to a temporary folder.
func TestREADMECommands(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds [][]string
	inShell := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "```sh"):
			inShell = true
		case strings.HasPrefix(line, "```"):
			inShell = false
		case inShell && strings.HasPrefix(line, "./optdp "):
			if i := strings.Index(line, "#"); i >= 0 {
				line = line[:i]
			}
			cmds = append(cmds, strings.Fields(line)[1:])
		}
	}
	if len(cmds) < 8 {
		t.Fatalf("found %d ./optdp commands in README.md, want the quick start and the examples", len(cmds))
	}
	dir := t.TempDir()
	for _, args := range cmds {
		for i := 0; i+1 < len(args); i++ {
			if args[i] == "--out" || args[i] == "--matrix" { // files the README writes, then reads
				args[i+1] = filepath.Join(dir, args[i+1])
			}
		}
		if testing.Short() && strings.Contains(strings.Join(args, " "), "w=1000") {
			continue // the million-location grid takes seconds
		}
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 0 {
			t.Errorf("optdp %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
		} else if out.Len() == 0 {
			t.Errorf("optdp %s: printed nothing", strings.Join(args, " "))
		}
	}
}
