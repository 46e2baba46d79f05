package main

import (
	"flag"
	"fmt"
	"io"
	"math"

	"setmatch/deploy"
	"setmatch/model"
)

// changeFlags are the flags enroll and forget share: the model file they
// change, the class, where to write the new model and the goroutines.
type changeFlags struct {
	model, label, out string
	workers           int
}

// register defines the shared flags on fs, with the usage of --model and
// --label of the command.
func (cf *changeFlags) register(fs *flag.FlagSet, modelUsage, labelUsage string) {
	fs.StringVar(&cf.model, "model", "", modelUsage)
	fs.StringVar(&cf.label, "label", "", labelUsage)
	fs.StringVar(&cf.out, "out", "", "write the new model here (default: replace MODEL atomically; a running setmatchd reloads it)")
	fs.IntVar(&cf.workers, "workers", 0, "goroutines `N` (0: one per CPU)")
}

// check refuses a command line without --model or --label.
func (cf *changeFlags) check() error {
	switch {
	case cf.model == "":
		return usagef("--model is required")
	case cf.label == "":
		return usagef("--label is required")
	}
	return nil
}

// read reads the model to change; --out defaults to it.
func (cf *changeFlags) read() (*model.Model, error) {
	if cf.out == "" {
		cf.out = cf.model
	}
	m, _, err := model.ReadFile(cf.model)
	return m, err
}

// write writes the changed model to --out and says on stdout what its
// gallery holds now, followed by note.
func (cf *changeFlags) write(stdout io.Writer, m *model.Model, c *deploy.Change, note string) error {
	if err := model.WriteFile(cf.out, m); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d gallery sets, %d classes%s\n", cf.out, c.GallerySets, c.Classes, note)
	return nil
}

// printChange writes what deploy.Enroll or deploy.Forget did, member by
// member, and how the threshold was set.
func printChange(w io.Writer, cmd string, m *model.Model, c *deploy.Change) {
	vote := len(c.Members) > 1
	for i, mc := range c.Members {
		who := mc.Method
		if vote {
			who = fmt.Sprintf("vote member %d, %s", i+1, mc.Method)
		}
		if mc.Refitted {
			fmt.Fprintf(w, "%s: %s: kFDA fitted again on the new gallery (%s)\n", cmd, who, mc.Discriminant)
		}
		if mc.Recentred {
			fmt.Fprintf(w, "%s: %s: the mean it centres frames by is now that of the frames its gallery keeps\n", cmd, who)
		}
		if mc.Bandwidth {
			mem := m.Members()[i]
			unused := ""
			if mem.Discriminant != nil && !mem.Discriminant.UsesDivergences() {
				unused = ", recorded but not used by its kernels"
			}
			fmt.Fprintf(w, "%s: %s: its global bandwidth (one for every gallery set and batch%s) is now computed from the sets it keeps: %.4g\n", cmd, who, unused, mem.QueryBandwidth.Fixed)
		}
		if mc.Projection != "" {
			fmt.Fprintf(w, "%s: %s: projection %s kept as training made it, from the training sets: it was not fitted again\n", cmd, who, mc.Projection)
		}
		if len(mc.Margins) > 0 {
			div := m.Members()[i].Divergence
			fmt.Fprintf(w, "%s: %s: how far each new set is from its class and from the others (nearest-neighbour %s divergence in its space; margin = other − own, above 0 the set is nearer its own class)\n", cmd, who, div)
			for _, g := range mc.Margins {
				own := "none (no other set of its class)"
				if !math.IsNaN(g.Own) {
					own = fmt.Sprintf("%.4g (%s)", g.Own, g.OwnName)
				}
				margin := ""
				if !math.IsNaN(g.Own) {
					margin = fmt.Sprintf(", margin %.4g", g.Other-g.Own)
					if g.Other <= g.Own {
						margin += ": nearer another class than its own; a model trained again with these sets may tell them apart better"
					}
				}
				fmt.Fprintf(w, "%s:   %s/%s: own class %s, other class %.4g (%s)%s\n", cmd, g.Label, g.Name, own, g.Other, g.OtherLabel, margin)
			}
		}
	}
	rule := c.Rule + " (the rule the model was trained with)"
	if c.RuleDefault {
		rule = c.Rule + " (the model records no rule, being older than that record: train's default)"
	}
	fmt.Fprintf(w, "%s: threshold by %s: %s\n", cmd, rule, c.Threshold)
}
