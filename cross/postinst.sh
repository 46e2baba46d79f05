#!/bin/sh
# setmatch postinst: create the user, groups, spool and state directories,
# tell systemd and udev about the new files. The service is not started:
# it needs a model (see /usr/share/doc/setmatch/APPLIANCE.md).
set -e

case "$1" in
configure | abort-upgrade | abort-remove | abort-deconfigure) ;;
*) exit 0 ;;
esac

if command -v systemd-sysusers >/dev/null 2>&1; then
	systemd-sysusers /usr/lib/sysusers.d/setmatch.conf
fi
if command -v systemd-tmpfiles >/dev/null 2>&1; then
	systemd-tmpfiles --create /usr/lib/tmpfiles.d/setmatch.conf
fi
if [ -d /run/udev ] && command -v udevadm >/dev/null 2>&1; then
	udevadm control --reload-rules || true
	udevadm trigger --subsystem-match=gpio --action=change || true
fi
if [ -d /run/systemd/system ]; then
	systemctl daemon-reload || true
	# On upgrade, restart a running daemon on the new binary.
	if [ -n "$2" ]; then
		systemctl try-restart setmatchd.service || true
	fi
fi
if [ -z "$2" ]; then
	echo "setmatch: put a model at /var/lib/setmatch/model.smm, check /etc/setmatch/setmatchd.toml"
	echo "setmatch: with 'sudo -u setmatch setmatchd -check', then: systemctl enable --now setmatchd"
fi
exit 0
