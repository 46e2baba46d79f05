#!/usr/bin/env python3
"""Methods deployed together: the auto study's records of kfda-mix and
nn-h-dr (and kfda-hl) fitted on each split's gallery, and what deciding
every probe set by the more confident of the two, or by a vote of the
three, would recognise.

    python3 scripts/fusionstudy.py [--auto DIR] FILE.jsonl [FILE.jsonl ...]

The records are written by TestAutoStudy (eval/autostudy_test.go) with
STUDY_PROBE_ONLY=1 STUDY_METHODS=kfda-mix,nn-h-dr: per probe set, each
method's distance to the nearest gallery set of every class (kfda-mix in
its latent space, nn-h-dr the Hellinger divergence after W). For every
data set it prints the probe accuracy of each method recorded; where
the records hold kfda-mix and nn-h-dr, also that of the two rules
below, of "either" (a probe set one of the two recognises: a bound no
rule reaches) and how often the two disagree:

  confidence  where they disagree, the label of the method whose relative
              margin (d2 − d1)/(d2 + d1) is larger (d1, d2 the distances
              to the nearest and the second-nearest class);
  ratio       the class of the smallest sum, over the two methods, of the
              distance divided by that method's d1;
  vote        when the records hold kfda-hl too (STUDY_METHODS=
              kfda-mix,nn-h-dr,kfda-hl): the label two or three of the
              three give, kfda-mix's when all three differ;
  auto, vote where auto keeps kfda-mix
              with --auto DIR, which holds DIR/NAME.json, the output of
              setmatch eval --methods auto --json --seed 1 on the same
              data set and protocol (the same splits): auto's accuracy,
              and the vote in the splits where auto chose kfda-mix and
              nn-h-dr where it chose that (records with kfda-hl).
"""
import json
import math
import sys


def ranked(d):
    v = sorted((x if x >= 0 else math.inf, c) for c, x in enumerate(d))
    return v[0][1], v[0][0], v[1][0]


def confidence(d):
    c, d1, d2 = ranked(d)
    return c, (d2 - d1) / (d2 + d1) if d2 + d1 > 0 else 0.0


def ratios(d):
    _, d1, _ = ranked(d)
    out = []
    for x in d:
        x = x if x >= 0 else math.inf
        out.append(x / d1 if d1 > 0 else (1.0 if x == 0 else math.inf))
    return out


def main(files):
    autodir = None
    if files and files[0] == "--auto":
        autodir, files = files[1], files[2:]
    print("data (splits, probe sets): kfda-mix, nn-h-dr, confidence, ratio, either | disagree [| kfda-hl, vote]")
    for p in files:
        with open(p) as f:
            rs = [json.loads(line) for line in f]
        methods = [x["method"] for x in rs[0]["cands"]]
        if not {"kfda-mix", "nn-h-dr"} <= set(methods):
            acc = ", ".join(f"{m} {100.0 * sum(sum(x['probe']) for r in rs for x in r['cands'] if x['method'] == m) / sum(len(r['truth']) for r in rs):.1f}" for m in methods)
            print(f"{rs[0]['data']} ({len(rs)}): {acc} (no rule: the records lack kfda-mix or nn-h-dr)")
            continue
        hits = {k: 0 for k in ("mix", "dr", "confidence", "ratio", "either", "hl", "vote", "hybrid")}
        three = all(any(x["method"] == "kfda-hl" for x in r["cands"]) for r in rs)
        auto = None
        if autodir is not None and not three:
            sys.exit(f"{p}: --auto needs records of kfda-hl too: record them with STUDY_METHODS=kfda-mix,nn-h-dr,kfda-hl")
        if autodir is not None:
            path = f"{autodir}/{rs[0]['data']}.json"
            try:
                with open(path) as f:
                    auto = json.load(f)["methods"]["auto"]
            except (OSError, ValueError, KeyError) as e:
                sys.exit(f"{path}: {e}: want the output of setmatch eval --methods auto --json on the records' data set, protocol and seed")
            if len(auto["params"]) != len(rs):
                sys.exit(f"{p}: {len(rs)} splits, the auto run {len(auto['params'])}: run eval with the records' protocol and seed")
        n = disagree = 0
        for r in rs:
            c = {x["method"]: x for x in r["cands"]}
            m, d = c["kfda-mix"], c["nn-h-dr"]
            for a, t in enumerate(r["truth"]):
                lm, cm = confidence(m["dist"][a])
                ld, cd = confidence(d["dist"][a])
                if (lm == t) != m["probe"][a] or (ld == t) != d["probe"][a]:
                    sys.exit(f"{p}: split {r['split']} probe {a}: distances disagree with the recorded outcome: record it again with the current code")
                fused = lm if lm == ld or cm >= cd else ld
                s = [x + y for x, y in zip(ratios(m["dist"][a]), ratios(d["dist"][a]))]
                summed = min(range(len(s)), key=lambda i: s[i])
                hits["mix"] += lm == t
                hits["dr"] += ld == t
                hits["confidence"] += fused == t
                hits["ratio"] += summed == t
                hits["either"] += lm == t or ld == t
                disagree += lm != ld
                if three:
                    lh, _ = confidence(c["kfda-hl"]["dist"][a])
                    vote = ld if ld == lh else lm
                    hits["hl"] += lh == t
                    hits["vote"] += vote == t
                    if auto is not None:
                        chose = auto["params"][r["split"]].split()[1]
                        if chose not in ("kfda-mix", "nn-h-dr"):
                            sys.exit(f"{p}: split {r['split']}: auto chose {chose}, not kfda-mix or nn-h-dr")
                        hits["hybrid"] += (vote if chose == "kfda-mix" else ld) == t
                n += 1
        a = {k: 100.0 * v / n for k, v in hits.items()}
        print(f"{rs[0]['data']} ({len(rs)}, {n}): {a['mix']:.1f}, {a['dr']:.1f}, {a['confidence']:.1f}, "
              f"{a['ratio']:.1f}, {a['either']:.1f} | {100.0 * disagree / n:.1f}%"
              + (f" | {a['hl']:.1f}, {a['vote']:.1f}" if three else "")
              + (f" | auto {auto['mean']:.1f}, vote where auto keeps kfda-mix {a['hybrid']:.1f}" if auto else ""))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
