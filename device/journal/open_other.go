//go:build !unix

package journal

const (
	oNoFollow = 0
	oNonBlock = 0
)

// checkBeforeOpen: the path is checked before it is opened (checkPath),
// where the open cannot refuse a link itself.
const checkBeforeOpen = true
