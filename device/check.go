package device

import (
	"fmt"
	"io"
	"math"
	"strings"

	"setmatch/config"
	"setmatch/device/gpio"
	"setmatch/device/mqtt"
)

// Check validates the configuration at path and the model it names, looks up
// the GPIO lines (without driving them) and writes a summary to w. It is
// setmatchd -check.
func Check(path string, w io.Writer) error {
	cfg, err := config.Load(path)
	if err != nil {
		return err
	}
	fmt.Fprint(w, cfg.String())
	m, err := LoadModel(cfg)
	if err != nil {
		return err
	}
	pinWarnings := labelPinWarnings(cfg, m)
	// The daemon's own decision setup: a decision.threshold the model
	// cannot take (a number for a vote) is refused here as at start.
	st, err := newState(cfg, m)
	if err != nil {
		return err
	}
	mm := m.Model
	th := st.thresholdText()
	fmt.Fprintf(w, "model:    %s: %d gallery sets, %d labels, D=%d -> d=%d, %s, threshold %s, sha256 %s\n",
		m.Path, len(mm.Sets), len(mm.Classes()), mm.InputDim(), mm.Dim(), mm.Divergence, th, m.SHA256)
	for _, warn := range append(pinWarnings, st.decisionWarnings()...) {
		fmt.Fprintf(w, "warning:  %s\n", warn)
	}
	if err := checkSpool(cfg.Spool.Dir, w); err != nil {
		return err
	}
	files, err := config.Files(path)
	if err != nil {
		return err
	}
	if err := checkJournal(cfg.Journal.Path, int64(cfg.Journal.MaxBytes), cfg.Model, files, w); err != nil {
		return err
	}
	fmt.Fprintf(w, "bursts:   %s\n", st.burst.describe())
	if cfg.MQTT.Enabled() {
		o, err := mqtt.FromConfig(cfg.MQTT, "", nil)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "mqtt:     %s\n", o.Describe())
	}
	find, err := gpio.Lookup(cfg.GPIO.Backend, cfg.GPIO.Chip)
	if err != nil {
		return err
	}
	if cfg.GPIO.Backend == "periph" {
		for _, p := range cfg.GPIO.Pins() {
			if err := find(p.Name); err != nil {
				return fmt.Errorf("%s: %w", p.Key, err)
			}
		}
		fmt.Fprintf(w, "gpio:     all %d lines found\n", len(cfg.GPIO.Pins()))
	}
	fmt.Fprintln(w, "ok")
	return nil
}

// thresholdText says what keeps strangers out in st: the threshold, or
// a vote's, one per member, with the classes' factors where the model
// has them; "none (closed set)"; and whether the configuration's
// decision.threshold sets it rather than the model.
func (st *state) thresholdText() string {
	mm := st.model.Model
	th := "none (closed set)"
	switch ts := st.matcher.Thresholds(); {
	case st.matcher.ClosedSet():
	case len(ts) == 1:
		th = fmt.Sprintf("%.6g", ts[0])
	default:
		parts := make([]string, len(ts))
		for i, method := range mm.MemberMethods() {
			parts[i] = fmt.Sprintf("%s %.6g", method, ts[i])
		}
		th = "each member's (" + strings.Join(parts, ", ") + ")"
	}
	if th != "none (closed set)" && mm.Spread != nil {
		lo, hi := mm.FactorRange()
		th += fmt.Sprintf(" times each class's factor (%.3g to %.3g: setmatch inspect lists them)", lo, hi)
	}
	if st.cfg.Decision.Threshold != nil {
		th += " from decision.threshold in the configuration, not the model's"
	}
	return th
}

// ThresholdText says what keeps strangers out now (state.thresholdText).
func (r *Runner) ThresholdText() string { return r.st.Load().thresholdText() }

// closedSetWarning is what -check and the daemon's log say when no
// threshold keeps strangers out: decision.threshold = inf in d, or a model
// without a threshold.
func closedSetWarning(d config.Decision) string {
	if d.Threshold != nil {
		return "decision.threshold = inf in the configuration makes a closed set: every batch is named as its nearest known class, strangers too; for a door, remove the key to use the model's threshold, or set a finite one"
	}
	return "the model has no threshold (a closed set): every batch is named as its nearest known class, strangers too; for a door, train without --threshold none or set decision.threshold"
}

// farRatio is how many times the model's own threshold, or how
// small a part of it, a decision.threshold must be for -check and the
// log to warn that it may have been set for another model.
const farRatio = 10

// decisionWarnings says what -check and the daemon's log warn of in st's
// decisions: a closed set (closedSetWarning), and a finite
// decision.threshold farRatio times the model's own or more, or as
// small a part of it: each model's scores have a scale of their own, so
// a number set for one model (the one before a new training) lets every
// stranger in at another, or keeps every known person out.
func (st *state) decisionWarnings() []string {
	if st.matcher.ClosedSet() {
		return []string{closedSetWarning(st.cfg.Decision)}
	}
	t, own := st.cfg.Decision.Threshold, st.model.Matcher.Thresholds()
	if t == nil || len(own) != 1 || !(own[0] > 0) || math.IsInf(own[0], 1) {
		return nil
	}
	r := *t / own[0]
	if r < farRatio && r > 1/float64(farRatio) {
		return nil
	}
	what, effect := fmt.Sprintf("%.0f times", r), "strangers are let in"
	switch {
	case r == 0:
		what, effect = "0, far below", "your people are turned away"
	case r < 1:
		what, effect = fmt.Sprintf("1/%.0f of", 1/r), "your people are turned away"
	}
	return []string{fmt.Sprintf("decision.threshold = %g is %s the model's own threshold %.6g: each model's scores have a scale of their own, so a threshold set for another model (the one before a new training, say) does not carry over, and at this one %s; remove the key to use the model's threshold, or set one measured on this model (setmatch test --model MODEL --data DIR gives the best single threshold)", *t, what, own[0], effect)}
}

// DecisionWarnings says what the decisions of the model in use warn of
// (state.decisionWarnings).
func (r *Runner) DecisionWarnings() []string { return r.st.Load().decisionWarnings() }
