#!/usr/bin/env python3
"""Measure OpenCV's LBPH recogniser, the usual Raspberry Pi recipe, on the
splits `setmatch eval --splits-out FILE` wrote, for a comparison on the
same gallery and probe sets.

Usage (needs Debian's python3-opencv, which brings numpy):

    setmatch eval --data DIR --features intensity:20x20 \\
        --protocol gallery=2,probe=2,splits=10,strangers=8 --methods nn-h --splits-out splits.txt
    scripts/lbph.py DIR splits.txt

DIR holds image sets, DIR/<class>/<set>/<frame>.png|.pgm (read as grey).
For each split an LBPH recogniser with OpenCV's defaults (radius 1, 8
neighbours, an 8x8 grid) is trained on every frame of the gallery sets.
A probe set is decided by a vote over its frames (ties to the nearer
median distance), and its score is the median distance of the frames
that voted for the winner. A probe set whose class has no gallery set in
its split is a stranger's. LBPH has no calibration, so the figures are
free of any threshold, as setmatch eval's columns of the same names:

    closed          known sets named right, the threshold ignored
    best balanced   the best mean of known sets named right and strangers
                    kept out that any single threshold reaches on the split
    strangers in    the strangers' sets let in by the threshold that lets
                    in 95% of the known sets (open set only)

One line per split, then the mean and sample standard deviation, in
percent.
"""

import os
import statistics
import sys


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: lbph.py DIR SPLITS")
    try:
        import cv2
        import numpy as np
    except ImportError:
        sys.exit("lbph.py needs OpenCV for Python with its contrib modules, which %s cannot import: install Debian's python3-opencv, and run it with Debian's /usr/bin/python3 if another python3 comes first on your PATH" % sys.executable)
    data, split_file = argv[1], argv[2]
    splits = {}
    try:
        f = open(split_file)
    except OSError as e:
        sys.exit(f"{split_file}: {e.strerror}: give the file setmatch eval --splits-out wrote")
    with f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = line.split()
            if len(fields) == 3 and fields[1] in ("visitor", "other"):
                sys.exit(f"{split_file}:{n}: a {fields[1]}'s set, which LBPH has no use for: write the splits without visitors=V and others=O")
            if len(fields) != 3 or fields[1] not in ("gallery", "probe"):
                sys.exit(f"{split_file}:{n}: want \"<split> <gallery|probe> <class>/<set>\", got {line!r}")
            splits.setdefault(int(fields[0]), {"gallery": [], "probe": []})[fields[1]].append(fields[2])

    frames_of = {}

    def frames(name):
        if name not in frames_of:
            folder = os.path.join(data, name)
            if not os.path.isdir(folder):
                sys.exit(f"{split_file} names set {name}, but {folder} is not a folder of frames")
            paths = sorted(p for p in os.listdir(folder) if p.lower().endswith((".png", ".pgm")))
            imgs = [cv2.imread(os.path.join(folder, p), cv2.IMREAD_GRAYSCALE) for p in paths]
            if not imgs or any(i is None for i in imgs):
                sys.exit(f"set {name}: no frames, or a frame OpenCV cannot read, in {folder}")
            frames_of[name] = imgs
        return frames_of[name]

    rows = []
    print("split  closed  best balanced  strangers in @95% known")
    for k in sorted(splits):
        gallery, probe = splits[k]["gallery"], splits[k]["probe"]
        label = {c: i for i, c in enumerate(sorted({n.split("/")[0] for n in gallery}))}
        x, y = [], []
        for name in gallery:
            for img in frames(name):
                x.append(img)
                y.append(label[name.split("/")[0]])
        rec = cv2.face.LBPHFaceRecognizer_create()
        rec.train(x, np.array(y))
        known, strangers = [], []  # (named right, score)
        for name in probe:
            votes = {}
            for img in frames(name):
                got, dist = rec.predict(img)
                votes.setdefault(got, []).append(dist)
            win = max(votes, key=lambda v: (len(votes[v]), -statistics.median(votes[v])))
            c = name.split("/")[0]
            outcome = (label.get(c) == win, statistics.median(votes[win]))
            (known if c in label else strangers).append(outcome)
        if not known:
            sys.exit(f"split {k}: no probe set of a class in the gallery")
        closed = sum(r for r, _ in known) / len(known)
        row = [closed]
        if strangers:
            best = 0.0
            for t in [float("-inf")] + sorted(s for _, s in known + strangers):
                right = sum(r and s <= t for r, s in known) / len(known)
                out = sum(s > t for _, s in strangers) / len(strangers)
                best = max(best, (right + out) / 2)
            ks = sorted(s for _, s in known)
            t95 = ks[-(-95 * len(ks) // 100) - 1]  # the smallest threshold letting in 95% of the known sets
            row += [best, sum(s <= t95 for _, s in strangers) / len(strangers)]
        rows.append(row)
        print(f"{k:5d}  " + "  ".join(f"{100 * v:6.1f}" for v in row), flush=True)
    for name, i in (("closed", 0), ("best balanced", 1), ("strangers in @95% known", 2)):
        vals = [100 * r[i] for r in rows if len(r) > i]
        if vals:
            sd = statistics.stdev(vals) if len(vals) > 1 else 0.0
            print(f"{name}: {statistics.mean(vals):.1f} ± {sd:.1f}")


if __name__ == "__main__":
    main(sys.argv)
