package bench

import (
	"fmt"
	"math"
	"strings"

	"setmatch/dataset"
	"setmatch/model"
	"setmatch/openeval"
	"setmatch/setfile"
)

// decideProbes reads the model train wrote and decides the held-out sets
// with it, as setmatch test does (openeval.Test): it records in r the
// method deployed, the candidates' scores, the shares named right (at
// the threshold and closed-set) and the time of one query.
func decideProbes(p sizePaths, workers int, r *Run) error {
	mt, _, err := model.ReadMatcher(p.model, workers)
	if err != nil {
		return err
	}
	m := mt.Model()
	r.Deployed = m.MethodName()
	r.Candidates = candidates(m)
	pds, err := dataset.Load(p.probe, dataset.Options{Limits: setfile.DefaultLimits()})
	if err != nil {
		return err
	}
	sets := make([]openeval.Labelled, len(pds.Sets))
	for i, s := range pds.Sets {
		sets[i] = openeval.Labelled{Class: s.Class, Name: s.Name, Frames: s.Frames}
	}
	rep, err := openeval.Test(mt, sets)
	if err != nil {
		return fmt.Errorf("%s: %w", p.probe, err)
	}
	closed := 0
	for _, one := range rep.PerSet {
		if one.Error != "" {
			return fmt.Errorf("%s/%s: %s", one.Class, one.Set, one.Error)
		}
		if one.Best == one.Class {
			closed++
		}
	}
	// Every probe is of a class the model knows: the report's accuracy is
	// the share named right at the threshold.
	acc, cl, ms := rep.Accuracy, 100*float64(closed)/float64(rep.Sets), rep.MsPerSet
	r.Accuracy, r.ClosedSet, r.MsPerQuery = &acc, &cl, &ms
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
