#!/bin/sh
# setmatch postinst: create the user, groups, spool and state directories,
# tell systemd and udev about the new files. The service is not enabled or
# started on a first install: it needs a model (see
# /usr/share/doc/setmatch/APPLIANCE.md). systemd is handled as debhelper's
# dh_installsystemd --no-enable --no-start would: deb-systemd-helper keeps
# the unit's enablement state across upgrades, deb-systemd-invoke restarts a
# running daemon on upgrade.
set -e

case "$1" in
configure | abort-upgrade | abort-remove | abort-deconfigure) ;;
*) exit 0 ;;
esac

# By name, as debhelper's snippets do, so that DPKG_ROOT (an image being
# built) finds them under that root.
if command -v systemd-sysusers >/dev/null 2>&1; then
	systemd-sysusers ${DPKG_ROOT:+--root="$DPKG_ROOT"} setmatch.conf
fi
# Not fatal, as in debhelper's snippet: where it cannot run (a chroot without
# /proc, an image being built) systemd-tmpfiles-setup.service creates the
# directories at the next boot, and StateDirectory= /var/lib/setmatch.
if command -v systemd-tmpfiles >/dev/null 2>&1; then
	systemd-tmpfiles ${DPKG_ROOT:+--root="$DPKG_ROOT"} --create setmatch.conf ||
		echo "setmatch: systemd-tmpfiles could not create the spool and state directories; systemd creates them at the next boot (or run: systemd-tmpfiles --create setmatch.conf)" >&2
fi
# Under DPKG_ROOT (an image being built) udevadm would reload and trigger
# the running host's udev, not the image's: the image's udev reads the rules
# at its boot.
if [ -z "${DPKG_ROOT:-}" ] && [ -d /run/udev ] && command -v udevadm >/dev/null 2>&1; then
	udevadm control --reload-rules || true
	udevadm trigger --subsystem-match=gpio --action=change || true
fi

if command -v deb-systemd-helper >/dev/null 2>&1; then
	if deb-systemd-helper debian-installed setmatchd.service; then
		# Undo the mask postrm sets on remove.
		deb-systemd-helper unmask setmatchd.service >/dev/null || true
		if deb-systemd-helper --quiet was-enabled setmatchd.service; then
			# Create new symlinks, if any.
			deb-systemd-helper enable setmatchd.service >/dev/null || true
		fi
	fi
	# Record the symlinks an enable would make, so that purge removes them.
	deb-systemd-helper update-state setmatchd.service >/dev/null || true
fi
if [ -z "${DPKG_ROOT:-}" ] && [ -d /run/systemd/system ]; then
	systemctl --system daemon-reload >/dev/null || true
	# On upgrade, restart a running daemon on the new binary.
	if [ -n "$2" ] && command -v deb-systemd-invoke >/dev/null 2>&1; then
		deb-systemd-invoke try-restart setmatchd.service >/dev/null || true
	fi
fi

if [ -z "$2" ]; then
	echo "setmatch: put a model at /var/lib/setmatch/model.smm, check /etc/setmatch/setmatchd.toml"
	echo "setmatch: with 'sudo -u setmatch setmatchd -check', then: systemctl enable --now setmatchd"
fi
exit 0
