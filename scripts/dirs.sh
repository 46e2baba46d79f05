#!/usr/bin/env bash
# dirs.sh: the arguments of the scripts that run on the benchmarks,
# sourced by results.sh:
#
#   . "$(dirname "$0")/dirs.sh" DEFAULT_OUT "$@"; shift "$shifted"
#
# The first argument must be the data folder (else the script's leading
# comment is printed as its help and it exits with 2), the second, if any,
# the output folder (default DEFAULT_OUT, created). It sets data, out and
# repo to absolute paths, and shifted to how many arguments it used.
default_out=$1
shift
if [ $# -lt 1 ] || [ ! -d "$1" ]; then
	sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0" >&2
	echo "$(basename "$0"): want the data folder as the first argument" >&2
	exit 2
fi
data=$(cd "$1" && pwd)
out=${2:-$default_out}
shifted=$(( $# >= 2 ? 2 : 1 ))
mkdir -p "$out"
out=$(cd "$out" && pwd)
repo=$(cd "$(dirname "$0")/.." && pwd)
