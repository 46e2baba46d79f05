package model

// vote returns the index of the member whose label a vote of labels (one
// per member, in the members' order) decides for: the label most members
// give, and among labels given by equally many, the one of the earliest
// member; the index is that of its first member. With three members: the
// label of two or three of them, or the first member's when all three
// differ. It returns −1 for no members.
func vote[L comparable](labels []L) int {
	best, bestN := -1, 0
	for i, l := range labels {
		if n := votesFor(labels, l); n > bestN {
			best, bestN = i, n
		}
	}
	return best
}

// voteDecided reports whether the vote of n members is decided by the
// labels of its first len(labels) members: whatever the others give,
// vote of all n labels returns vote(labels). With three members: once
// the first two agree.
func voteDecided[L comparable](labels []L, n int) bool {
	w := vote(labels)
	if w < 0 {
		return n == 0
	}
	rest := n - len(labels)
	lead := votesFor(labels, labels[w])
	if rest > lead {
		return false // a label not given yet could still pass it
	}
	for i, l := range labels {
		if l == labels[w] {
			continue
		}
		// A label first given before w's wins a tie; one given after,
		// or not yet, must pass it.
		if c := votesFor(labels, l) + rest; c > lead || (c == lead && i < w) {
			return false
		}
	}
	return true
}

// votesFor returns how many of labels are l.
func votesFor[L comparable](labels []L, l L) int {
	n := 0
	for _, o := range labels {
		if o == l {
			n++
		}
	}
	return n
}
