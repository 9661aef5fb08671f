#!/usr/bin/python3
"""Session 27: the call, its plan as users get it (on CUDA a graph replay: plan_graph 1) and the
plan with Kokkos' launch (PlanLaunch::kernel), each against the plain kernel (vs_plain,
plan_vs_plain, plan_kernel_vs_plain) and in host time; medians over the passes of each entry,
then over the entries of 1-64 and of 256-1024 tokens; the empty launches.
    cd <run dir> && python3 ../summarize-plan-graph.py"""
import collections
import glob
import json
import statistics as st

runs = collections.defaultdict(list)
for f in sorted(glob.glob("plan-*.json")):
    for b in json.load(open(f))["benchmarks"]:
        runs[b["name"].split("/min_time")[0]].append(b)


def med(name, key):
    xs = [b[key] for b in runs[name] if key in b]
    return st.median(xs) if xs else None


print("launch entries (median over passes): total us, host us")
for n in runs:
    if n.startswith("launch/"):
        print("  %-32s %.3f %.3f" % (n, med(n, "median_us"), med(n, "host_us")))
keys = ["vs_plain", "plan_vs_plain", "plan_kernel_vs_plain", "host_us", "plan_host_us",
        "plan_kernel_host_us", "plain_host_us"]
rows = []
not_graph = 0
for n in runs:
    if n.startswith("merge/") and med(n, "plan_vs_plain") is not None:
        not_graph += sum(1 for b in runs[n] if b.get("plan_graph") != 1)
        r = {k: med(n, k) for k in keys}
        r["tokens"] = int(n.split("/")[2].split("x")[0])
        rows.append(r)
print("plan entries not replaying a graph: %d" % not_graph)
for lo, hi in [(1, 64), (256, 1024)]:
    sel = [r for r in rows if lo <= r["tokens"] <= hi and None not in r.values()]
    if sel:
        print("%d-%d tokens (n=%d): " % (lo, hi, len(sel)) + ", ".join(
            "%s %.3f" % (k, st.median([r[k] for r in sel])) for k in keys))
        print("  plan above 1.0 x plain: %d, above 1.15: %d" % (
            sum(r["plan_vs_plain"] > 1.0 for r in sel), sum(r["plan_vs_plain"] > 1.15 for r in sel)))
make = [(med(n, "plan_make_us"), med(n, "plan_kernel_make_us")) for n in runs
        if n.startswith("merge/") and med(n, "plan_make_us") is not None]
if make and None not in make[0]:
    print("host us to make a plan (median of entries): with its graph %.1f, Kokkos' launch %.1f" % (
        st.median(m[0] for m in make), st.median(m[1] for m in make)))
for f in sorted(glob.glob("plan-*.json")):
    bs = json.load(open(f))["benchmarks"]
    sel = [b for b in bs if b["name"].startswith("merge/") and "plan_vs_plain" in b
           and int(b["name"].split("/")[2].split("x")[0]) <= 64]
    if sel:
        print("%s: 1-64 tokens plan_vs_plain median %.3f (n=%d)" % (
            f, st.median(b["plan_vs_plain"] for b in sel), len(sel)))
