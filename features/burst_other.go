//go:build !unix

package features

// On systems without O_NOFOLLOW and O_NONBLOCK, links and special files are
// refused from the listing and by the check of the open file.
const (
	oNoFollow = 0
	oNonBlock = 0
)
