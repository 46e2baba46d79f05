package match

// Vote returns the index of the member whose label a vote of labels (one
// per member, in the members' order) decides for: the label most members
// give, and among labels given by equally many, the one of the earliest
// member; the index is that of its first member. With three members: the
// label of two or three of them, or the first member's when all three
// differ. It returns −1 for no members.
func Vote[L comparable](labels []L) int {
	best, bestN := -1, 0
	for i, l := range labels {
		n := 0
		for _, o := range labels {
			if o == l {
				n++
			}
		}
		if n > bestN {
			best, bestN = i, n
		}
	}
	return best
}
