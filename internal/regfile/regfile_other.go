//go:build !unix

package regfile

const oNonBlock = 0
