//go:build !unix

package features

import (
	"testing"
	"time"
)

func mkfifo(t *testing.T, path string) { t.Skip("no named pipes on this system") }

func cpuTime() time.Duration { return 0 }
