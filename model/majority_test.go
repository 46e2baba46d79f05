package model

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
		if got := vote(c.labels); got != c.want {
			t.Errorf("vote(%q) = %d, want %d", c.labels, got, c.want)
		}
	}
	if got := vote([]int{3, 1, 1}); got != 1 {
		t.Errorf("vote of ints = %d, want 1", got)
	}
}

// TestVoteDecided checks voteDecided against every completion of every
// prefix of every vote of up to five members over three labels: it says
// decided exactly when no completion changes the vote, as for two
// agreeing members of three.
func TestVoteDecided(t *testing.T) {
	alphabet := []byte("abc")
	var all func(n int) [][]byte
	all = func(n int) [][]byte {
		if n == 0 {
			return [][]byte{nil}
		}
		var out [][]byte
		for _, s := range all(n - 1) {
			for _, c := range alphabet {
				out = append(out, append(append([]byte(nil), s...), c))
			}
		}
		return out
	}
	decided := 0
	for n := 1; n <= 5; n++ {
		for _, full := range all(n) {
			for k := 0; k <= n; k++ {
				prefix := full[:k]
				same := true
				for _, rest := range all(n - k) {
					v := append(append([]byte(nil), prefix...), rest...)
					same = same && vote(v) == vote(prefix)
				}
				// Decided exactly when no completion changes the vote
				// (over three labels, as many as a completion can bring
				// in a vote of up to five).
				if got := voteDecided(prefix, n); got != same {
					t.Fatalf("voteDecided(%q, %d) = %v, every completion gives the prefix's vote: %v", prefix, n, got, same)
				}
				if same {
					decided++
				}
			}
		}
	}
	if !voteDecided([]string{"a", "a"}, 3) || voteDecided([]string{"a", "b"}, 3) || !voteDecided([]string{"a", "b", "c"}, 3) || voteDecided([]string{"a"}, 3) {
		t.Error("three members: decided once two agree, and only then before the third")
	}
	if decided == 0 {
		t.Error("no prefix was decided")
	}
}
