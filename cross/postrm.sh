#!/bin/sh
# setmatch postrm: forget the unit. On remove the unit is masked (it stays
# disabled should the package come back without its state); on purge its
# enablement symlinks go. The user, the spool and the state (model, journal)
# are left in place, also on purge: they hold data. As debhelper's
# dh_installsystemd does it.
set -e
# Not under DPKG_ROOT (an image being built): there systemctl would reload
# the running host's systemd, not the image's.
if [ -z "${DPKG_ROOT:-}" ] && [ "$1" = remove ] && [ -d /run/systemd/system ]; then
	systemctl --system daemon-reload >/dev/null || true
fi
if [ "$1" = remove ]; then
	if [ -x "/usr/bin/deb-systemd-helper" ]; then
		deb-systemd-helper mask setmatchd.service >/dev/null || true
	fi
fi
if [ "$1" = purge ]; then
	if [ -x "/usr/bin/deb-systemd-helper" ]; then
		deb-systemd-helper purge setmatchd.service >/dev/null || true
		deb-systemd-helper unmask setmatchd.service >/dev/null || true
	fi
fi
exit 0
