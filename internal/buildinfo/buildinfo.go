// Package buildinfo is the version setmatch and setmatchd report.
package buildinfo

import (
	"runtime"
	"runtime/debug"
)

// Version is the version a program reports: stamped, its main.version set
// at build time (-X main.version=…), else the module version Go recorded,
// else "devel".
func Version(stamped string) string {
	if stamped != "" {
		return stamped
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// Line is the line a program's version flag prints: its name, Version of
// stamped, the Go release and the platform it was built for
// ("setmatchd 0.1.0 go1.26.8 linux/arm64").
func Line(program, stamped string) string {
	return program + " " + Version(stamped) + " " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
}
