#!/bin/sh
# setmatch prerm: stop the daemon before its files go away (not on upgrade:
# postinst restarts it).
set -e
if [ "$1" = remove ] && [ -d /run/systemd/system ]; then
	systemctl disable --now setmatchd.service || true
fi
exit 0
