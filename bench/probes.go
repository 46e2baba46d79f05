package bench

import (
	"fmt"
	"math"
	"strings"
	"time"

	"setmatch/dataset"
	"setmatch/model"
	"setmatch/setfile"
)

// decideProbes reads the model train wrote and decides the held-out sets
// with it, as setmatch test does: it records in r the method deployed,
// the candidates' scores, the shares named right (at the threshold and
// closed-set) and the time of one query.
func decideProbes(p sizePaths, workers int, r *Run) error {
	m, _, err := model.ReadFile(p.model)
	if err != nil {
		return err
	}
	r.Deployed = m.MethodName()
	r.Candidates = candidates(m)
	mt, err := m.NewMatcherWorkers(workers)
	if err != nil {
		return err
	}
	pds, err := dataset.Load(p.probe, dataset.Options{Limits: setfile.DefaultLimits()})
	if err != nil {
		return err
	}
	var spent time.Duration
	right, closed := 0, 0
	for _, s := range pds.Sets {
		t0 := time.Now()
		res, err := mt.Match(s.Frames)
		spent += time.Since(t0)
		if err != nil {
			return fmt.Errorf("%s/%s: %w", s.Class, s.Name, err)
		}
		d := res.Decision
		if d.Known && d.Label == s.Class {
			right++
		}
		if d.Best >= 0 && m.Sets[d.Best].Label == s.Class {
			closed++
		}
	}
	n := float64(len(pds.Sets))
	r.Accuracy, r.ClosedSet = 100*float64(right)/n, 100*float64(closed)/n
	r.MsPerQuery = float64(spent.Microseconds()) / 1000 / n
	return nil
}

// candidates returns the candidates the model's method was chosen from,
// each with its cross-validated accuracy ("-" where it was not scored in
// full), comma-separated.
func candidates(m *model.Model) string {
	var cs []string
	for _, c := range m.Selection.Candidates {
		what := strings.TrimSpace(string(c.Name) + " " + c.Params)
		if math.IsNaN(c.CVAccuracy) {
			cs = append(cs, what+" -")
		} else {
			cs = append(cs, fmt.Sprintf("%s %.1f%%", what, 100*c.CVAccuracy))
		}
	}
	return strings.Join(cs, ", ")
}
