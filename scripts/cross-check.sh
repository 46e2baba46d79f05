#!/usr/bin/env bash
# cross-check.sh DIR CMD...: checks that the linux/$GOARCH binaries in DIR
# (arm64 unless GOARCH says; built by `make cross`) are static and
# reproducible: each command is built
# again from a copy of the source tree at another path with an empty build
# cache, and the sha256 sums must be equal.
set -euo pipefail
GO=${GO:-go}
GOARCH=${GOARCH:-arm64}
LDFLAGS=${LDFLAGS:--s -w -buildid=}
dir=$1
shift
repo=$(pwd)

work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$work/src" "$work/cache" "$work/out"
# The tree without build output and VCS data, at a different path.
tar -C "$repo" --exclude=./bin --exclude=./dist --exclude=./.git -cf - . | tar -C "$work/src" -xf -

echo "rebuilding $* in $work/src with an empty GOCACHE (takes a minute or two)"
(cd "$work/src" && GOCACHE="$work/cache" CGO_ENABLED=0 GOOS=linux GOARCH="$GOARCH" \
	"$GO" build -trimpath -buildvcs=false -ldflags "$LDFLAGS" -o "$work/out/" $(printf './cmd/%s ' "$@"))

status=0
for c in "$@"; do
	a=$(sha256sum <"$dir/$c" | cut -d' ' -f1)
	b=$(sha256sum <"$work/out/$c" | cut -d' ' -f1)
	if [ "$a" = "$b" ]; then
		echo "reproducible: $c $a"
	else
		echo "NOT reproducible: $c: $a (make cross) vs $b (rebuild)" >&2
		status=1
	fi
	# A static binary has no program interpreter (no PT_INTERP / .interp).
	if LC_ALL=C grep -q -a '/ld-linux' "$dir/$c"; then
		echo "$c names a dynamic loader: not static (CGO_ENABLED=0?)" >&2
		status=1
	fi
	if command -v file >/dev/null; then file "$dir/$c"; fi
done
exit $status
