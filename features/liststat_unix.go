//go:build unix

package features

// entriesStatByPath is false on unix: Readdir stats each entry from the
// folder's descriptor (fstatat), and what it says of a file, os.SameFile
// compares with the file opened later.
const entriesStatByPath = false
