package mqtt

import (
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
