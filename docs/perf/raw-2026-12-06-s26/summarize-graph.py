#!/usr/bin/python3
"""Session 26: the call, its plan and the plan's kernel replayed from a CUDA graph, each against the
plain kernel (vs_plain, plan_vs_plain, graph_vs_plain) and in host time, medians over the passes
of each entry, then over the entries of 1-64 and of 256-1024 tokens; the empty launches.
    cd <run dir> && python3 ../summarize-graph.py"""
import collections
import glob
import json
import statistics as st

runs = collections.defaultdict(list)
for f in sorted(glob.glob("graph-*.json")):
    for b in json.load(open(f))["benchmarks"]:
        runs[b["name"].split("/min_time")[0]].append(b)


def med(name, key):
    xs = [b[key] for b in runs[name] if key in b]
    return st.median(xs) if xs else None


print("launch entries (median over passes): total us, host us")
for n in runs:
    if n.startswith("launch/"):
        print("  %-32s %.3f %.3f" % (n, med(n, "median_us"), med(n, "host_us")))
keys = ["vs_plain", "plan_vs_plain", "graph_vs_plain", "host_us", "plan_host_us", "graph_host_us",
        "plain_host_us"]
rows = []
for n in runs:
    if n.startswith("merge/") and med(n, "graph_vs_plain") is not None:
        r = {k: med(n, k) for k in keys}
        r["tokens"] = int(n.split("/")[2].split("x")[0])
        rows.append(r)
for lo, hi in [(1, 64), (256, 1024)]:
    sel = [r for r in rows if lo <= r["tokens"] <= hi]
    if sel:
        print("%d-%d tokens (n=%d): " % (lo, hi, len(sel)) + ", ".join(
            "%s %.3f" % (k, st.median([r[k] for r in sel])) for k in keys))
