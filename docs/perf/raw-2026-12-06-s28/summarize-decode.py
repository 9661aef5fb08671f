#!/usr/bin/python3
"""Session 28: split-KV decode's N-way launches. Reads run-s28a.sh's nway-<pass>.json and
decode-<pass>.json from the folder given; prints, per entry, the median over passes of median_us
(whole call incl. fence), the plans against the call, and per decode case the built-in shape
("auto") against the best forced shape.

    summarize-decode.py <folder with nway-*.json and decode-*.json>
"""
import glob
import json
import re
import statistics
import sys
from collections import defaultdict


def entries(pattern):
    out = defaultdict(list)
    for path in sorted(glob.glob(pattern)):
        for b in json.load(open(path))["benchmarks"]:
            if b.get("run_type") == "aggregate" or "error_occurred" in b:
                continue
            out[b["name"].split("/min_time")[0]].append(b)
    return out


def med(bs, key):
    xs = [b[key] for b in bs if key in b]
    return statistics.median(xs) if xs else None


def main():
    folder = sys.argv[1]
    nway = entries(folder + "/nway-*.json")
    print("N-way grid entries (median over passes): µs, host µs, % of copy, x faster than fold,"
          " plan / call, kernel plan / call, plan µs")
    for name, bs in sorted(nway.items()):
        f = lambda k, fmt="%.3f": (fmt % med(bs, k)) if med(bs, k) is not None else "-"
        print("%-40s %8s %6s %6s %7s %6s %6s %7s  (%d passes)" % (
            name, f("median_us", "%.1f"), f("host_us", "%.1f"), f("pct_of_copy", "%.1f"),
            f("speedup_vs_fold", "%.2f"), f("plan_vs_call"), f("plan_kernel_vs_call"),
            f("plan_us", "%.1f"), len(bs)))
    dec = entries(folder + "/decode-*.json")
    cases = defaultdict(dict)
    for name, bs in dec.items():
        parts = name.split("/")  # nway-sweep/type/S/shape/label
        cases[tuple(parts[1:4])][parts[4]] = med(bs, "median_us")
    print("\nDecode launches: built-in shape against the forced ones (median µs over passes)")
    ratios = []
    for case in sorted(cases, key=lambda c: (c[0], int(c[1][1:]), int(c[2].split("x")[0]))):
        forms = cases[case]
        auto = forms.get("auto")
        ranked = sorted((v, k) for k, v in forms.items() if k != "auto" and v is not None)
        if auto is None or not ranked:
            continue
        best_v, best_k = ranked[0]
        ratios.append(best_v / auto)
        print("%-5s %-4s %-10s auto %7.2f  best %-24s %7.2f (%.3f x auto); next %s" % (
            case[0], case[1], case[2], auto, best_k, best_v, best_v / auto,
            ", ".join("%s %.2f" % (k, v) for v, k in ranked[1:4])))
    if ratios:
        print("median best / auto over %d cases: %.3f" % (len(ratios), statistics.median(ratios)))
    # Each forced form's time relative to auto, median over the cases.
    per_form = defaultdict(list)
    for case, forms in cases.items():
        auto = forms.get("auto")
        for k, v in forms.items():
            if k != "auto" and auto and v:
                per_form[re.sub(r"_g\d+", "", k)].append(v / auto)
    print("\nForced form / auto (token groups left out of the name), median over cases (cases):")
    for k, v in sorted(per_form.items(), key=lambda kv: statistics.median(kv[1])):
        print("  %-26s %.3f (%d)" % (k, statistics.median(v), len(v)))


if __name__ == "__main__":
    main()
