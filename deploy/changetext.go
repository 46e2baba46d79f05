package deploy

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"setmatch/model"
)

// Write writes what Enroll or Forget did to m (the model after the
// change), member by member, and how the threshold was set, as setmatch
// enroll and forget report it: every line begins with "cmd: ". For
// WithoutOthers (train --others) it leaves out how far the threshold
// moved: no door had the model before.
func (c *Change) Write(w io.Writer, cmd string, m *model.Model) error {
	vote := len(c.Members) > 1
	members := m.Members()
	for i, mc := range c.Members {
		who := mc.Method
		if vote {
			who = fmt.Sprintf("vote member %d, %s", i+1, mc.Method)
		}
		if mc.Refitted {
			fmt.Fprintf(w, "%s: %s: kFDA fitted again on the new gallery (%s)\n", cmd, who, mc.Discriminant)
		}
		if mc.Recentred {
			fmt.Fprintf(w, "%s: %s: the centre it subtracts from frames is now that of the sets its gallery keeps (the median of their mean frames)\n", cmd, who)
		}
		if mc.Bandwidth {
			mem := members[i]
			unused := ""
			if mem.Discriminant != nil && !mem.Discriminant.UsesDivergences() {
				unused = ", recorded but not used by its kernels"
			}
			fmt.Fprintf(w, "%s: %s: its global bandwidth (one for every gallery set and batch%s) is computed again from the sets it keeps: %.4g → %.4g\n", cmd, who, unused, mc.BandwidthBefore, mem.QueryBandwidth.Fixed)
		}
		if mc.Projection != "" {
			fmt.Fprintf(w, "%s: %s: projection %s kept as training made it, from the training sets: it was not fitted again\n", cmd, who, mc.Projection)
		}
		if len(mc.Margins) > 0 {
			by := fmt.Sprintf("nearest-neighbour %s divergence in its space", members[i].Divergence)
			if members[i].Discriminant != nil {
				by = "nearest neighbour by the distance its kernel measures, the score its threshold bounds"
			}
			fmt.Fprintf(w, "%s: %s: how far each new set is from its class and from the others (%s; margin = other − own, above 0 the set is nearer its own class)\n", cmd, who, by)
			for _, g := range mc.Margins {
				own := "none (no other set of its class)"
				if !math.IsNaN(g.Own) {
					own = fmt.Sprintf("%.4g (%s)", g.Own, g.OwnName)
				}
				margin := ""
				if !math.IsNaN(g.Own) {
					margin = fmt.Sprintf(", margin %.4g", g.Other-g.Own)
					if g.Other <= g.Own {
						margin += ": nearer another class than its own: check that the label is right; if it is, a model trained again with these sets may tell them apart better"
					}
				} else if thr := members[i].ClassThreshold(g.OtherLabel); !math.IsInf(thr, 1) && g.Other <= thr {
					margin = fmt.Sprintf(": within the threshold of class %s (%.4g): a burst like it may be named %s: check that this person or object is not enrolled already as %s", g.OtherLabel, thr, g.OtherLabel, g.OtherLabel)
				}
				fmt.Fprintf(w, "%s:   %s/%s: own class %s, other class %.4g (%s)%s\n", cmd, g.Label, g.Name, own, g.Other, g.OtherLabel, margin)
			}
		}
	}
	rule := c.Rule + " (the rule the model was trained with)"
	if c.RuleDefault {
		rule = c.Rule + " (the model records no rule, being older than that record: train's default)"
	}
	if _, err := fmt.Fprintf(w, "%s: threshold by %s: %s\n", cmd, rule, c.Threshold); err != nil {
		return err
	}
	if c.Op == ChangeOthers {
		return nil // training: no door had the threshold before
	}
	return c.writeMoved(w, cmd)
}

// writeMoved says how far each member's threshold moved, and where it
// moved by a tenth or more what that does at the door.
func (c *Change) writeMoved(w io.Writer, cmd string) error {
	for i := range min(len(c.Before), len(c.Members)) {
		before, after := c.Before[i], c.Members[i].Threshold
		if before == after || math.IsInf(before, 1) || math.IsInf(after, 1) {
			continue
		}
		who := ""
		if len(c.Members) > 1 {
			who = fmt.Sprintf("vote member %d, %s: ", i+1, c.Members[i].Method)
		}
		line := fmt.Sprintf("%s: %sthreshold %.4g → %.4g", cmd, who, before, after)
		rel := 0.0
		if before > 0 {
			rel = (after - before) / before
			line += " (" + percentMove(rel) + ")"
		}
		switch {
		case rel >= 0.1:
			line += ": the door is looser, a stranger near one of your people gets in more easily: check it with setmatch test on sets of your people and of strangers"
		case rel <= -0.1:
			line += ": the door is stricter, your people are rejected more often: check it with setmatch test on sets of your people and of strangers"
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}

// Kept lists, in words, what in m training computed from all its sets
// and Forget keeps: the projections, the global bandwidth of a model
// others' classes shaped, the feature pipeline's fitted PCA, the method
// and its hyper-parameters, and the cross-validated figures of that
// choice.
func Kept(m *model.Model) []string {
	var out []string
	for i, mem := range m.Members() {
		if mem.Identity {
			continue
		}
		who := m.MemberMethods()[i]
		if len(m.Voters) > 0 {
			who = fmt.Sprintf("vote member %d (%s)", i+1, who)
		}
		out = append(out, fmt.Sprintf("the projection W (%d → %d) of %s", mem.InputDim(), mem.Dim(), who))
	}
	if othersShaped(m) && slices.ContainsFunc(m.Members(), func(mem *model.Model) bool { _, ok := globalRule(mem); return ok }) {
		out = append(out, "the global bandwidth, which train computed from the --others' frames too")
	}
	if f := m.Features; f != nil && f.PCA != nil {
		r, c := f.PCA.Components.Dims()
		out = append(out, fmt.Sprintf("the feature pipeline %s: its PCA (%d → %d) was fitted on the training frames", f.Name(), r, c))
	}
	if m.Selection.Method != "" {
		figures := ""
		if slices.ContainsFunc(m.Members(), func(v *model.Model) bool { return v.Selection.Measured() }) {
			figures = ", and the cross-validated accuracies and times of that choice (setmatch inspect shows them as training's)"
		}
		out = append(out, "the method and its hyper-parameters, as training chose them on its sets ("+strings.Join(m.MemberMethods(), ", ")+")"+figures)
	}
	return out
}

// percentMove writes a relative move rel as a signed percentage: whole
// percents from 1% on, tenths below, and 0% for a move that rounds to no
// tenth (a rounding error), so that a small fall never reads as a rise.
func percentMove(rel float64) string {
	pct := 100 * rel
	switch {
	case math.Abs(pct) < 0.05:
		return "0%"
	case math.Abs(pct) < 0.95:
		return fmt.Sprintf("%+.1f%%", pct)
	}
	return fmt.Sprintf("%+.0f%%", pct)
}
