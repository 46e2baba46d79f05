// Package cross holds the packaging of setmatch for the Raspberry Pi: the
// nfpm configuration of the arm64 Debian package (nfpm.yaml) and its
// maintainer scripts. `make cross` builds the static linux/arm64 binaries,
// `make deb` the package. This package's tests check that the configuration
// names files that exist, that the maintainer scripts agree with it, that
// the copyright file covers every module in go.mod, that the build, demo and
// CI scripts parse, and, when lintian is installed, build the package and
// run lintian --pedantic on it. As root, with systemd-nspawn and
// debootstrap, they build it for this machine, install it into a Debian 12
// root and boot that root: systemd 252 as PID 1 runs setmatchd under the
// unit's sandbox, and the test drives it as an installer and a camera do.
package cross
