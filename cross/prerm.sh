#!/bin/sh
# setmatch prerm: stop the daemon before its files go away (not on upgrade:
# postinst restarts it). As debhelper's dh_installsystemd does it.
set -e
if [ -z "${DPKG_ROOT:-}" ] && [ "$1" = remove ] && [ -d /run/systemd/system ]; then
	if command -v deb-systemd-invoke >/dev/null 2>&1; then
		deb-systemd-invoke stop setmatchd.service >/dev/null || true
	fi
fi
exit 0
