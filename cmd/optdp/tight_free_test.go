package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// The command: `optdp tight` on the 100×100, 200×200 and
// 1000×1000 Euclidean grids at eps 1 says "private true", from the one
// proof of the hardened matrix-free mechanism (its note says so, not
// "NOT exactly private"), and the JSON says private true with a level
// <= eps.
func TestTightEuclidGridsPrivate(t *testing.T) {
	for _, wh := range []string{"100", "200", "1000"} {
		if testing.Short() && wh == "1000" {
			continue // two solves of 10^6 unknowns
		}
		spec := "grid:w=" + wh + ",h=" + wh + ",step=1"
		var out, errb bytes.Buffer
		if code := run([]string{"tight", "--metric", spec, "--eps", "1"}, &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", spec, code, errb.String())
		}
		s := out.String()
		if !strings.Contains(s, "private true") || strings.Contains(s, "NOT exactly") || !strings.Contains(s, "hardened") {
			t.Errorf("%s:\n%s", spec, s)
		}
		if wh == "1000" {
			continue
		}
		out.Reset()
		if code := run([]string{"tight", "--metric", spec, "--eps", "1", "--json"}, &out, &errb); code != 0 {
			t.Fatalf("%s --json: exit %d: %s", spec, code, errb.String())
		}
		var j struct {
			Private  *bool    `json:"private"`
			AuditEps *float64 `json:"audit_eps"`
		}
		if err := json.Unmarshal(out.Bytes(), &j); err != nil {
			t.Fatal(err)
		}
		if j.Private == nil || !*j.Private || j.AuditEps == nil || *j.AuditEps > 1 {
			t.Errorf("%s --json: private %v, audit_eps %v", spec, j.Private, j.AuditEps)
		}
	}
}
