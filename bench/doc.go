// Package bench measures setmatch on generated data on this machine: the
// gallery matcher against one query (Match), one training run of W
// (Train), and the sweep of setmatch bench train (Sweep), which runs the
// whole of setmatch train in a child process for every size and decides
// held-out sets with the model it writes; and their reports as setmatch
// bench prints them (WriteTable, WriteRuns).
//
// Sweep writes its data to a folder, runs a child process and reads back
// the model it wrote and the held-out sets to decide them; ReadRuns
// reads a sweep's outcomes back from a file (setmatch bench train --from),
// Plot draws outcomes into one (--plot), and Machine reads the CPU's name
// from /proc/cpuinfo; the rest is computation and timing.
package bench
