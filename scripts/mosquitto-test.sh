#!/usr/bin/env bash
# mosquitto-test.sh CMD [ARG...]: run CMD with two mosquitto brokers on free
# loopback ports, named by the variables the MQTT tests read:
#
#   SETMATCH_TEST_MQTT_BROKER       tcp://127.0.0.1:PORT, anyone may connect
#   SETMATCH_TEST_MQTT_AUTH_BROKER  tcp://127.0.0.1:PORT, allow_anonymous false,
#                                   user setmatch-test, password right-password
#
# The brokers are stopped when CMD ends; the exit status is CMD's. The
# emulated test run needs this (make test-arm64): a test binary running
# under qemu-user cannot start mosquitto itself.
set -euo pipefail

[ $# -gt 0 ] || { echo "usage: $0 CMD [ARG...]" >&2; exit 2; }
MOSQUITTO=${MOSQUITTO:-$(command -v mosquitto || echo /usr/sbin/mosquitto)}
[ -x "$MOSQUITTO" ] || { echo "$0: mosquitto not found: apt-get install -y mosquitto mosquitto-clients" >&2; exit 1; }
command -v mosquitto_passwd >/dev/null || { echo "$0: mosquitto_passwd not found: apt-get install -y mosquitto" >&2; exit 1; }

dir=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$dir"
}
trap cleanup EXIT

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# start NAME EXTRA-CONFIG: start a broker, print its port.
start() {
	local name=$1 extra=$2 port pid
	for _ in 1 2 3 4 5; do
		port=$((20000 + RANDOM % 40000))
		listening "$port" && continue
		{
			echo "listener $port 127.0.0.1"
			echo "persistence false"
			echo "log_dest stderr"
			echo "log_type error"
			echo "log_type warning"
			[ "$(id -u)" -ne 0 ] || echo "user root"
			printf '%b' "$extra"
		} >"$dir/$name.conf"
		"$MOSQUITTO" -c "$dir/$name.conf" >"$dir/$name.log" 2>&1 &
		pid=$!
		for _ in $(seq 100); do
			if listening "$port"; then
				pids+=("$pid")
				echo "$port"
				return 0
			fi
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.05
		done
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	echo "$0: could not start mosquitto ($name):" >&2
	cat "$dir/$name.log" >&2
	return 1
}

mosquitto_passwd -b -c "$dir/passwd" setmatch-test right-password
# Not in a $(…): the broker must be a child of this shell, for cleanup.
start anon 'allow_anonymous true\n' >"$dir/anon.port"
start auth "allow_anonymous false\npassword_file $dir/passwd\n" >"$dir/auth.port"
export SETMATCH_TEST_MQTT_BROKER="tcp://127.0.0.1:$(cat "$dir/anon.port")"
export SETMATCH_TEST_MQTT_AUTH_BROKER="tcp://127.0.0.1:$(cat "$dir/auth.port")"
echo "mosquitto: $SETMATCH_TEST_MQTT_BROKER (anonymous), $SETMATCH_TEST_MQTT_AUTH_BROKER (password)" >&2

set +e
"$@"
status=$?
set -e
exit $status
