package tables

import (
	"bytes"
	"context"
	"os"
	"testing"
)

func TestOneFile(t *testing.T) {
	b, _ := os.ReadFile("/tmp/last.bin")
	for k := range 2 {
		res, err := CountParquet(context.Background(), fuzzAttrs, bytes.NewReader(b), int64(len(b)), &Options{Kind: Kind(k)})
		t.Log(k, err)
		checkFuzz(t, res, err)
	}
}
