package bench

import (
	"fmt"
	"os"
	"runtime"
	"strings"
)

// Machine describes this machine as a sweep's records keep it: "AMD
// EPYC, amd64, 2 CPUs".
func Machine() string {
	return fmt.Sprintf("%s, %s, %d CPUs", CPUModel(), runtime.GOARCH, runtime.NumCPU())
}

// CPUModel returns the CPU's model name on Linux, or "unknown".
func CPUModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
