package memlimit

import (
	"os"
	"path/filepath"
	"testing"
)

// writeRoot makes a fake root with the given files (path → contents).
func writeRoot(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestMemoryLimit(t *testing.T) {
	const meminfo = "MemFree:         1000 kB\nMemTotal:       8000000 kB\nSwapTotal: 0 kB\n"
	const gib = 1 << 30
	for _, c := range []struct {
		name  string
		files map[string]string
		env   string
		want  int64
	}{
		{"machine only", map[string]string{"proc/meminfo": meminfo}, "", 8000000 << 10 * 3 / 4},
		{"GOMEMLIMIT set", map[string]string{"proc/meminfo": meminfo}, "2GiB", 0},
		{"cgroup v2 below the machine", map[string]string{
			"proc/meminfo":     meminfo,
			"proc/self/cgroup": "0::/system.slice/x.service\n",
			"sys/fs/cgroup/system.slice/x.service/memory.max": "2147483648\n",
		}, "", 2 * gib * 3 / 4},
		{"cgroup v2 unlimited", map[string]string{
			"proc/meminfo":                        meminfo,
			"proc/self/cgroup":                    "0::/user.slice\n",
			"sys/fs/cgroup/user.slice/memory.max": "max\n",
		}, "", 8000000 << 10 * 3 / 4},
		{"container: own path not mounted, root memory.max", map[string]string{
			"proc/meminfo":             meminfo,
			"proc/self/cgroup":         "0::/docker/abc\n",
			"sys/fs/cgroup/memory.max": "4294967296",
		}, "", 4 * gib * 3 / 4},
		{"cgroup v1", map[string]string{
			"proc/meminfo": meminfo,
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "1073741824\n",
		}, "", gib * 3 / 4},
		{"cgroup v1, own path", map[string]string{
			"proc/meminfo":     meminfo,
			"proc/self/cgroup": "9:name=systemd:/\n4:memory:/api/42\n0::/\n",
			"sys/fs/cgroup/memory/api/42/memory.limit_in_bytes": "3221225472\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes":        "9223372036854771712\n",
		}, "", 3 * gib * 3 / 4},
		{"cgroup v1 unlimited", map[string]string{
			"proc/meminfo": meminfo,
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n",
		}, "", 8000000 << 10 * 3 / 4},
		{"cgroup above the machine", map[string]string{
			"proc/meminfo":             meminfo,
			"sys/fs/cgroup/memory.max": "99999999999999",
		}, "", 8000000 << 10 * 3 / 4},
		{"cgroup, no meminfo", map[string]string{
			"sys/fs/cgroup/memory.max": "2147483648\n",
		}, "", 2 * gib * 3 / 4},
		{"cgroup v1 unlimited, no meminfo", map[string]string{
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n",
		}, "", 0},
		{"cgroup v2 at 2^62, no meminfo", map[string]string{
			"sys/fs/cgroup/memory.max": "4611686018427387904\n",
		}, "", 0},
		{"MemTotal not in kB, cgroup", map[string]string{
			"proc/meminfo":             "MemTotal:       8000000 MB\n",
			"sys/fs/cgroup/memory.max": "2147483648\n",
		}, "", 2 * gib * 3 / 4},
		{"MemTotal not in kB", map[string]string{"proc/meminfo": "MemTotal:       8000000 MB\n"}, "", 0},
		{"negative MemTotal, cgroup", map[string]string{
			"proc/meminfo":             "MemTotal:       -8000000 kB\n",
			"sys/fs/cgroup/memory.max": "2147483648\n",
		}, "", 2 * gib * 3 / 4},
		{"nothing readable", map[string]string{}, "", 0},
		{"malformed meminfo", map[string]string{"proc/meminfo": "MemTotal: lots kB\n"}, "", 0},
	} {
		root := writeRoot(t, c.files)
		if got := Limit(root, c.env); got != c.want {
			t.Errorf("%s: Limit = %d, want %d", c.name, got, c.want)
		}
	}
}
