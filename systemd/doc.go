// Package systemd holds the systemd integration of setmatchd: the service
// unit (setmatchd.service), the sysusers.d and tmpfiles.d snippets that
// create its user, groups, spool and state directories, a udev rule for
// the GPIO character devices, and the example drop-in that gives the
// daemon the network its MQTT publisher and metrics need
// (setmatchd-network.conf.example). The files are installed by
// `make install` and `make deb`; this package's tests check them with
// systemd's own tools (systemd-analyze verify and security,
// systemd-sysusers, systemd-tmpfiles) when those are installed, and check
// their consistency with each other either way.
package systemd
