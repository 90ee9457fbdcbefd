//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCLICorpusEndlessPipe feeds --data, --release and --matrix from a
// named pipe that never ends: each must stop at the reader's bound with
// exit 1 and a message, not grow its buffer without limit. (--records and
// --histogram are counted in one streaming pass in constant memory: an
// endless pipe of valid rows runs as long as it flows, like wc.)
func TestCLICorpusEndlessPipe(t *testing.T) {
	for _, tc := range []struct {
		args string
		fill []byte
	}{
		{"answer --workload identity:n=4 --strategy identity --eps 1 --seed 1 --data {fifo}", []byte("1 ")},
		{"stream --workload prefix:n=4 --family toeplitz --bands 2 --eps 1 --delta 1e-6 --seed 1 --release {fifo}", []byte("1\n")},
		{"audit --metric line:n=2 --eps 1 --matrix {fifo}", []byte("0.5,")},
	} {
		t.Run(tc.args, func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "pipe")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("no named pipes: %v", err)
			}
			stop := make(chan struct{})
			go func() {
				f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
				if err != nil {
					return
				}
				defer f.Close()
				chunk := bytes.Repeat(tc.fill, 1<<16/len(tc.fill))
				for {
					select {
					case <-stop:
						return
					default:
					}
					if _, err := f.Write(chunk); err != nil {
						return
					}
				}
			}()
			args := strings.Fields(strings.ReplaceAll(tc.args, "{fifo}", fifo))
			code, stdout, stderr, alloc, ok := runBounded(args, badInputTimeout)
			close(stop)
			// unblock a writer still waiting for a reader
			if f, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
			if !ok {
				t.Fatalf("optdp %s: still running after %v", tc.args, badInputTimeout)
			}
			checkBadInput(t, badCase{args: tc.args, codes: data}, code, dropSeedWarning(stderr), alloc)
			if stdout != "" {
				t.Errorf("printed to stdout: %s", stdout)
			}
		})
	}
}
