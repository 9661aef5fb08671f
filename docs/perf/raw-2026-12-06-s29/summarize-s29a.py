#!/usr/bin/python3
"""Session 29, run-s29a.sh: the median over passes of each entry's time (median_us: the whole call
with its fence), then
1. per decode case (type, S, shape): A's built-in shape against A's forced forms (batches of 4 / 8 /
   16 states, the row prefetch; 32 and 8 lanes), each form's time / auto, medians per form;
2. C / A per entry (the one-pair weights' exponentials by the lanes), median per label and S;
3. varlen (C): the built-in shape against the forced ones;
4. C's decode launches: forced form / built-in;
5. the full grid's N-way entries, A and C.

    summarize-s29a.py <folder with decodeA-*.json, decodeC-*.json, varlen-*.json>
"""
import glob
import json
import re
import statistics
import sys
from collections import defaultdict


def entries(pattern, key="median_us"):
    out = defaultdict(list)
    for path in sorted(glob.glob(pattern)):
        for b in json.load(open(path))["benchmarks"]:
            if b.get("run_type") == "aggregate" or "error_occurred" in b:
                continue
            out[b["name"].split("/min_time")[0]].append(b.get(key, 0))
    return {k: statistics.median(v) for k, v in out.items()}, {k: len(v) for k, v in out.items()}


def cases_of(med):
    cases = defaultdict(dict)
    for name, v in med.items():
        p = name.split("/")  # prefix/type/S/shape/label
        cases[tuple(p[1:4])][p[4]] = v
    return cases


def key(c):
    return (c[0], int(c[1][1:]), int(c[2].split("x")[2]), int(c[2].split("x")[0]))


def forced_table(title, med, n):
    cases = cases_of(med)
    print(title)
    per_form = defaultdict(list)
    for c in sorted(cases, key=key):
        forms = cases[c]
        auto = forms.get("auto")
        if not auto:
            continue
        ranked = sorted((v, k) for k, v in forms.items() if k != "auto")
        print("%-5s %-4s %-11s auto %7.2f  %s" % (c[0], c[1], c[2], auto, "  ".join(
            "%s %.3f" % (re.sub(r"_g\d+_k1", "", k), v / auto) for v, k in ranked[:5])))
        for k, v in forms.items():
            if k != "auto":
                per_form[(re.sub(r"_g\d+", "", k), c[0], c[1])].append(v / auto)
    print("\nform / auto, median over the shapes, per type and S (shapes):")
    for k in sorted(per_form, key=lambda k: (k[0], k[1], int(k[2][1:]))):
        v = per_form[k]
        print("  %-26s %-5s %-4s %.3f (%.3f-%.3f, %d)" % (k[0], k[1], k[2], statistics.median(v),
                                                       min(v), max(v), len(v)))
    print("passes per entry: %s\n" % sorted(set(n.values())))


def main():
    d = sys.argv[1]
    a, na = entries(d + "/decodeA-*.json")
    b, nb = entries(d + "/decodeC-*.json")
    v, nv = entries(d + "/varlen-*.json")
    forced_table("1. decode launches, A: forced form / built-in (µs of auto)", a, na)
    print("2. C / A per entry, median per label, type and S (entries):")
    groups = defaultdict(list)
    for name in sorted(set(a) & set(b)):
        p = name.split("/")
        groups[(re.sub(r"_g\d+", "", p[4]), p[1], p[2])].append(b[name] / a[name])
    allr = []
    for k in sorted(groups, key=lambda k: (k[0], k[1], int(k[2][1:]))):
        r = groups[k]
        allr += r
        print("  %-26s %-5s %-4s %.3f (%.3f-%.3f, %d)" % (k[0], k[1], k[2], statistics.median(r),
                                                       min(r), max(r), len(r)))
    if allr:
        print("  all: median %.3f (%.3f-%.3f, %d)\n" % (statistics.median(allr), min(allr),
                                                       max(allr), len(allr)))
    forced_table("3. varlen launches (C): forced form / built-in", v, nv)
    forced_table("4. decode launches, C: forced form / built-in (µs of auto)", b, nb)
    na_, _ = entries(d + "/nwayA-*.json")
    nc_, _ = entries(d + "/nwayC-*.json")
    print("5. the full grid's N-way entries: µs A, µs C, C / A; % of copy A, C")
    pa, _ = entries(d + "/nwayA-*.json", "pct_of_copy")
    pc, _ = entries(d + "/nwayC-*.json", "pct_of_copy")
    for name in sorted(set(na_) & set(nc_)):
        print("  %-40s %8.2f %8.2f %.3f  %5.1f %5.1f" % (name, na_[name], nc_[name],
                                                      nc_[name] / na_[name], pa[name], pc[name]))



if __name__ == "__main__":
    main()
