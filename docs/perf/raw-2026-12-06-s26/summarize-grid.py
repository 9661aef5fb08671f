#!/usr/bin/python3
"""Session 26: the whole grid's summary as the README quotes it, for each bench.json given.
    python3 summarize-grid.py ../h200-2026-12-06-s26.json run2-h200/b/grid/bench.json
2-way entries of >= 2^17 pairs (tokens x heads) at head size >= 64: median % of copy (min),
entries at >= 100 %; time / plain from 256 tokens: median (max); 1-64 tokens: time / plain and
plan / plain medians; N states: % of copy and the speed-up over folding, per type and S."""
import json
import statistics as st
import sys

for path in sys.argv[1:]:
    bs = [b for b in json.load(open(path))["benchmarks"] if b.get("run_type") != "aggregate"]
    print("==", path)
    for ty in ("float", "half", "bf16"):
        two = []
        for b in bs:
            p = b["name"].split("/")
            if p[0] == "merge" and p[1] == ty:
                t, h, d = (int(x) for x in p[2].split("x"))
                two.append((t, h, d, b))
        big = [b["pct_of_copy"] for t, h, d, b in two if t * h >= 2**17 and d >= 64]
        mid = [b["vs_plain"] for t, h, d, b in two if t >= 256 and "vs_plain" in b]
        small = [b for t, h, d, b in two if t <= 64 and "vs_plain" in b]
        plan = [b["plan_vs_plain"] for b in small if "plan_vs_plain" in b]
        print("%-5s >=2^17 pairs: median %.1f %% (min %.1f), %d of %d >= 100 %%; "
              ">=256 tokens time/plain %.3f (max %.2f); 1-64 tokens call %.3f (max %.2f), "
              "plan %.3f (max %.2f, n=%d)" % (
                  ty, st.median(big), min(big), sum(x >= 100 for x in big), len(big),
                  st.median(mid), max(mid), st.median([b["vs_plain"] for b in small]),
                  max(b["vs_plain"] for b in small), st.median(plan), max(plan), len(plan)))
    for b in bs:
        if b["name"].startswith("nway/"):
            print("  %-32s %.1f %% of copy, %.2fx over folding" % (
                b["name"].split("/min_time")[0], b["pct_of_copy"], b.get("speedup_vs_fold", float("nan"))))
    small = [b for b in bs if b["name"].startswith("merge/") and "plan_vs_plain" in b
             and int(b["name"].split("/")[2].split("x")[0]) <= 64]
    print("all types, 1-64 tokens (n=%d): call %.3f, plan %.3f" % (
        len(small), st.median([b["vs_plain"] for b in small]),
        st.median([b["plan_vs_plain"] for b in small])))
