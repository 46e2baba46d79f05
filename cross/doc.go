// Package cross holds the packaging of setmatch for the Raspberry Pi: the
// nfpm configuration of the arm64 Debian package (nfpm.yaml) and its
// maintainer scripts. `make cross` builds the static linux/arm64 binaries,
// `make deb` the package. This package's tests check that the configuration
// names files that exist, that the maintainer scripts agree with it, that
// the copyright file covers every module in go.mod, that the build, demo and
// CI scripts parse, and, when lintian is installed, build the package and
// run lintian --pedantic on it.
package cross
