package openeval

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"

	"setmatch/internal/jsonname"
)

// NameText is a class's or a set's name as setmatch test's table and its
// lines on stderr write it, text with no base64 beside it: the name
// itself where it is valid UTF-8 and holds no backslash and no character
// that does not print (a newline, a tab, which would break the table's
// lines and columns), else as Go quotes it without the quotes (each byte
// that is not part of a character as \xNN, a newline as \n, a backslash
// as \\). A name written as it is holds no backslash and a quoted one
// does, so no two names read alike, as they can with their bad bytes
// replaced by U+FFFD. The JSON writes names by jsonname's convention
// instead.
func NameText(name string) string {
	if utf8.ValidString(name) && !strings.Contains(name, `\`) && !strings.ContainsFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return name
	}
	q := strconv.Quote(name)
	return q[1 : len(q)-1]
}

// classKey is the key of a class in the per_class object of setmatch
// test --json: the class's name where it is valid UTF-8; else its text as
// JSON writes it (U+FFFD for each bad byte), a slash and its bytes in
// base64 (the row's class_b64). A class's name is a folder's and holds
// no slash, so no key is another class's name, and two names with the
// same text have different keys.
func classKey(class string) string {
	b64 := jsonname.B64(class)
	if b64 == "" {
		return class
	}
	return jsonname.Text(class) + "/" + b64
}

// WriteJSON writes the report as setmatch test --json prints it: one JSON
// object, indented. A class or set name that is not valid UTF-8 is
// written by jsonname's convention: as JSON writes it, U+FFFD for each
// bad byte, with its exact bytes in base64 beside it (class_b64,
// set_b64); per_class's keys are classKey's. Two classes that would share
// a key (names with a slash, which no folder has) are an error, not one
// row in place of two.
func (s *Report) WriteJSON(w io.Writer) error {
	out := *s
	out.PerSet = make([]SetOutcome, len(s.PerSet))
	for i, one := range s.PerSet {
		one.ClassB64, one.SetB64 = jsonname.B64(one.Class), jsonname.B64(one.Set)
		out.PerSet[i] = one
	}
	out.PerClass = make(map[string]ClassOutcome, len(s.PerClass))
	for c, row := range s.PerClass {
		key := classKey(c)
		if _, dup := out.PerClass[key]; dup {
			return fmt.Errorf("two classes have the key %q in per_class: rename one of their folders", key)
		}
		row.ClassB64 = jsonname.B64(c)
		out.PerClass[key] = row
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(&out)
}

// eachClass says, where the model gives each class a threshold of its
// own, what the threshold printed is; "" otherwise.
func (s *Report) eachClass() string {
	if !s.ClassThresholds {
		return ""
	}
	return " times each class's factor: setmatch inspect lists them"
}

// pointerText is a threshold of the report as the table prints it: in
// full, or +Inf for none (a closed set).
func pointerText(t *float64) string {
	if t == nil {
		return "+Inf"
	}
	return formatFloat(*t)
}

// setCount is n sets in words: "1 set", "0 sets", "3 sets".
func setCount(n int) string {
	if n == 1 {
		return "1 set"
	}
	return fmt.Sprintf("%d sets", n)
}

// WriteTable writes the report as setmatch test prints it: the accuracy,
// the known sets rejected and the strangers let in, the balanced accuracy
// and the threshold-free rates, the failures, the time per set, and the
// confusion table per class.
func (s *Report) WriteTable(w io.Writer) error {
	if len(s.Members) > 0 {
		th := make([]string, len(s.Members))
		for i, m := range s.Members {
			th[i] = m + " " + pointerText(s.Thresholds[i])
		}
		fmt.Fprintf(w, "model %s (%s, thresholds %s%s) on %s\n", s.Model, s.Method, strings.Join(th, ", "), s.eachClass(), s.Data)
	} else {
		fmt.Fprintf(w, "model %s (%s, threshold %s%s) on %s\n", s.Model, s.Method, pointerText(s.Threshold), s.eachClass(), s.Data)
	}
	fmt.Fprintf(w, "accuracy %.1f%% (%d of %s)\n", s.Accuracy, s.Correct, setCount(s.Sets))
	fmt.Fprintf(w, "known classes: %s, %d rejected as unknown, %d given another label\n", setCount(s.Sets-s.Unknown), s.KnownRejected, s.Misclassified)
	fmt.Fprintf(w, "unknown classes: %s, %d accepted as a known class\n", setCount(s.Unknown), s.UnknownAccepted)
	if b := s.BalancedAccuracy; b != nil {
		fmt.Fprintf(w, "balanced accuracy %.1f%% (the mean of the shares of known sets named right and of unknown sets rejected: the accuracy if both came as often)\n", *b)
	}
	if o := s.OpenSet; o != nil {
		fmt.Fprintf(w, "whatever the threshold: %.1f%% of the unknown sets are let in when 95%% of the known sets are (threshold %.6g), %.1f%% at 99%% (threshold %.6g)\n",
			100*o.StrangersIn95, o.Threshold95, 100*o.StrangersIn99, o.Threshold99)
		fmt.Fprintf(w, "the best single threshold on these sets, %.6g, reaches a balanced accuracy of %.1f%%\n", o.BestThreshold, 100*o.BestBalanced)
		if o.Approximate {
			fmt.Fprintf(w, "(a vote: these come from the deciding members' scores, on different scales, so they are approximate)\n")
		}
	}
	if s.Failed > 0 {
		fmt.Fprintf(w, "failed: %s could not be read or decided, counted as wrong (see above)\n", setCount(s.Failed))
	}
	fmt.Fprintf(w, "%.3g ms per set\n\n", s.MsPerSet)
	classes := make([]string, 0, len(s.PerClass))
	for c := range s.PerClass {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "class\tin model\tsets\tright\taccuracy\tdecided as")
	for _, c := range classes {
		row := s.PerClass[c]
		preds := make([]string, 0, len(row.Predicted))
		for p := range row.Predicted {
			preds = append(preds, p)
		}
		// Most frequent first, then by name.
		slices.SortFunc(preds, func(a, b string) int {
			if d := row.Predicted[b] - row.Predicted[a]; d != 0 {
				return d
			}
			return strings.Compare(a, b)
		})
		var parts []string
		for _, p := range preds {
			parts = append(parts, fmt.Sprintf("%s×%d", NameText(p), row.Predicted[p]))
		}
		in := "yes"
		if !row.Known {
			in = "no"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.1f%%\t%s\n", NameText(c), in, row.Sets, row.Correct, row.Accuracy, strings.Join(parts, " "))
	}
	return tw.Flush()
}
