#!/usr/bin/env python3
"""Compare auto's selection rules on records of the auto study.

    python3 scripts/autostudy.py [--without M1,M2] FILE.jsonl [FILE.jsonl ...]

Each line is one split written by TestAutoStudy (eval/autostudy_test.go).
For every data set it prints the probe accuracy of each full-space
candidate and of the -dr method as deployed, then, for each rule, the mean
probe accuracy of what the rule deploys and its difference to the best row
and to nn-h. Rules: the highest held-out score (argmax) or the first
candidate within k standard errors of the highest (k = 0.5, 1; "sets":
k = 1 with the standard error of the number of distinct held-out sets
instead of the outcomes of all dealings; "paired": the first candidate
whose shortfall to the highest is within one standard error of the
paired difference, outcome by outcome, over the distinct sets; "dr
second" and "mix or dr": "sets" with kfda-mix, then nn-h-dr, then the
others in order of preference, or kfda-mix and nn-h-dr alone; "hurdle":
kfda-mix unless the highest score leads it by more than two standard
errors over the distinct sets, else "sets" among the others; "mix/dr
3+": "mix or dr" where every class has three or more training sets,
"sets" elsewhere), scored on
the first dealing of the training sets to the outer folds, on the first
two, and so on up to as many as the records hold (STUDY_REPEATS).
--without drops the candidates of those methods from every record first
(the outer folds do not depend on the candidates, so this is the choice
with the smaller candidate list). "best KDE" is the best of the KDE
methods' rows (nn-h, nn-j, kfda-*, nn-h-dr as deployed) on the probes,
"best" the best of every row recorded. Two bounds follow the rules:
"first" always deploys the first candidate, "oracle" the candidate that
did best on the probes of each split (known only after the fact).
"""
import collections
import json
import math
import sys

KDE = ["nn-h", "nn-j", "kfda-hg", "kfda-hl", "kfda-j"]


def acc(v):
    return 100.0 * sum(v) / len(v)


def score(c, deal):
    if not c["cv"] or any(v is None for v in c["cv"]):
        return -1.0, 1
    deal = min(deal, len(c["cv"]))  # frame halves: a single dealing
    v = sum(c["cv"][:deal], [])
    return sum(v) / len(v), len(v)


def argmax(cands, deal):
    best = None
    for i, c in enumerate(cands):
        s, _ = score(c, deal)
        if s >= 0 and (best is None or s > best[0] + 1e-12):
            best = (s, i)
    return best[1]


def within_se(cands, deal, k, sets=False):
    top = argmax(cands, deal)
    p, n = score(cands[top], deal)
    if sets:
        # n distinct held-out sets: a set's outcomes over the dealings
        # are counted once.
        n //= min(deal, len(cands[top]["cv"]))
    se = math.sqrt(max(p * (1 - p), 1.0 / n) / n)
    for i, c in enumerate(cands):
        s, _ = score(c, deal)
        if s >= 0 and s >= p - k * se - 1e-12:
            return i
    return top


def paired(cands, deal, k=1.0):
    # The first candidate whose shortfall to the top is within k standard
    # errors of the paired difference (outcome by outcome on the same
    # held-out sets), over the distinct sets.
    top = argmax(cands, deal)
    t = sum(cands[top]["cv"][:deal], [])
    for i, c in enumerate(cands):
        s, n = score(c, deal)
        if s < 0:
            continue
        v = sum(c["cv"][:deal], [])
        d = [float(a) - float(b) for a, b in zip(t, v)]
        m = sum(d) / len(d)
        var = sum((x - m) ** 2 for x in d) / len(d)
        sets = len(d) // min(deal, len(c["cv"]))
        se = math.sqrt(max(var, 1.0 / sets) / sets)
        if m <= k * se + 1e-12:
            return i
    return top


def reordered(cands, deal, first, rest):
    # The "1-SE sets" rule with the candidates of the methods in first
    # moved to the front, in that order, followed (if rest) by the others
    # in their own order; returns an index into cands.
    order = [i for m in first for i, c in enumerate(cands) if c["method"] == m]
    if rest:
        order += [i for i in range(len(cands)) if i not in order]
    return order[within_se([cands[i] for i in order], deal, 1.0, sets=True)]


def hurdle(cands, deal, k=2.0):
    # kfda-mix (the first candidate) unless the highest score leads it by
    # more than k standard errors of the top (over the distinct sets);
    # otherwise the "1-SE sets" rule among the other candidates.
    if within_se(cands, deal, k, sets=True) == 0:
        return 0
    return 1 + within_se(cands[1:], deal, 1.0, sets=True)


