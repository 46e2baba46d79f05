package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"setmatch/device/devicetest"
	"setmatch/device/spool"
	"setmatch/internal/testexec"
	"setmatch/internal/testutil"
	"setmatch/synth"
)

// imageFixture is a fixture whose model is trained on image sets
// (devicetest.ImageModel, pipeline devicetest.ImageSpec), with a label pin
// for brick and at most maxBurst frames per burst.
func imageFixture(t *testing.T, maxBurst int) *devicetest.Fixture {
	t.Helper()
	f := devicetest.NewFixture(t, "")
	devicetest.WriteImageModel(t, f.Model)
	text := strings.Replace(f.ConfigText(""), `alice = "GPIO22"`, `brick = "GPIO22"`, 1)
	text = strings.Replace(text, "done_max_files = 5000\n", fmt.Sprintf("done_max_files = 5000\nmax_burst_frames = %d\n", maxBurst), 1)
	if err := os.WriteFile(f.Config, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// pngHeader returns the start of a PNG that declares w×h 8-bit grey pixels:
// a valid signature and IHDR chunk, then nothing.
func pngHeader(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8] = 8 // bit depth; colour type 0 (grey), no interlace
	binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	chunk := append([]byte("IHDR"), ihdr...)
	b.Write(chunk)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

// burstFiles encodes frames as f000.ext, f001.ext, ….
func burstFiles(t *testing.T, frames []*image.Gray, ext string) map[string][]byte {
	files := map[string][]byte{}
	for i, img := range frames {
		files[fmt.Sprintf("f%03d%s", i, ext)] = devicetest.EncodeFrame(t, img, ext)
	}
	return files
}

// peakRSS returns the peak resident memory (VmHWM) of process pid, in MiB.
func peakRSS(t testing.TB, pid int) float64 {
	t.Helper()
	return procMiB(t, pid, "VmHWM")
}

// procMiB returns the field (VmHWM, VmRSS) of /proc/pid/status, in MiB.
func procMiB(t testing.TB, pid int, field string) float64 {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		var kb float64
		if _, err := fmt.Sscanf(line, field+": %f kB", &kb); err == nil {
			return kb / 1024
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// TestDaemonImageBursts runs the real setmatchd on a model trained on image
// sets: bursts of PNG and JPEG frames renamed into new/ are recognised and
// journaled; every kind of bad burst ends in failed/, whole, with a reason;
// the daemon stays up, handles a burst after them, and its peak memory
// stays below 200 MiB (natively: under an emulator the process measured is
// the emulator).
func TestDaemonImageBursts(t *testing.T) {
	ctx := testContext(t, e2eBudget)
	const maxBurst = 12
	f := imageFixture(t, maxBurst)
	p := startDaemon(t, ctx, f)
	want := dropGoodBursts(t, f)
	bad := dropBadBursts(t, f, maxBurst)

	// An archive of frames is no burst, and says so.
	tar := filepath.Join(f.Spool, spool.DirTmp, "frames.tar")
	os.WriteFile(tar, []byte("not read"), 0o644)
	f.RenameIn(t, tar)

	done := filepath.Join(f.Spool, spool.DirDone)
	failed := filepath.Join(f.Spool, spool.DirFailed)
	testutil.WaitForCtx(t, ctx, "every burst handled", func() bool {
		return len(testutil.Names(t, done)) == len(want) && len(devicetest.Batches(t, failed)) == len(bad)+1
	})
	if reason, err := os.ReadFile(filepath.Join(failed, spool.DirReasons, "frames.tar")); err != nil || !strings.Contains(string(reason), "not archives") {
		t.Errorf("frames.tar: reason %q, %v", reason, err)
	}
	// Still up, and still recognising.
	f.DropBurst(t, "after", devicetest.ImageSet(t, "grass", 11), ".jpg")
	want["after"] = "grass"
	testutil.WaitForCtx(t, ctx, "the burst after the bad ones", func() bool { return len(testutil.Names(t, done)) == len(want) })
	rss := peakRSS(t, p.cmd.Process.Pid)
	p.stop()

	checkBadBursts(t, f, bad)
	checkBurstJournal(t, f, want, bad)
	if s := p.stderr.String(); !strings.Contains(s, "pin=GPIO22") {
		t.Errorf("brick's pin never pulsed:\n%s", s)
	}
	t.Logf("peak RSS of the daemon process: %.1f MiB", rss)
	if len(daemonPrefix) == 0 && rss >= 200 {
		t.Errorf("peak RSS %.1f MiB, want < 200 MiB", rss)
	}
}

// dropGoodBursts drops fresh sets of every class of f's model, PNG and
// JPEG, and one whose frames differ in size (the spec resizes every frame
// to 64×64: accepted), and returns the label each should be given, by
// name.
func dropGoodBursts(t *testing.T, f *devicetest.Fixture) map[string]string {
	t.Helper()
	want := map[string]string{}
	for i, l := range devicetest.ImageLabels {
		for k, ext := range []string{".png", ".jpg"} {
			name := fmt.Sprintf("%s-%d", l, k)
			f.DropBurst(t, name, devicetest.ImageSet(t, l, devicetest.ImageTrainSets+k), ext)
			want[name] = l
		}
		if i == 1 {
			frames := devicetest.ImageSet(t, l, devicetest.ImageTrainSets+2)
			small := synth.ImageOptions{Classes: devicetest.ImageOptions.Classes, Frames: 5, W: 64, H: 48, Seed: devicetest.ImageOptions.Seed}
			more, err := small.ImageSet(i, devicetest.ImageTrainSets+2)
			if err != nil {
				t.Fatal(err)
			}
			f.DropBurst(t, l+"-sizes", append(frames[:5], more...), ".png")
			want[l+"-sizes"] = l
		}
	}
	return want
}

// dropBadBursts drops bursts the daemon must fail (more than maxBurst
// frames, a frame too large, truncated, corrupt or not an image, empty, a
// sub-directory, symbolic links) and returns what the reason of each must
// mention, by name.
func dropBadBursts(t *testing.T, f *devicetest.Fixture, maxBurst int) map[string]string {
	t.Helper()
	good := devicetest.EncodeFrame(t, devicetest.ImageSet(t, "wood", 9)[0], ".png")
	corrupt := bytes.Clone(good)
	for i := len(corrupt) / 2; i < len(corrupt)/2+64; i++ {
		corrupt[i] ^= 0x5a
	}
	many := burstFiles(t, append(devicetest.ImageSet(t, "wood", 9), devicetest.ImageSet(t, "wood", 10)...)[:maxBurst+1], ".png")
	bad := map[string]string{}
	for name, b := range map[string]struct {
		files map[string][]byte
		want  string // in the reason
	}{
		"too-many":     {many, fmt.Sprintf("more than %d entries, the limit of frames per burst: send fewer frames or raise the frame limit (the daemon's limits: spool.max_burst_frames = %d", maxBurst, maxBurst)},
		"huge-header":  {map[string][]byte{"f000.png": good, "f001.png": pngHeader(60000, 60000)}, "pixels (the daemon's limits: spool.max_burst_frames"},
		"truncated":    {map[string][]byte{"f000.png": good, "f001.png": good[:len(good)/2]}, "f001.png"},
		"corrupt":      {map[string][]byte{"f000.png": good, "f001.png": corrupt}, "f001.png"},
		"not-an-image": {map[string][]byte{"f000.png": good, "notes.txt": []byte("hello")}, "not a frame image"},
		"text-as-jpeg": {map[string][]byte{"f000.png": good, "f001.jpg": []byte("this is not a JPEG")}, "f001.jpg"},
		"empty":        {map[string][]byte{}, "empty"},
	} {
		f.RenameIn(t, f.WriteBurstTmp(t, name, b.files))
		bad[name] = b.want
	}
	// A sub-directory, and links to a frame inside the burst and to a
	// file outside the spool.
	nested := f.WriteBurstTmp(t, "nested", map[string][]byte{"f000.png": good, "sub/f001.png": good})
	f.RenameIn(t, nested)
	bad["nested"] = "directory"
	outside := filepath.Join(t.TempDir(), "secret.png")
	os.WriteFile(outside, good, 0o644)
	for name, target := range map[string]string{"link-inside": "f000.png", "link-outside": outside} {
		dir := f.WriteBurstTmp(t, name, map[string][]byte{"f000.png": good})
		if err := os.Symlink(target, filepath.Join(dir, "f001.png")); err != nil {
			t.Fatal(err)
		}
		f.RenameIn(t, dir)
		bad[name] = "symbolic link"
	}
	return bad
}

// checkBadBursts checks that every bad burst (name → what its reason must
// mention) is kept in failed/ as a directory with a reason that names the
// burst, not its path in cur/.
func checkBadBursts(t *testing.T, f *devicetest.Fixture, bad map[string]string) {
	t.Helper()
	failed := filepath.Join(f.Spool, spool.DirFailed)
	for name, want := range bad {
		reason, err := os.ReadFile(filepath.Join(failed, spool.DirReasons, name))
		if err != nil || !strings.Contains(string(reason), want) {
			t.Errorf("%s: reason %q (%v), want it to mention %q", name, reason, err, want)
		}
		if strings.Contains(string(reason), f.Spool) {
			t.Errorf("%s: reason %q names the burst's path in cur/, not the burst", name, reason)
		}
		if fi, err := os.Lstat(filepath.Join(failed, name)); err != nil || !fi.IsDir() {
			t.Errorf("%s: not kept in failed/ as a directory: %v", name, err)
		}
	}
}

// checkBurstJournal checks f's journal: every burst's line says so, the
// bad ones failed with a reason, and the good ones (want: name → label)
// were decided right from all their frames.
func checkBurstJournal(t *testing.T, f *devicetest.Fixture, want, bad map[string]string) {
	t.Helper()
	got := map[string]string{}
	for _, r := range devicetest.ReadJournal(t, f.Journal) {
		if r.File == "frames.tar" {
			continue
		}
		if !r.Burst {
			t.Errorf("%s: journal line does not say burst: %+v", r.File, r)
		}
		if _, ok := bad[r.File]; ok {
			if r.Decision != "failed" || r.Reason == "" {
				t.Errorf("journal for %s: %+v", r.File, r)
			}
			continue
		}
		got[r.File] = r.Decision
		if wantFrames := devicetest.ImageOptions.Frames; r.Frames != wantFrames || r.Bytes <= 0 || r.Score == nil {
			t.Errorf("%s: journal line %+v, want %d frames", r.File, r, wantFrames)
		}
	}
	for name, l := range want {
		if got[name] != l {
			t.Errorf("%s: decision %q, want %q", name, got[name], l)
		}
	}
}

// TestCameraBurstHelp: camera-burst.sh -h prints its usage, with the
// variables that choose the capture, on standard output and succeeds; an
// unknown option is a usage error (exit 2).
func TestCameraBurstHelp(t *testing.T) {
	ctx := testContext(t, e2eBudget)
	script := filepath.Join("..", "..", "scripts", "camera-burst.sh")
	out, err := testexec.CombinedOutput(t, ctx, exec.Command("bash", script, "-h"))
	if err != nil || !strings.HasPrefix(string(out), "usage: camera-burst.sh [-s SPOOL] [-n FRAMES] [NAME]") || !strings.Contains(string(out), "$CAPTURE") {
		t.Errorf("camera-burst.sh -h: %v\n%s", err, out)
	}
	out, err = testexec.CombinedOutput(t, ctx, exec.Command("bash", script, "-x"))
	if ee := (*exec.ExitError)(nil); !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "usage: camera-burst.sh") {
		t.Errorf("camera-burst.sh -x: %v\n%s", err, out)
	}
}

// TestCameraBurstScript runs scripts/camera-burst.sh with a fake camera (a
// script that copies image files, given as CAPTURE) against the real
// daemon: the burst arrives whole in new/ and is recognised; a capture that
// fails leaves nothing in the spool and says that it failed. The camera runs with umask 027, and its
// burst's directory is group-writable all the same (mode 2770), as the
// daemon, another user of the spool's group, needs it to be to move it
// (device/spool's TestClaimCameraBurst).
func TestCameraBurstScript(t *testing.T) {
	ctx := testContext(t, e2eBudget)
	f := imageFixture(t, 64)
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "camera-burst.sh"))
	if err != nil {
		t.Fatal(err)
	}
	// The camera's frames: a fresh set of cloth, as JPEG.
	src := t.TempDir()
	for n, b := range burstFiles(t, devicetest.ImageSet(t, "cloth", 7), ".jpg") {
		os.WriteFile(filepath.Join(src, n), b, 0o644)
	}
	fake := filepath.Join(t.TempDir(), "fakecam")
	os.WriteFile(fake, []byte("#!/bin/sh\n# fakecam DIR N: copy the first N frames of $FAKE_FRAMES into DIR.\n"+
		"set -e\nls \"$FAKE_FRAMES\" | head -n \"$2\" | while read -r f; do cp \"$FAKE_FRAMES/$f\" \"$1/\"; done\n"), 0o755)
	for _, d := range []string{spool.DirTmp, spool.DirNew} {
		os.MkdirAll(filepath.Join(f.Spool, d), 0o770)
	}
	camera := func(env []string, args ...string) (string, error) {
		cmd := exec.Command("bash", append([]string{"-c", `umask 027 && exec bash "$0" "$@"`, script, "-s", f.Spool}, args...)...)
		cmd.Env = append(os.Environ(), env...)
		out, err := testexec.CombinedOutput(t, ctx, cmd)
		return string(out), err
	}
	// A failing capture: nothing is left behind, the script says so
	// (false itself prints nothing) and exits with the capture's status.
	exit3 := filepath.Join(t.TempDir(), "exit3")
	os.WriteFile(exit3, []byte("#!/bin/sh\nexit 3\n"), 0o755)
	for _, c := range []struct {
		capture string
		code    int
	}{{"false", 1}, {exit3, 3}} {
		out, err := camera([]string{"CAPTURE=" + c.capture}, "-n", "4", "broken")
		want := fmt.Sprintf("camera-burst.sh: the capture failed (CAPTURE=%s, exit %d): nothing was sent to the spool\n", c.capture, c.code)
		if ee := (*exec.ExitError)(nil); !errors.As(err, &ee) || ee.ExitCode() != c.code || out != want {
			t.Errorf("a failing capture (%s): %v, output %q; want exit %d and %q", c.capture, err, out, c.code, want)
		}
		if n := testutil.Names(t, filepath.Join(f.Spool, spool.DirTmp)); len(n) != 0 {
			t.Errorf("a failing capture (%s) left %v in tmp/", c.capture, n)
		}
	}
	p := startDaemon(t, ctx, f)
	out, err := camera([]string{"CAPTURE=" + fake, "FAKE_FRAMES=" + src}, "-n", "8", "door-1")
	if err != nil || !strings.Contains(out, "new/door-1 (8 frames)") {
		t.Fatalf("camera-burst.sh: %v\n%s", err, out)
	}
	testutil.WaitForCtx(t, ctx, "the camera's burst", func() bool { return len(devicetest.ReadJournal(t, f.Journal)) == 1 })
	p.stop()
	r := devicetest.ReadJournal(t, f.Journal)[0]
	if r.File != "door-1" || !r.Burst || r.Frames != 8 || r.Decision != "cloth" {
		t.Errorf("journal: %+v", r)
	}
	if names := testutil.Names(t, filepath.Join(f.Spool, spool.DirDone, "door-1")); len(names) != 8 {
		t.Errorf("done/door-1 holds %v", names)
	}
	if fi, err := os.Stat(filepath.Join(f.Spool, spool.DirDone, "door-1")); err != nil {
		t.Error(err)
	} else if m := fi.Mode(); m.Perm() != 0o770 || m&os.ModeSetgid == 0 {
		t.Errorf("the camera's burst directory has mode %v, want 2770 (group-writable, whatever the camera's umask)", m)
	}
}
