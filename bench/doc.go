// Package bench measures setmatch on generated data on this machine: the
// gallery matcher against one query (Match), one training run of W
// (Train), and the sweep of setmatch bench train (Sweep), which runs the
// whole of setmatch train in a child process for every size and decides
// held-out sets with the model it writes; and their reports as setmatch
// bench prints them (WriteTable, WriteRuns).
//
// Sweep writes its data and models to a folder and runs a child process;
// the rest is computation and timing.
package bench
