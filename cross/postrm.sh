#!/bin/sh
# setmatch postrm: forget the unit. The user, the spool and the state
# (model, journal) are left in place, also on purge: they hold data.
set -e
if [ -d /run/systemd/system ]; then
	systemctl daemon-reload || true
fi
exit 0
