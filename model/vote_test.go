package model

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"setmatch/internal/testutil"
	"setmatch/method"
)

// TestVoteMatchesMembers: a model with voters decides as the vote of its
// members' own decisions, each member matched as a model alone, and
// takes the whole result (scores, open set) of the deciding member.
func TestVoteMatchesMembers(t *testing.T) {
	m := goldenModel(t)
	m.Features = nil
	mt, err := m.NewMatcherWorkers(1)
	if err != nil {
		t.Fatal(err)
	}
	var alone []*Matcher
	for _, v := range m.Members() {
		c := *v
		c.Voters = nil
		a, err := c.NewMatcherWorkers(1)
		if err != nil {
			t.Fatal(err)
		}
		alone = append(alone, a)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	members, skipped := map[int]int{}, 0
	for k := range 40 {
		batch := mfBatch(rng, m, 6, float64(k%14)/3)
		res, err := mt.Match(batch)
		if err != nil {
			t.Fatal(err)
		}
		votes := make([]string, len(alone))
		var results []Result
		for i, a := range alone {
			r, err := a.Match(batch)
			if err != nil {
				t.Fatal(err)
			}
			votes[i], results = m.Sets[r.Decision.Best].Label, append(results, r)
		}
		w := vote(votes)
		if len(res.Votes) != len(votes) || res.Member != w {
			t.Fatalf("batch %d: votes %q by member %d; members alone %q, the vote's member %d", k, res.Votes, res.Member, votes, w)
		}
		// A member is left out only once those before it decide the vote.
		for i, v := range res.Votes {
			if v == "" && !voteDecided(res.Votes[:i], len(votes)) || v != "" && v != votes[i] {
				t.Fatalf("batch %d: votes %q; members alone %q", k, res.Votes, votes)
			}
			if v == "" {
				skipped++
			}
		}
		if res.Decision != results[w].Decision || res.Bandwidth != results[w].Bandwidth {
			t.Errorf("batch %d: decision %+v, member %d alone %+v", k, res.Decision, w, results[w].Decision)
		}
		members[w]++
	}
	if members[0] == 0 || members[1]+members[2] == 0 || skipped == 0 || skipped == 40 {
		t.Errorf("deciding members %v, the third left out on %d batches of 40: the batches should reach both the model and a voter, and both a vote decided by two members and one that needs the third", members, skipped)
	}

	// A closed set for every member; no single finite threshold.
	closed, err := mt.WithThreshold(math.Inf(1))
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		res, err := closed.Match(mfBatch(rng, m, 6, 40))
		if err != nil {
			t.Fatal(err)
		}
		if !res.Decision.Known {
			t.Errorf("closed set: a far batch is unknown (member %d)", res.Member)
		}
	}
	for i, th := range closed.Thresholds() {
		if !math.IsInf(th, 1) {
			t.Errorf("closed set: member %d decides with threshold %v, want +Inf", i, th)
		}
	}
	if !closed.ClosedSet() || mt.ClosedSet() {
		t.Errorf("ClosedSet: %v with +Inf for every member, %v with the members' own thresholds; want true, false", closed.ClosedSet(), mt.ClosedSet())
	}
	for _, th := range []float64{1, 0, math.Inf(-1)} {
		if _, err := mt.WithThreshold(th); !errors.Is(err, ErrVoteThreshold) {
			t.Errorf("WithThreshold(%v) on a vote: %v, want ErrVoteThreshold", th, err)
		}
	}
	if _, err := mt.MatchProjected(testutil.RandSet(rng, 5, m.Dim(), 0, 1)); err == nil || !strings.Contains(err.Error(), "use Match") {
		t.Errorf("MatchProjected on a vote: %v", err)
	}
	if got := m.MethodName(); got != "vote(kfda-mix,nn-h-dr,kfda-hl)" {
		t.Errorf("MethodName = %q", got)
	}
}

func TestVoteValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(m *Model)
		want   string
	}{
		{"nil voter", func(m *Model) { m.Voters[0] = nil }, "voter 1: no model"},
		{"labels", func(m *Model) { m.Voters[1].Sets[2].Label = "z" }, `voter 2: gallery set 2 is "z"/"set2", the model's "c"/"set2"`},
		{"names", func(m *Model) { m.Voters[0].Sets[0].Name = "other" }, "the members must hold the same sets in the same order"},
		{"sets", func(m *Model) { m.Voters[0].Sets = m.Voters[0].Sets[:5] }, "voter 1: 5 gallery sets, the model 6"},
		{"features", func(m *Model) { m.Voters[0].Features = m.Features }, "voter 1: a voter has a feature pipeline of its own"},
		{"nested", func(m *Model) { m.Voters[0].Voters = []*Model{m.Voters[1]} }, "voter 1: a voter has voters of its own"},
		{"input dim", func(m *Model) { m.Voters[0] = mfModel(5, 7, 3, []int{5, 4, 6, 5, 4, 6}) }, "voter 1: takes 7 features, the model 6"},
		{"invalid voter", func(m *Model) { m.Voters[1].Threshold = math.NaN() }, "voter 2: threshold is NaN"},
		{"too many", func(m *Model) {
			for len(m.Voters) <= MaxVoters {
				m.Voters = append(m.Voters, m.Voters[0])
			}
		}, "5 voters, at most 4"},
	} {
		m := goldenModel(t)
		if err := m.Validate(); err != nil {
			t.Fatal(err)
		}
		tc.change(m)
		err := m.Validate()
		if !errors.Is(err, ErrInvalidModel) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an invalid model: %s", tc.name, err, tc.want)
		}
	}
}

