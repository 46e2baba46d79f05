package mqtt

import (
	"context"
	"testing"
	"time"

	"setmatch/device/mqtt/mqtttest"
	"setmatch/internal/testexec"
)

// The tests run against Debian's mosquitto (mqtttest): their own on the
// host, the brokers of scripts/mosquitto-test.sh under qemu-user.
const (
	envBroker    = mqtttest.EnvBroker
	testUser     = mqtttest.User
	testPassword = mqtttest.Password
)

var (
	emulated  = testexec.Emulated
	subscribe = mqtttest.Subscribe
	wait      = mqtttest.Wait
)

// syncBuffer is a bytes.Buffer safe for concurrent writes.
type syncBuffer = mqtttest.SyncBuffer

// eventually polls cond every 10ms until it holds or ctx ends; then it
// fails t with what.
func eventually(ctx context.Context, t *testing.T, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting until %s", what)
		case <-time.After(10 * time.Millisecond):
		}
	}
}
