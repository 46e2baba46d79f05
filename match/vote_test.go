package match

import "testing"

func TestVote(t *testing.T) {
	for _, c := range []struct {
		labels []string
		want   int
	}{
		{nil, -1},
		{[]string{"a"}, 0},
		{[]string{"a", "b", "c"}, 0},      // all differ: the first member
		{[]string{"a", "b", "b"}, 1},      // two of three: their first
		{[]string{"b", "a", "b"}, 0},      // two of three, the first among them
		{[]string{"a", "a", "a"}, 0},      // all agree
		{[]string{"a", "b", "c", "c"}, 2}, // the most votes, not the first member
		{[]string{"a", "b", "b", "a"}, 0}, // equally many: the earliest member's
		{[]string{"c", "a", "b", "b", "a"}, 1},
	} {
		if got := Vote(c.labels); got != c.want {
			t.Errorf("Vote(%q) = %d, want %d", c.labels, got, c.want)
		}
	}
	if got := Vote([]int{3, 1, 1}); got != 1 {
		t.Errorf("Vote of ints = %d, want 1", got)
	}
}