def deployed(r, i):
    c = r["cands"][i]
    # A -dr winner is deployed as Selection.Deploy fits it: the method's
    # own choice again on the whole gallery, except with one set per class
    # (frame halves), where the validated candidate itself is deployed.
    if c["method"] == "nn-h-dr" and "frame halves" not in r.get("folding", "") and r["dr_method_probe"]:
        return acc(r["dr_method_probe"])
    return acc(c["probe"])


def main(args):
    without = set()
    if args and args[0] == "--without":
        without, args = set(args[1].split(",")), args[2:]
    rows = collections.OrderedDict()
    for p in args:
        with open(p) as f:
            for line in f:
                r = json.loads(line)
                r["all"] = r["cands"]
                r["cands"] = [c for c in r["cands"] if c["method"] not in without]
                rows.setdefault(r["data"], []).append(r)
    ref = {}
    for d, rs in rows.items():
        # The reference rows are every method recorded, whatever --without
        # leaves to choose from.
        full = [c["name"] for c in rs[0]["all"] if c["method"] != "nn-h-dr"]
        m = {name: sum(acc(next(c for c in r["all"] if c["name"] == name)["probe"]) for r in rs) / len(rs) for name in full}
        m["nn-h-dr"] = sum(acc(r["dr_method_probe"]) for r in rs) / len(rs)
        kde = max(v for k, v in m.items() if k in KDE or k == "nn-h-dr")
        ref[d] = (kde, max(m.values()), m["nn-h"])
        print(f"{d} ({len(rs)} splits): " + ", ".join(f"{k} {v:.1f}" for k, v in m.items()))
    rules = [("argmax", lambda r, d: argmax(r["cands"], d))]
    for k in (0.5, 1.0):
        rules.append((f"1-SE k={k:g}", lambda r, d, k=k: within_se(r["cands"], d, k)))
    rules.append(("1-SE sets", lambda r, d: within_se(r["cands"], d, 1.0, sets=True)))
    rules.append(("paired", lambda r, d: paired(r["cands"], d)))
    # The lead of docs/TRAINING.md ("The lead checked on fresh data"):
    # nn-h-dr second in the order of preference, or the only other choice.
    rules.append(("dr second", lambda r, d: reordered(r["cands"], d, ["kfda-mix", "nn-h-dr"], True)))
    rules.append(("mix or dr", lambda r, d: reordered(r["cands"], d, ["kfda-mix", "nn-h-dr"], False)))
    # kfda-mix held to a hurdle of two standard errors, then the rule
    # among the others (docs/TRAINING.md, "A hurdle for leaving kfda-mix").
    rules.append(("hurdle", lambda r, d: hurdle(r["cands"], d)))
    # "mix or dr" where every class has three or more training sets (the
    # folds stratified by sets), the rule elsewhere (docs/TRAINING.md,
    # "Only the learned projection against kfda-mix on three sets").
    rules.append(("mix/dr 3+", lambda r, d: reordered(r["cands"], d, ["kfda-mix", "nn-h-dr"], False)
                  if "stratified folds by training sets" in r.get("folding", "") else within_se(r["cands"], d, 1.0, sets=True)))
    # Bounds, not rules: always the first candidate, and the candidate
    # that did best on the probes (as deployed), which no rule can know.
    rules.append(("first", lambda r, d: 0))
    rules.append(("oracle", lambda r, d: max(range(len(r["cands"])), key=lambda i: deployed(r, i))))
    max_deal = max(len(c["cv"] or []) for rs in rows.values() for r in rs for c in r["cands"])
    print("\nrule, dealings: mean over data sets of auto - best KDE row, - best row, - nn-h | per data set: auto (- best KDE, - nn-h)")
    for name, rule in rules:
        for deal in range(1, max_deal + 1):
            parts, dk, db, dn = [], 0.0, 0.0, 0.0
            for d, rs in rows.items():
                a = sum(deployed(r, rule(r, deal)) for r in rs) / len(rs)
                kde, best, nnh = ref[d]
                dk, db, dn = dk + a - kde, db + a - best, dn + a - nnh
                parts.append(f"{d} {a:.1f} ({a - kde:+.1f}, {a - nnh:+.1f})")
            n = len(rows)
            print(f"{name:10s} {deal}: {dk / n:+5.1f} {db / n:+5.1f} {dn / n:+5.1f} | " + "; ".join(parts))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
