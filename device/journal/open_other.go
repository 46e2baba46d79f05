//go:build !unix

package journal

const (
	oNoFollow = 0
	oNonBlock = 0
)
