package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDecodeCSVMalformed: inputs that crashed or were accepted wrongly are
// errors naming the problem (",\n,\n,\n" panicked in mat.NewDense with zero
// columns).
func TestDecodeCSVMalformed(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{",\n,\n,\n", "only separators"},
		{";", "only separators"},
		{"1,2\n3\n", "rectangular"},
		{"1,x\n", "not a number"},
		{"# only a comment\n\n", "no matrix rows"},
		{"", "no matrix rows"},
	} {
		_, err := decodeCSV([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("decodeCSV(%q) = %v, want an error mentioning %q", c.in, err, c.want)
		}
	}
	x, err := decodeCSV([]byte("# m\n0.5, 0.5\r\n0.25;0.75\n\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r, c := x.Dims(); r != 2 || c != 2 || x.At(1, 0) != 0.25 || x.At(0, 1) != 0.5 {
		t.Errorf("decodeCSV: got %v", x)
	}
}

// TestReadBounded: a device without end (/dev/zero) and a file over the
// limit are refused after at most limit+1 bytes; a directory is an error.
func TestReadBounded(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := readBounded("/dev/zero", 1<<20); err == nil || !strings.Contains(err.Error(), "larger than") {
			t.Errorf("/dev/zero: %v", err)
		}
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "m.csv")
	if err := os.WriteFile(p, []byte("0.5,0.5\n0.5,0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readBounded(p, 8); err == nil || !strings.Contains(err.Error(), "16 bytes") {
		t.Errorf("16-byte file with limit 8: %v", err)
	}
	if b, err := readBounded(p, 16); err != nil || len(b) != 16 {
		t.Errorf("16-byte file with limit 16: %d bytes, %v", len(b), err)
	}
	if _, err := readBounded(dir, 16); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("directory: %v", err)
	}
	if _, err := parseNumbersMax("0.1 0.2\n0.3,0.4\n", 3); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("parseNumbersMax over the limit: %v", err)
	}
}
