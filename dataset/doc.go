// Package dataset loads labelled image-set data sets from a directory tree,
// and writes feature-set data sets in the first layout below (Write).
//
// Three layouts are recognised, per class folder:
//
//	<root>/<class>/<set>.npy|.csv      feature sets, rows = frames (n×D)
//	<root>/<class>/<set>/<frame>       one folder per set holding either
//	                                   frame images (PNG, JPEG, PGM, …),
//	                                   read a whole set at a time by
//	                                   Options.Images, or feature files
//	                                   whose rows are stacked in name order
//	<root>/<class>/<frame image>       ORL style: all frames of a class form
//	                                   one pooled set; a protocol draws sets
//	                                   from it (Dataset.Pooled is true)
//
// Classes and sets are sorted by name (byte order), frames within a set
// folder too, so a data set always loads the same way. Hidden entries
// (names starting with '.') and notes (README*, LICENSE*, *.md, *.txt) are
// ignored at every level; any other unexpected entry is an error, as are an
// empty class, a set without frames, feature dimensions that differ between
// sets, and mixing pooled and per-set classes.
//
// A loaded data set is then checked and trimmed for the commands that
// read one: the name a set file or folder gives its set (SetName); the
// sets of another width than a model's set aside (Dataset.KeepDim); data
// no training can use refused (Dataset.CheckTrain), and two sets of the
// same frames found (SameFrames); sets thinned to a frame budget
// (thin.go), and the cap train and eval apply (Dataset.Cap, cap.go).
package dataset
