package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/optdp/optdp/backend"
)

func versionCommand() command {
	return command{
		name:     "version",
		summary:  "print optdp's version, the Go version, the linear-algebra backend and its threads",
		usage:    "[--json]",
		examples: []string{"optdp version", "optdp version --json"},
		fields: []string{
			"version  optdp's module version ((devel) for a build from a checkout)",
			"go       the Go version it was built with",
			"backend  the linear-algebra backend (pure-go, or netlib with OpenBLAS)",
			"threads  the backend's threads",
		},
		run: func(env *runEnv, args []string) error {
			fs := newFlags(env, "version")
			asJSON := fs.Bool("json", false, "print JSON")
			if err := parseFlags(env, fs, args); err != nil {
				return err
			}
			v := struct {
				Version string `json:"version"`
				Go      string `json:"go"`
				Backend string `json:"backend"`
				Threads int    `json:"threads"`
			}{moduleVersion(), runtime.Version(), backend.Name(), backend.Threads()}
			if *asJSON {
				return writeJSON(env.stdout, v)
			}
			fmt.Fprintf(env.stdout, "optdp %s\ngo      %s\nbackend %s\nthreads %d\n", v.Version, v.Go, v.Backend, v.Threads)
			return nil
		},
	}
}

// moduleVersion is the main module's version from the build information
// ("(devel)" for a build from a checkout).
func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
