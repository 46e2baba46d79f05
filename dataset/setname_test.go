package dataset

import "testing"

func TestSetName(t *testing.T) {
	for _, c := range []struct {
		path string
		dir  bool
		want string
	}{
		{"data/alice/s1.npy", false, "s1"},
		{"s1.v2.csv", false, "s1.v2"},
		{"s1", false, "s1"},
		{"bursts/alice.2024/", true, "alice.2024"},
		{"bursts/b1/.", true, "b1"},
	} {
		if got := SetName(c.path, c.dir); got != c.want {
			t.Errorf("SetName(%q, %v) = %q, want %q", c.path, c.dir, got, c.want)
		}
	}
}
