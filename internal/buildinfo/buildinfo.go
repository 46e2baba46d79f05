// Package buildinfo is the version setmatch and setmatchd report.
package buildinfo

import "runtime/debug"

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
