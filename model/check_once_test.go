package model

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// countChecks returns how many times validate checked each model while
// fn ran.
func countChecks(t *testing.T, fn func()) map[*Model]int {
	t.Helper()
	n := map[*Model]int{}
	checked = func(m *Model) { n[m]++ }
	defer func() { checked = nil }()
	fn()
	return n
}

// wantOnce fails t unless m and each of its voters were checked exactly
// once, and no other model was.
func wantOnce(t *testing.T, what string, m *Model, n map[*Model]int) {
	t.Helper()
	members := append([]*Model{m}, m.Voters...)
	for i, v := range members {
		if n[v] != 1 {
			t.Errorf("%s: member %d checked %d times, want once", what, i, n[v])
		}
	}
	if len(n) != len(members) {
		t.Errorf("%s: %d models checked, want the %d members", what, len(n), len(members))
	}
}

// TestLoadChecksOnce: a model file is validated once however it is
// loaded: ReadFile and Decode validate the model and each voter once,
// and ReadMatcher, which the daemon and setmatch test load with, does
// that and builds the matcher with no second check; NewMatcherWorkers of
// a model in memory checks it and its voters once too.
func TestLoadChecksOnce(t *testing.T) {
	for _, tc := range []struct {
		name  string
		model func(testing.TB) *Model
	}{
		{"nearest neighbour", func(testing.TB) *Model { return mfModel(1, 6, 3, []int{5, 4, 6}) }},
		{"vote of three", goldenModel},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "m.smm")
			if err := WriteFile(path, tc.model(t)); err != nil {
				t.Fatal(err)
			}
			var (
				m   *Model
				mt  *Matcher
				err error
			)
			n := countChecks(t, func() { m, _, err = ReadFile(path) })
			if err != nil {
				t.Fatal(err)
			}
			wantOnce(t, "ReadFile", m, n)

			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			n = countChecks(t, func() { m, err = Decode(bytes.NewReader(b)) })
			if err != nil {
				t.Fatal(err)
			}
			wantOnce(t, "Decode", m, n)

			n = countChecks(t, func() { mt, _, err = ReadMatcher(path, 1) })
			if err != nil {
				t.Fatal(err)
			}
			wantOnce(t, "ReadMatcher", mt.Model(), n)

			mem := tc.model(t)
			n = countChecks(t, func() { _, err = mem.NewMatcherWorkers(1) })
			if err != nil {
				t.Fatal(err)
			}
			wantOnce(t, "NewMatcherWorkers", mem, n)
		})
	}
}

// TestNewMatcherChecksDecoded: a model changed after Decode into one
// that is not valid, also in the samples it shares with nothing but
// itself, or in a voter, is refused by NewMatcher.
func TestNewMatcherChecksDecoded(t *testing.T) {
	b := mfEncode(t, goldenModel(t))
	for _, tc := range []struct {
		name   string
		change func(m *Model)
		want   string
	}{
		{"threshold", func(m *Model) { m.Threshold = math.NaN() }, "threshold is NaN"},
		{"a sample in place", func(m *Model) { m.Sets[1].Samples.Set(0, 0, math.Inf(1)) }, "gallery set 1"},
		{"no sets", func(m *Model) { m.Sets = nil }, "gallery has no sets"},
		{"a voter's sample in place", func(m *Model) { m.Voters[1].Sets[0].Samples.Set(2, 1, math.NaN()) }, "voter 2: gallery set 0"},
		{"a voter's bandwidth", func(m *Model) { m.Voters[0].Sets[3].Bandwidth = 0 }, "voter 1: gallery set 3"},
	} {
		m, err := DecodeBytes(b)
		if err != nil {
			t.Fatal(err)
		}
		tc.change(m)
		if _, err := m.NewMatcher(); !errors.Is(err, ErrInvalidModel) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: NewMatcher: %v, want an invalid model: %s", tc.name, err, tc.want)
		}
	}
}

// TestReadMatcherRefusesAsReadFile: ReadMatcher refuses a file that
// holds an invalid model with ReadFile's error, and a voter's with the
// voter named.
func TestReadMatcherRefusesAsReadFile(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(m *Model)
		want   string
	}{
		{"threshold", func(m *Model) { m.Threshold = -1 }, "threshold is -1"},
		{"voter's bandwidth", func(m *Model) { m.Voters[1].Sets[2].Bandwidth = -3 }, "voter 2: gallery set 2"},
	} {
		m := goldenModel(t)
		tc.change(m)
		var b bytes.Buffer
		if err := encode(&b, m); err != nil { // written without validation
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "m.smm")
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, rerr := ReadFile(path)
		_, _, merr := ReadMatcher(path, 1)
		if !errors.Is(merr, ErrInvalidModel) || !strings.Contains(merr.Error(), tc.want) || !strings.Contains(merr.Error(), path) {
			t.Errorf("%s: ReadMatcher: %v, want an invalid model naming the file: %s", tc.name, merr, tc.want)
		}
		if rerr == nil || merr == nil || rerr.Error() != merr.Error() {
			t.Errorf("%s: ReadFile: %v, ReadMatcher: %v, want the same error", tc.name, rerr, merr)
		}
	}
}
