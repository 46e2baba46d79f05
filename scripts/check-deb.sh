#!/usr/bin/env bash
# check-deb.sh PACKAGE.deb: checks that the package holds the files the
# appliance needs, with the right modes, the configuration as a conffile and
# the maintainer scripts. Called by `make deb`.
set -euo pipefail
deb=$1
command -v dpkg-deb >/dev/null || { echo "dpkg-deb not found (apt-get install -y dpkg): cannot check $deb" >&2; exit 1; }

list=$(dpkg-deb -c "$deb")
status=0
want() { # want MODE PATH
	if ! grep -qE "^$1 .* \\./${2#/}\$" <<<"$list"; then
		echo "$deb: missing $2 with mode $1" >&2
		status=1
	fi
}
want -rwxr-xr-x /usr/bin/setmatchd
want -rwxr-xr-x /usr/bin/setmatch
want -rw-r--r-- /usr/lib/systemd/system/setmatchd.service
want -rw-r--r-- /usr/lib/sysusers.d/setmatch.conf
want -rw-r--r-- /usr/lib/tmpfiles.d/setmatch.conf
want -rw-r--r-- /usr/lib/udev/rules.d/60-setmatch-gpio.rules
want -rw-r--r-- /etc/setmatch/setmatchd.toml
want drwxr-xr-x /etc/setmatch/conf.d/
want -rw-r--r-- /usr/share/doc/setmatch/APPLIANCE.md
want -rw-r--r-- /usr/share/doc/setmatch/FORMATS.md
want -rw-r--r-- /usr/share/doc/setmatch/examples/camera-burst.sh
want -rw-r--r-- /usr/share/doc/setmatch/copyright
want -rw-r--r-- /usr/share/doc/setmatch/setmatchd-network.conf.example
want -rw-r--r-- /usr/share/doc/setmatch/changelog.gz
want -rw-r--r-- /usr/share/man/man1/setmatch.1.gz
want -rw-r--r-- /usr/share/man/man8/setmatchd.8.gz
want -rw-r--r-- /usr/share/lintian/overrides/setmatch

ctl=$(mktemp -d)
trap 'rm -rf "$ctl"' EXIT
dpkg-deb -e "$deb" "$ctl"
if ! grep -qx /etc/setmatch/setmatchd.toml "$ctl/conffiles"; then
	echo "$deb: /etc/setmatch/setmatchd.toml is not a conffile" >&2
	status=1
fi
for s in postinst prerm postrm; do
	[ -x "$ctl/$s" ] || { echo "$deb: no executable $s" >&2; status=1; }
done
arch=$(dpkg-deb -f "$deb" Architecture)
echo "$deb: $(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version) $arch, $(stat -c %s "$deb") bytes"
echo "$list"
[ $status -eq 0 ] && echo "$deb: contents ok"
exit $status
