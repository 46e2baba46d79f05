#!/usr/bin/env python3
"""Make an image-set data folder from an IDX image file (MNIST, Fashion-MNIST).

Every set is a random draw, without replacement, of FRAMES images of one
class; each image is written as a binary PGM, in the layout that
`setmatch train` and `setmatch eval` read:

    OUT/<class>/<set>/<frame>.pgm

Usage (standard library only):

    scripts/idxsets.py --images t10k-images-idx3-ubyte.gz \
        --labels t10k-labels-idx1-ubyte.gz --sets 6 --frames 20 --seed 1 --out fashion

The images of one class are shuffled once with the seed and dealt to the
sets in turn, so no image is in two sets. It stops with an error when a
class has fewer than SETS x FRAMES images.
"""

import argparse
import gzip
import os
import random
import struct
import sys


def read_idx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    if len(data) < 4 or data[0] != 0 or data[1] != 0 or data[2] != 8:
        raise ValueError(f"{path}: not an IDX file of unsigned bytes")
    ndim = data[3]
    dims = struct.unpack(">" + "I" * ndim, data[4:4 + 4 * ndim])
    body = data[4 + 4 * ndim:]
    size = 1
    for d in dims:
        size *= d
    if len(body) != size:
        raise ValueError(f"{path}: {len(body)} bytes of data, header says {size}")
    return dims, body


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--images", required=True, help="IDX image file (idx3, may be .gz)")
    p.add_argument("--labels", required=True, help="IDX label file (idx1, may be .gz)")
    p.add_argument("--classes", type=int, default=0, help="use the first N classes (0: all)")
    p.add_argument("--sets", type=int, default=6, help="sets per class")
    p.add_argument("--frames", type=int, default=20, help="images per set")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", required=True, help="output folder (must not exist)")
    a = p.parse_args(argv)

    idims, images = read_idx(a.images)
    ldims, labels = read_idx(a.labels)
    if len(idims) != 3 or len(ldims) != 1 or idims[0] != ldims[0]:
        sys.exit(f"idxsets: {a.images} has shape {idims} and {a.labels} {ldims}: want n×rows×cols images and n labels")
    n, rows, cols = idims
    if a.sets < 1 or a.frames < 1:
        sys.exit("idxsets: --sets and --frames must be at least 1")
    if os.path.exists(a.out):
        sys.exit(f"idxsets: {a.out} exists; give a new folder")

    byclass = {}
    for i in range(n):
        byclass.setdefault(labels[i], []).append(i)
    classes = sorted(byclass)
    if a.classes:
        classes = classes[:a.classes]
    rng = random.Random(a.seed)
    need = a.sets * a.frames
    for c in classes:
        idx = byclass[c]
        if len(idx) < need:
            sys.exit(f"idxsets: class {c} has {len(idx)} images, {need} needed: use fewer --sets or --frames")
        rng.shuffle(idx)
        for s in range(a.sets):
            d = os.path.join(a.out, f"c{c:02d}", f"s{s:02d}")
            os.makedirs(d)
            for f in range(a.frames):
                i = idx[s * a.frames + f]
                px = images[i * rows * cols:(i + 1) * rows * cols]
                with open(os.path.join(d, f"{f:03d}.pgm"), "wb") as out:
                    out.write(b"P5\n%d %d\n255\n" % (cols, rows))
                    out.write(px)
    print(f"idxsets: {len(classes)} classes x {a.sets} sets x {a.frames} images ({rows}x{cols}) in {a.out}")


if __name__ == "__main__":
    main(sys.argv[1:])
