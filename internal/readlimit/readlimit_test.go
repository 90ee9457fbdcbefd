package readlimit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optdp/optdp/run"
)

// TestReadFile: a file within the limit is read whole; a regular file over
// it is refused from its size, a device (/dev/zero, endless) after max+1
// bytes, a directory at once.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(p, 5); err != nil || string(b) != "12345" {
		t.Fatalf("ReadFile(5) = %q, %v", b, err)
	}
	if _, err := ReadFile(p, 4); !errors.Is(err, run.ErrTooLarge) {
		t.Errorf("ReadFile over the limit: %v, want run.ErrTooLarge", err)
	}
	if _, err := ReadFile(dir, 4); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("ReadFile(dir): %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := ReadFile("/dev/zero", 1<<10); !errors.Is(err, run.ErrTooLarge) {
			t.Errorf("ReadFile(/dev/zero): %v, want run.ErrTooLarge", err)
		}
	}
}
