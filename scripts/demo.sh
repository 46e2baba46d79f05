#!/usr/bin/env bash
# demo.sh (make demo): the whole appliance on generated data, in about a
# minute, in a temporary directory that is removed afterwards.
#
#   1. build setmatch and setmatchd into bin/
#   2. setmatch synth: 5 classes × 5 sets × 40 frames × 32 features
#   3. hold out one set of each of the first 4 classes, and all of class 5
#      (never seen in training: it must come out "unknown")
#   4. setmatch train: W (32×4) on the remaining 4 classes × 4 sets
#   5. setmatchd on a temporary spool with the "log" GPIO backend
#   6. feed batches the way a camera does (write into tmp/, fsync, rename
#      into new/): the held-out sets, the unknown set and a malformed file
#   7. print each decision from the journal as it is written, and the pins
#   8. SIGTERM: the daemon drives the pins idle and exits 0
#
# Set KEEP=1 to keep the temporary directory for a look afterwards.
set -euo pipefail

GO=${GO:-go}
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

work=$(mktemp -d "${TMPDIR:-/tmp}/setmatch-demo.XXXXXX")
daemon_pid=
watch_pids=()
cleanup() {
	if [ -n "$daemon_pid" ] && kill -0 "$daemon_pid" 2>/dev/null; then
		kill -TERM "$daemon_pid" 2>/dev/null || true
		wait "$daemon_pid" 2>/dev/null || true
	fi
	for p in "${watch_pids[@]}"; do kill "$p" 2>/dev/null || true; done
	if [ "${KEEP:-0}" = 1 ]; then
		echo "kept $work"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT

if [ -t 1 ]; then
	step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
else
	step() { printf '\n== %s\n' "$*"; }
fi
fail() {
	echo "demo: $*" >&2
	[ -f "$work/setmatchd.log" ] && { echo "--- setmatchd log:" >&2; cat "$work/setmatchd.log" >&2; }
	exit 1
}
# settle N CMD...: wait up to N seconds for CMD to succeed.
settle() {
	local n=$(($1 * 10))
	shift
	while ! "$@"; do
		n=$((n - 1))
		[ $n -gt 0 ] || return 1
		sleep 0.1
	done
}

step "build (bin/setmatch, bin/setmatchd)"
mkdir -p bin
"$GO" build -o bin/ ./cmd/setmatch ./cmd/setmatchd
setmatch=$repo/bin/setmatch
setmatchd=$repo/bin/setmatchd

step "synthetic data: 5 classes × 5 sets × 40 frames × 32 features"
"$setmatch" synth --out "$work/data" --classes 5 --sets 5 --frames 40 --dim 32 --seed 7

# Hold-out: the last set of each of the first four classes, and the whole
# last class. Names come from the files, not from assumptions about them.
mkdir -p "$work/heldout"
classes=()
for d in "$work/data"/*/; do classes+=("$(basename "$d")"); done
[ ${#classes[@]} -eq 5 ] || fail "expected 5 class folders in $work/data, found ${#classes[@]}"
unknown_class=${classes[4]}
for c in "${classes[@]:0:4}"; do
	last=$(find "$work/data/$c" -name '*.npy' | sort | tail -n 1)
	mv "$last" "$work/heldout/$c-$(basename "$last")"
done
first_unknown=$(find "$work/data/$unknown_class" -name '*.npy' | sort | head -n 1)
mv "$first_unknown" "$work/heldout/unknown-$unknown_class.npy"
rm -rf "${work:?}/data/$unknown_class"
echo "training on ${classes[*]:0:4} (4 sets each); held out: $(cd "$work/heldout" && echo *)"

step "train: W is 32×4, Hellinger divergence, open-set threshold from the training sets"
"$setmatch" train --data "$work/data" --dim 4 --divergence hellinger --max-iter 30 \
	--threshold auto --out "$work/model.smm" 2>&1 | grep -v '^iter '
"$setmatch" inspect "$work/model.smm" 2>/dev/null | head -n 11 || true

step "configure setmatchd (temporary spool, log GPIO backend)"
cat >"$work/setmatchd.toml" <<EOF
# Paths are relative to this file's folder.
model = "model.smm"

[spool]
dir = "spool"
rescan_interval = "1s"

[journal]
path = "journal.jsonl"

[gpio]
backend = "log"
match_pin = "GPIO17"
unknown_pin = "GPIO27"
pulse = "100ms"

[gpio.label_pins]
${classes[0]} = "GPIO22"
${classes[1]} = "GPIO23"

[log]
level = "info"
format = "text"
EOF
sed 's/^/    /' "$work/setmatchd.toml"
"$setmatchd" -config "$work/setmatchd.toml" -check

step "start setmatchd"
# The demo runs in a scratch folder as whoever runs it, root included.
allow_root=
[ "$(id -u)" = 0 ] && allow_root=-allow-root
"$setmatchd" -config "$work/setmatchd.toml" $allow_root 2>"$work/setmatchd.log" &
daemon_pid=$!
settle 10 grep -qs 'msg=starting' "$work/setmatchd.log" || fail "setmatchd did not start within 10 s"
echo "setmatchd running, pid $daemon_pid"

# Decisions as they are written: one journal line per batch, pretty-printed
# by awk one line at a time (mawk reads a pipe in blocks). The watchers end
# with the daemon (tail --pid).
journal=$work/journal.jsonl
pretty='
function field(k,   s) {
	if (!match($0, "\"" k "\":(\"[^\"]*\"|[^,}]*)")) return ""
	s = substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3)
	gsub(/^"|"$/, "", s)
	gsub(/\\\\/, "\\", s) # JSON escapes a backslash as two
	return s
}
function num(k,   s) { s = field(k); return (s == "" || s == "null") ? "-" : sprintf("%.3f", s) }
{
	if (field("decision") == "failed")
		printf "  journal: %-18s FAILED   %s\n", field("file"), field("reason")
	else
		printf "  journal: %-18s %-8s best %s %s, runner-up %s %s, threshold %s, %d frames, %.1f ms\n",
			field("file"), field("decision"), field("best"), num("score"),
			field("runner_up"), num("runner_up_score"), num("threshold"), field("frames"), field("latency_ms")
}'
tail -n +1 -F --pid="$daemon_pid" "$journal" 2>/dev/null |
	while IFS= read -r line; do printf '%s\n' "$line" | awk "$pretty"; done &
watch_pids+=($!)
# Pin transitions of the log backend (the first ones: all pins idle at start).
tail -n +1 -F --pid="$daemon_pid" "$work/setmatchd.log" 2>/dev/null | grep --line-buffered 'msg=gpio' |
	sed -u 's/.*pin=\([^ ]*\) level=\([^ ]*\).*/  pin:     \1 -> \2/' &
watch_pids+=($!)
sleep 0.5

spool=$work/spool
# deliver FILE NAME: what a camera does. Create in tmp/, fsync, rename into new/.
deliver() {
	cp "$1" "$spool/tmp/$2"
	sync "$spool/tmp/$2"
	mv "$spool/tmp/$2" "$spool/new/$2"
}

step "feed batches (tmp/ -> fsync -> rename into new/)"
n=0
for f in "$work/heldout"/*.npy; do
	name=$(basename "$f")
	echo "camera: $name"
	deliver "$f" "$name"
	n=$((n + 1))
	sleep 0.7
done
echo "camera: broken.npy (not a NumPy file)"
printf 'these bytes are not a .npy file\n' >"$work/broken.npy"
deliver "$work/broken.npy" broken.npy
n=$((n + 1))

journal_lines() { [ -f "$journal" ] && [ "$(wc -l <"$journal")" -ge "$n" ]; }
settle 30 journal_lines || fail "journal has $(wc -l <"$journal" 2>/dev/null || echo 0) lines after 30 s, want $n"
sleep 0.5 # let the last pulse end and the watchers print

step "spool afterwards"
for d in new cur done failed; do
	printf '  %-7s %s\n' "$d/" "$(cd "$spool/$d" && ls | tr '\n' ' ')"
done
for e in "$spool"/failed/*.err; do
	[ -e "$e" ] && echo "  $(basename "$e"): $(cat "$e")"
done

step "stop setmatchd (SIGTERM)"
kill -TERM "$daemon_pid"
status=0
wait "$daemon_pid" || status=$?
daemon_pid=
grep -E 'msg=(stopping|stopped)' "$work/setmatchd.log" | sed 's/^/  /' || true
echo "setmatchd exited with status $status"

# Summary: plumbing problems fail the demo; recognition is reported.
lines=$(wc -l <"$journal")
done_files=$(find "$spool/done" -type f | wc -l)
failed=$(find "$spool/failed" -type f ! -name '*.err' | wc -l)
right=0
for c in "${classes[@]:0:4}"; do
	grep -q "\"file\":\"$c-[^\"]*\",.*\"decision\":\"$c\"" "$journal" && right=$((right + 1))
done
rejected=no
grep -q "\"file\":\"unknown-[^\"]*\",.*\"decision\":\"unknown\"" "$journal" && rejected=yes
step "summary"
echo "  journal lines $lines (want $n), done/ $done_files, failed/ $failed (want 1)"
echo "  held-out sets of known classes recognised: $right of 4; unknown class rejected: $rejected"
[ "$status" -eq 0 ] || fail "setmatchd exited with status $status, want 0"
[ "$lines" -eq "$n" ] || fail "journal has $lines lines, want $n"
[ "$failed" -eq 1 ] || fail "failed/ holds $failed batches, want 1"
[ "$done_files" -eq $((n - 1)) ] || fail "done/ holds $done_files batches, want $((n - 1))"
echo "demo ok"
