#!/usr/bin/env bash
# camera-burst.sh: capture one burst of camera frames and hand it to
# setmatchd, as docs/FORMATS.md ("Image bursts") asks: the frames are
# written into SPOOL/tmp/NAME/ and the complete directory is renamed into
# SPOOL/new/NAME in one rename().
#
#   camera-burst.sh [-s SPOOL] [-n FRAMES] [NAME]
#
#   -s SPOOL   the spool directory (default $SETMATCH_SPOOL or /var/spool/setmatch)
#   -n FRAMES  frames per burst (default $FRAMES or 16)
#   NAME       the burst's name (default burst-<UTC time>-<pid>)
#
# The capture command is $CAPTURE, run as `$CAPTURE DIR N`: it must write N
# frame images (PNG, JPEG or PGM) into DIR. Without $CAPTURE, rpicam-still
# (Raspberry Pi camera) is used if installed, else ffmpeg on /dev/video0
# ($VIDEO), both at $SIZE (default 640x480) and in JPEG.
# Prints new/NAME when the burst is in the spool.
set -euo pipefail

spool=${SETMATCH_SPOOL:-/var/spool/setmatch}
frames=${FRAMES:-16}
size=${SIZE:-640x480}
video=${VIDEO:-/dev/video0}
usage() {
	cat <<'EOF'
usage: camera-burst.sh [-s SPOOL] [-n FRAMES] [NAME]

Captures one burst of FRAMES frames into SPOOL/tmp/NAME/ and renames it
into SPOOL/new/NAME, where setmatchd takes it.

  -s SPOOL   the spool directory (default $SETMATCH_SPOOL or /var/spool/setmatch)
  -n FRAMES  frames per burst (default $FRAMES or 16)
  NAME       the burst's name (default burst-<UTC time>-<pid>)

The capture command is $CAPTURE, run as `$CAPTURE DIR N`: it must write N
frame images (PNG, JPEG or PGM) into DIR. Without $CAPTURE, rpicam-still
is used if installed, else ffmpeg on /dev/video0 ($VIDEO), both at $SIZE
(default 640x480) and in JPEG.
EOF
}
while getopts s:n:h opt; do
	case $opt in
	s) spool=$OPTARG ;;
	n) frames=$OPTARG ;;
	h) usage; exit 0 ;;
	*) echo "usage: camera-burst.sh [-s SPOOL] [-n FRAMES] [NAME] (-h: help)" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
name=${1:-burst-$(date -u +%Y%m%dT%H%M%SZ)-$$}
case $name in
'' | .* | */* | *.tmp) echo "camera-burst.sh: bad burst name '$name' (no /, no leading dot, no .tmp)" >&2; exit 2 ;;
esac
case $frames in
'' | *[!0-9]* | 0) echo "camera-burst.sh: -n wants a number of frames ≥ 1, got '$frames'" >&2; exit 2 ;;
esac

# capture DIR N: the default capture command.
capture() {
	local w=${size%x*} h=${size#*x}
	if command -v rpicam-still >/dev/null; then
		# One frame every 100 ms; --timeout bounds the whole burst.
		rpicam-still -n --width "$w" --height "$h" --encoding jpg --quality 90 \
			--timelapse 100 --timeout $(($2 * 100 + 50)) --framestart 1 -o "$1/frame-%04d.jpg"
	elif command -v ffmpeg >/dev/null; then
		ffmpeg -nostdin -hide_banner -loglevel error -f v4l2 -video_size "$size" -i "$video" \
			-frames:v "$2" -q:v 3 "$1/frame-%04d.jpg"
	else
		echo "camera-burst.sh: neither rpicam-still nor ffmpeg found: install one, or set CAPTURE" >&2
		return 1
	fi
}

tmp=$spool/tmp/$name
if [ -d "$spool" ] && [ ! -x "$spool" ]; then
	echo "camera-burst.sh: $spool: permission denied: the camera's user must be in the spool's group ($(stat -c %G "$spool" 2>/dev/null)): sudo usermod -aG $(stat -c %G "$spool" 2>/dev/null) $(id -un), then log in again" >&2
	exit 1
fi
[ -d "$spool/tmp" ] && [ -d "$spool/new" ] || { echo "camera-burst.sh: $spool is not a setmatchd spool (no tmp/ or new/)" >&2; exit 1; }
[ -w "$spool/tmp" ] && [ -w "$spool/new" ] || { echo "camera-burst.sh: $spool/tmp or $spool/new is not writable by $(id -un): add the user to the spool's group ($(stat -c %G "$spool/new" 2>/dev/null)) and log in again" >&2; exit 1; }
[ ! -e "$tmp" ] && [ ! -e "$spool/new/$name" ] || { echo "camera-burst.sh: a burst named $name exists already" >&2; exit 1; }
# Group-writable whatever the umask: setmatchd, another user of the spool's
# group, moves the burst out of new/, and moving a directory takes write
# permission on the directory itself.
mkdir -m 2770 "$tmp"
# A capture that fails leaves nothing behind in tmp/.
trap 'rm -rf "$tmp"' EXIT
# A failed capture is said, also of a command that fails without a word.
if [ -n "${CAPTURE:-}" ]; then
	# shellcheck disable=SC2086 # CAPTURE may hold a command with arguments
	$CAPTURE "$tmp" "$frames" || { rc=$?; echo "camera-burst.sh: the capture failed (CAPTURE=$CAPTURE, exit $rc): nothing was sent to the spool" >&2; exit "$rc"; }
else
	capture "$tmp" "$frames" || { rc=$?; echo "camera-burst.sh: the capture failed (exit $rc): nothing was sent to the spool" >&2; exit "$rc"; }
fi
n=$(find "$tmp" -mindepth 1 -maxdepth 1 | wc -l)
[ "$n" -ge 1 ] || { echo "camera-burst.sh: the capture wrote no frame" >&2; exit 1; }
# The frames reach the disk before the burst is announced.
sync "$tmp"/* "$tmp" 2>/dev/null || sync
mv -T "$tmp" "$spool/new/$name"
trap - EXIT
echo "new/$name ($n frames)"
