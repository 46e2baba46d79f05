#!/usr/bin/env bash
# demo.sh (make demo): the whole appliance on generated data, in about a
# minute, in a temporary directory that is removed afterwards.
#
#   1. take setmatch and setmatchd from $BIN (make demo: make build's
#      bin/), or build them into the temporary directory
#   2. setmatch synth --images: 5 classes × 5 sets × 16 frames of 128×96
#      PNG images (a texture per class)
#   3. hold out one set of each of the first 4 classes, and all of class 5
#      (never seen in training: it must come out "unknown")
#   4. setmatch train --features lbp:4x4@64x64 (the default threshold,
#      calibrated on stand-in strangers): chooses
#      the method by cross-validation on 4 classes × 4 sets (the default,
#      --method auto), records the feature pipeline in the model
#   5. setmatchd on a temporary spool with the "log" GPIO backend
#   6. feed image bursts the way a camera does, with scripts/camera-burst.sh
#      (frames written into tmp/NAME/, the directory renamed into new/): the
#      held-out sets, the unknown set, a burst with a truncated frame; and
#      one held-out set as a .npy feature matrix (setmatch features), the
#      other way in
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

if [ -n "${BIN:-}" ]; then
	step "binaries ($BIN/setmatch, $BIN/setmatchd)"
else
	# Built apart from bin/, which keeps what make build put there.
	BIN=$work/bin
	step "build ($BIN/setmatch, $BIN/setmatchd)"
	mkdir -p "$BIN"
	CGO_ENABLED=0 "$GO" build -o "$BIN/" ./cmd/setmatch ./cmd/setmatchd
fi
setmatch=$BIN/setmatch
setmatchd=$BIN/setmatchd

step "synthetic image sets: 5 classes × 5 sets × 16 frames of 128×96 pixels (PNG)"
"$setmatch" synth --images 128x96 --out "$work/data" --classes 5 --sets 5 --frames 16 --seed 7

# Hold-out: the last set of each of the first four classes, and the whole
# last class. Names come from the files, not from assumptions about them.
mkdir -p "$work/heldout"
classes=()
for d in "$work/data"/*/; do classes+=("$(basename "$d")"); done
[ ${#classes[@]} -eq 5 ] || fail "expected 5 class folders in $work/data, found ${#classes[@]}"
unknown_class=${classes[4]}
for c in "${classes[@]:0:4}"; do
	last=$(find "$work/data/$c" -mindepth 1 -maxdepth 1 -type d | sort | tail -n 1)
	mv "$last" "$work/heldout/$c-$(basename "$last")"
done
first_unknown=$(find "$work/data/$unknown_class" -mindepth 1 -maxdepth 1 -type d | sort | head -n 1)
mv "$first_unknown" "$work/heldout/unknown-$unknown_class"
rm -rf "${work:?}/data/$unknown_class"
echo "training on ${classes[*]:0:4} (4 sets each); held out: $(cd "$work/heldout" && echo *)"

step "train on the images: lbp:4x4@64x64 features (944 per frame), method chosen by cross-validation"
"$setmatch" train --data "$work/data" --features lbp:4x4@64x64 --out "$work/model.smm" 2>&1 |
	grep -v '^train: cross-validation [0-9]'
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
function num(k,   s) { s = field(k); return (s == "" || s == "null") ? "-" : sprintf("%.3g", s) }
function votes(   s) {
	if (!match($0, "\"votes\":\\[[^]]*\\]")) return ""
	s = substr($0, RSTART + 9, RLENGTH - 10)
	gsub(/"/, "", s)
	gsub(/,,/, ",-,", s) # a member not matched: the others decided
	sub(/,$/, ",-", s)
	return ", votes " s
}
{
	if (field("decision") == "failed")
		printf "  journal: %-18s FAILED   %s\n", field("file"), field("reason")
	else
		printf "  journal: %-18s %-8s best %s %s, runner-up %s %s, threshold %s%s, %d frames, %.1f ms\n",
			field("file"), field("decision"), field("best"), num("score"),
			field("runner_up"), num("runner_up_score"), num("threshold"), votes(), field("frames"), field("latency_ms")
}'
tail -n +1 -F --pid="$daemon_pid" "$journal" 2>/dev/null |
	while IFS= read -r line; do printf '%s\n' "$line" | awk "$pretty"; done &
watch_pids+=($!)
# Pin transitions of the log backend (the first ones: all pins idle at start).
tail -n +1 -F --pid="$daemon_pid" "$work/setmatchd.log" 2>/dev/null | grep --line-buffered 'msg=gpio' |
	sed -u 's/.*pin=\([^ ]*\) value=\([^ ]*\).*/  pin:     \1 -> \2/' &
