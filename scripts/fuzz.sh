#!/usr/bin/env bash
# fuzz.sh: runs every fuzz target of the module for FUZZTIME each (default
# 10s). Go fuzzes one target per invocation, so this lists them first.
set -euo pipefail
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-10s}
found=0
for pkg in $("$GO" list ./...); do
	for f in $("$GO" test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true); do
		found=1
		echo "== $pkg $f ($FUZZTIME)"
		"$GO" test -run '^$' -fuzz "^$f\$" -fuzztime "$FUZZTIME" "$pkg"
	done
done
[ $found -eq 1 ] || echo "no fuzz targets found"
