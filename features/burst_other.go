//go:build !unix

package features

const oNonBlock = 0
