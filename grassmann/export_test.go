package grassmann

// What the external tests (package grassmann_test) use of the package's
// inside.

// FrobDot is frobDot.
var FrobDot = frobDot

// WithDefaults returns o with its zero fields set as MinimizeCG sets them
// for a D×d problem.
func (o CGOptions) WithDefaults(D, d int) CGOptions { return o.withDefaults(D, d) }

// Conjugate is conjugate.
var Conjugate = conjugate
