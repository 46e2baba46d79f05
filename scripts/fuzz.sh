#!/usr/bin/env bash
# fuzz.sh (make fuzz): runs every fuzz target of the module for FUZZTIME
# each (default 10s). Go fuzzes one target per invocation, so the targets
# are listed first. Go also spends up to FUZZMINIMIZETIME (default 5s,
# Go's own is 60s) shrinking each new input it finds, during which a
# short run looks stalled.
set -euo pipefail
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-10s}
FUZZMINIMIZETIME=${FUZZMINIMIZETIME:-5s}
# A package whose tests do not build is reported by go test and skipped here.
targets=$({ "$GO" test -list '^Fuzz' ./... || true; } |
	awk '/^Fuzz/ { f[n++] = $1; next } /^ok/ { for (i = 0; i < n; i++) print $2, f[i]; n = 0 }')
if [ -z "$targets" ]; then
	echo "no fuzz targets found"
	exit 0
fi
while read -r pkg fn; do
	echo "== $pkg $fn ($FUZZTIME)"
	"$GO" test -run '^$' -fuzz "^$fn\$" -fuzztime "$FUZZTIME" -fuzzminimizetime "$FUZZMINIMIZETIME" "$pkg"
done <<<"$targets"
