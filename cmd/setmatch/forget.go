package main

import (
	"fmt"
	"io"
	"slices"
	"time"

	"setmatch/deploy"
)

// forgetSynopsis is the usage line and description of setmatch forget.
const forgetSynopsis = `--model MODEL --label LABEL [--set NAME] [--out OUT]

Removes every gallery set of a class (with --set, only the set of that
name) from a model, from every member of a vote, and fits again what was
fitted on the gallery: a kFDA discriminant, and the open-set threshold by
the rule the model was trained with. The centre a model subtracts from
frames is moved onto the sets it keeps (the median of their mean
frames); the model's history records the change (when, how many sets)
without the label. What training shaped
from all its sets stays: a projection W (learned, Fisher or PCA), a
feature pipeline whose PCA was fitted on the training frames, and the
hyper-parameters chosen by cross-validation with the cross-validated
accuracies that chose them (setmatch enroll keeps them too); forget says
which the model holds. To remove those too, train the model again on
data without the person (setmatch train). A model keeps at least two
classes. The model file is replaced atomically: a running setmatchd
reloads it (a pin that setmatchd's gpio.label_pins gives the class no
longer pulses, and a restart refuses it: remove it, then restart the
daemon).`

func runForget(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("forget", forgetSynopsis, stderr)
	var cf changeFlags
	cf.register(fs, "model file `MODEL` to remove the sets from (required)", "class `LABEL` whose sets are removed (required)")
	lim := limitsFlag(fs)
	set := fs.String("set", "", "remove only the set of this `NAME` of the class: the name enroll or train gave it (the file or folder name without extension, or enroll's --name; setmatch inspect --json MODEL lists them: classes[].set_names)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := cf.check("set"); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usagef("unexpected argument %q: name the class with --label and a set with --set", fs.Arg(0))
	}
	m, err := cf.read(stderr)
	defer cf.unlock()
	if err != nil {
		return err
	}
	classesBefore := m.Classes()
	keeps := classesBefore // the classes the model will hold
	if *set == "" {
		keeps = slices.DeleteFunc(slices.Clone(classesBefore), func(c string) bool { return c == cf.label })
	}
	strangers, err := cf.strangers(m, keeps, "", *lim)
	if err != nil {
		return err
	}
	c, err := deploy.Forget(m, cf.label, *set, strangers, cf.workers, time.Now())
	if err != nil {
		return fmt.Errorf("%s: %w", cf.model, err)
	}
	what := fmt.Sprintf("every set of class %s (%d)", cf.label, c.Sets)
	if *set != "" {
		what = fmt.Sprintf("set %s of class %s", *set, cf.label)
	}
	where := ""
	if len(c.Members) > 1 {
		where = fmt.Sprintf(", from each of the %d members of the vote", len(c.Members))
	}
	fmt.Fprintf(stderr, "forget: removed %s from the gallery%s\n", what, where)
	if err := c.Write(stderr, "forget", m); err != nil {
		return err
	}
	for _, l := range deploy.Kept(m) {
		fmt.Fprintf(stderr, "forget: still shaped by every training set: %s\n", l)
	}
	if c.Classes < len(classesBefore) {
		fmt.Fprintf(stderr, "forget: if setmatchd's configuration gives class %s a pin (gpio.label_pins), the daemon takes this model at once and warns that the pin does not pulse: remove the pin and restart it (systemctl restart setmatchd)\n", cf.label)
	}
	fmt.Fprintf(stderr, "forget: if the forgotten sets were among the training data, train the model again on data without them to remove those too (setmatch train --data DIR, with the class's folder removed from DIR); sets enrolled after training never shaped them\n")
	return cf.write(stdout, m, c, "")
}