// TestVoteFileErrors: the voters' lengths in the header are checked
// against the bytes present, and a voter's file may hold no voters, so
// decoding never nests.
func TestVoteFileErrors(t *testing.T) {
	m := goldenModel(t)
	good := mfEncode(t, m)
	hlen := binary.LittleEndian.Uint64(good[12:20])
	var h map[string]any
	if err := json.Unmarshal(good[prefixLen:prefixLen+hlen], &h); err != nil {
		t.Fatal(err)
	}
	withVoters := func(v any) []byte {
		h2 := map[string]any{}
		for k, x := range h {
			h2[k] = x
		}
		h2["voter_bytes"] = v
		hdr, err := json.Marshal(h2)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		b.Write(good[:12])
		binary.Write(&b, binary.LittleEndian, uint64(len(hdr)))
		b.Write(hdr)
		b.Write(good[prefixLen+hlen:])
		return mfReseal(b.Bytes())
	}
	lens := h["voter_bytes"].([]any)
	n0, n1 := int(lens[0].(float64)), int(lens[1].(float64))
	if _, err := DecodeBytes(withVoters([]int{n0, n1})); err != nil {
		t.Fatalf("the header rewritten as it was: %v", err)
	}
	mfDecodeErr(t, "voter longer than the file", withVoters([]int{n0, n1 + len(good)}), ErrMalformed, "voter 2 of")
	mfDecodeErr(t, "voter too short", withVoters([]int{n0, 3}), ErrMalformed, "voter 2 of 3 bytes")
	mfDecodeErr(t, "lengths shifted", withVoters([]int{n0 - 8, n1 + 8}), ErrTruncated, "voter 1: model file is truncated")
	mfDecodeErr(t, "too many", withVoters([]int{20, 20, 20, 20, 20}), ErrMalformed, "5 voters, at most 4")

	// A voter that holds voters, written without validation.
	nested := goldenModel(t)
	inner := *nested.Voters[1]
	inner.Voters = []*Model{nested.Voters[0]}
	nested.Voters[1] = &inner
	var b bytes.Buffer
	if err := encode(&b, nested); err != nil {
		t.Fatal(err)
	}
	mfDecodeErr(t, "nested voters", b.Bytes(), ErrMalformed, "voter 2: malformed model file: a voter holds voters of its own")

	// A model of format 5 (no voters) still reads in format 6 terms.
	m5 := goldenMix(t)
	if got, err := DecodeBytes(mfEncode(t, m5)); err != nil || len(got.Voters) != 0 || got.MethodName() != "kfda-mix" {
		t.Errorf("a model without voters: %v, %d voters, method %q", err, len(got.Voters), got.MethodName())
	}
}

// TestClosedSet: a matcher is a closed set where its threshold lets
// every batch in: +Inf, or a finite one above 1e308, which no score
// reaches; not where it is 1e308 or below.
func TestClosedSet(t *testing.T) {
	mt, err := mfModel(1, 6, 3, []int{5, 4, 6}).NewMatcherWorkers(1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		threshold float64
		closed    bool
	}{
		{0.5, false},
		{1e308, false},
		{math.MaxFloat64, true},
		{math.Inf(1), true},
	} {
		m, err := mt.WithThreshold(c.threshold)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.ClosedSet(); got != c.closed {
			t.Errorf("threshold %v: ClosedSet %v, want %v", c.threshold, got, c.closed)
		}
	}
}

// TestRecordedMethods: a model's selection may name every method train
// deploys, and kfda-sum, which train once deployed for what kfda-mix now
// does; not auto, which deploys another, nor a name no method has, also
// in a voter.
func TestRecordedMethods(t *testing.T) {
	m := goldenModel(t)
	for _, n := range []method.Name{method.KFDAMix, "kfda-sum"} {
		m.Selection.Method = n
		if err := m.Validate(); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	for _, n := range []method.Name{"nn-h", "nn-j", "kfda-hg", "kfda-hl", "kfda-j", "nn-h-dr", "nn-j-dr", "nn-h-lda", "gda", "cdl", "kfda-mix", ""} {
		if !recordable(n) {
			t.Errorf("%q is not recordable", n)
		}
	}
	m.Selection.Method = method.KFDAMix
	m.Voters[0].Selection.Method = "bogus"
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), `method "bogus" is not one this setmatch knows`) {
		t.Errorf("a voter's method bogus: %v", err)
	}
}
