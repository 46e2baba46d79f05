// Package eval is the experiment harness of the methods of package method,
// as in the experiments of Harandi et al., "Beyond Gauss".
//
// A Protocol turns a labelled Data set into Splits (random gallery/probe
// sets per class, leave-one-out, or a split file; ORL-style pooled data
// draw their sets from each class's frames). Evaluate runs the methods on
// every split (method.Run, every hyper-parameter chosen by
// cross-validation over the gallery sets only; the probes are classified
// once, with the chosen parameters), reports its progress, and collects
// the accuracies into a Result: the table of `setmatch eval`, which
// Result.WriteTable writes to a writer the command hands over.
package eval
