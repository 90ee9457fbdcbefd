//go:build !(386 || arm || mips || mipsle)

// Tests of sizes beyond 32-bit ints: built where int has 64 bits.

package mech

import "testing"

// TestFloorLogWide: floorLog at the power boundary 2^62.
func TestFloorLogWide(t *testing.T) {
	if floorLog(1<<62, 2) != 62 || floorLog((1<<62)-1, 2) != 61 {
		t.Error("floorLog wrong at the power boundary 2^62")
	}
}
