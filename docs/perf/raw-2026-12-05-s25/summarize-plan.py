#!/usr/bin/python3
"""Session 25: the call (median_us, vs_plain) against its plan (plan_us, plan_vs_plain), medians
over the passes of each entry, then over entries by token count and type.
    cd <run dir> && python3 ../summarize-plan.py"""
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
rows = []
for n in runs:
    if not n.startswith("merge/") or med(n, "plan_us") is None:
        continue
    p = n.split("/")
    rows.append(dict(type=p[1], tokens=int(p[2].split("x")[0]), call=med(n, "median_us"),
                     plan=med(n, "plan_us"), call_host=med(n, "host_us"),
                     plan_host=med(n, "plan_host_us"), plain=med(n, "plain_us"),
                     plain_host=med(n, "plain_host_us"), vs=med(n, "vs_plain"),
                     pvs=med(n, "plan_vs_plain")))
print("%-6s %6s %3s | %-13s | %-17s | %-17s | plain total/host" % (
    "type", "tokens", "n", "vs_plain call/plan", "total us call/plan", "host us call/plan"))
groups = sorted({(r["type"], r["tokens"]) for r in rows}, key=lambda k: (k[0], k[1]))
for ty, tok in groups:
    sel = [r for r in rows if r["type"] == ty and r["tokens"] == tok and r["vs"] is not None]
    if not sel:
        continue
    f = lambda k: st.median([r[k] for r in sel])
    print("%-6s %6d %3d | %.3f / %.3f | %6.2f / %6.2f | %6.2f / %6.2f | %6.2f / %5.2f" % (
        ty, tok, len(sel), f("vs"), f("pvs"), f("call"), f("plan"), f("call_host"),
        f("plan_host"), f("plain"), f("plain_host")))
for lo, hi, label in [(1, 64, "1-64 tokens"), (256, 1024, "256-1024 tokens")]:
    sel = [r for r in rows if lo <= r["tokens"] <= hi and r["vs"] is not None]
    if sel:
        f = lambda k: st.median([r[k] for r in sel])
        print("all %s (n=%d): vs_plain call %.3f plan %.3f; host call %.2f plan %.2f plain %.2f" % (
            label, len(sel), f("vs"), f("pvs"), f("call_host"), f("plan_host"), f("plain_host")))
for f in sorted(glob.glob("plan-*.json")):
    bs = [b for b in json.load(open(f))["benchmarks"] if b["name"].startswith("merge/")
          and "plan_vs_plain" in b and int(b["name"].split("/")[2].split("x")[0]) <= 64]
    print("%s 1-64 tokens: vs_plain call %.3f plan %.3f" % (
        f, st.median([b["vs_plain"] for b in bs]), st.median([b["plan_vs_plain"] for b in bs])))
