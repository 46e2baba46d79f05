//go:build !unix

package features

// entriesStatByPath is true where there is no fstatat: on Windows,
// Readdir's facts of an entry carry no file identity on a volume without
// object IDs (FAT32 and exFAT, the cards of cameras, many network
// shares), and os.SameFile with the file opened later would say every
// frame was replaced. Each entry is looked up again by its path under
// the root (Lstat) instead, as the frame is opened and checked
// (regfile.OpenIn).
const entriesStatByPath = true