watch_pids+=($!)
sleep 0.5

spool=$work/spool
# deliver FILE NAME: what a camera does. Create in tmp/, fsync, rename into new/.
deliver() {
	cp "$1" "$spool/tmp/$2"
	sync "$spool/tmp/$2"
	mv "$spool/tmp/$2" "$spool/new/$2"
}

# The camera: scripts/camera-burst.sh with a capture command that copies
# the frames of a set folder (FRAMES_FROM) instead of taking pictures.
cat >"$work/fake-camera" <<'EOF2'
#!/bin/sh
# fake-camera DIR N: "capture" the first N frames of $FRAMES_FROM into DIR.
ls "$FRAMES_FROM" | head -n "$2" | while read -r f; do cp "$FRAMES_FROM/$f" "$1/"; done
EOF2
chmod +x "$work/fake-camera"
burst() { # burst SETFOLDER NAME
	FRAMES_FROM=$1 CAPTURE=$work/fake-camera scripts/camera-burst.sh -s "$spool" -n 16 "$2" | sed 's/^/camera: /'
}

step "feed image bursts (frames into tmp/NAME/, then one rename into new/)"
n=0
for d in "$work/heldout"/*/; do
	name=$(basename "$d")
	burst "$d" "$name"
	n=$((n + 1))
	sleep 0.7
done
# A burst whose last frame was cut short (a full disk, a camera unplugged).
mkdir "$work/broken"
cp "$work/heldout/${classes[0]}"-*/* "$work/broken/"
last=$(find "$work/broken" -type f | sort | tail -n 1)
head -c 300 "$last" >"$last.cut" && mv "$last.cut" "$last"
burst "$work/broken" broken
n=$((n + 1))
sleep 0.7

step "the other way in: features computed upstream, sent as a .npy batch"
set1=$(find "$work/heldout" -mindepth 1 -maxdepth 1 -type d -name "${classes[1]}-*" | head -n 1)
"$setmatch" features --model "$work/model.smm" --out "$work/feats" "$set1" | sed 's|.*: |setmatch features: |'
deliver "$work/feats/$(basename "$set1").npy" "$(basename "$set1").npy"
echo "camera: $(basename "$set1").npy"
n=$((n + 1))

journal_lines() { [ -f "$journal" ] && [ "$(wc -l <"$journal")" -ge "$n" ]; }
settle 30 journal_lines || fail "journal has $(wc -l <"$journal" 2>/dev/null || echo 0) lines after 30 s, want $n"
sleep 0.5 # let the last pulse end and the watchers print

step "spool afterwards"
for d in new cur done failed; do
	printf '  %-7s %s\n' "$d/" "$(cd "$spool/$d" && ls -p | tr '\n' ' ')"
done
for e in "$spool"/failed/.reasons/*; do
	[ -e "$e" ] && echo "  failed/$(basename "$e"): $(cat "$e")"
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
done_files=$(find "$spool/done" -mindepth 1 -maxdepth 1 | wc -l)
failed=$(find "$spool/failed" -mindepth 1 -maxdepth 1 ! -name '.*' | wc -l)
right=0
for c in "${classes[@]:0:4}"; do
	grep -q "\"file\":\"$c-[^\".]*\",.*\"decision\":\"$c\"" "$journal" && right=$((right + 1))
done
rejected=no
grep -q "\"file\":\"unknown-[^\"]*\",.*\"decision\":\"unknown\"" "$journal" && rejected=yes
step "summary"
echo "  journal lines $lines (want $n), done/ $done_files, failed/ $failed (want 1)"
echo "  held-out bursts of known classes recognised: $right of 4; unknown class rejected: $rejected"
[ "$status" -eq 0 ] || fail "setmatchd exited with status $status, want 0"
[ "$lines" -eq "$n" ] || fail "journal has $lines lines, want $n"
[ "$failed" -eq 1 ] || fail "failed/ holds $failed batches, want 1"
[ "$done_files" -eq $((n - 1)) ] || fail "done/ holds $done_files batches, want $((n - 1))"
echo "demo ok"
