package bench

import "fmt"

// OptionError is Check's error of values of a benchmark's options: its
// message names them by their meaning, and Fields by the options' fields
// (MatchOptions.Gallery: "Gallery"), in the order the message takes
// them, for a command to say which of its flags set them.
type OptionError struct {
	Fields []string
	Msg    string
}

func (e *OptionError) Error() string { return e.Msg }

// optionErr returns the OptionError of fields with the message format
// gives.
func optionErr(fields []string, format string, a ...any) error {
	return &OptionError{Fields: fields, Msg: fmt.Sprintf(format, a...)}
}
