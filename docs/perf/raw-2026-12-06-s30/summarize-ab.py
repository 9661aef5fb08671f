#!/usr/bin/env python3
"""Session 30: two benches in alternating passes (run-s30c.sh; session 37's run-s37.sh too): for each
entry the median over the passes of each bench's median time (µs) and pct_of_copy, and the time
ratio M / L; then the median ratio per group (kind, type, state count where the name has one,
1-64 tokens or larger).
   summarize-ab.py <dir with <merge|nway|varlen...>-<L|M>-<pass>.json (or .json.gz)>"""
import glob, gzip, json, re, statistics, sys
from collections import defaultdict

vals = defaultdict(lambda: defaultdict(list))  # name -> bench -> [(us, pct)]
for f in sorted(glob.glob(sys.argv[1] + "/*-[LM]-*.json*")):
    bench = re.search(r"-([LM])-\d+\.json", f).group(1)
    for b in json.load((gzip.open if f.endswith(".gz") else open)(f, "rt"))["benchmarks"]:
        if b.get("error_occurred"):
            continue
        vals[b["name"].split("/min_time")[0]][bench].append((b["median_us"], b.get("pct_of_copy", 0)))
ratios = defaultdict(list)
print("entry: L µs, M µs, M / L; L % of copy, M % of copy (medians over passes)")
for name in sorted(vals):
    v = vals[name]
    if "L" not in v or "M" not in v:
        continue
    l = statistics.median(x[0] for x in v["L"])
    m = statistics.median(x[0] for x in v["M"])
    lp = statistics.median(x[1] for x in v["L"])
    mp = statistics.median(x[1] for x in v["M"])
    print(f"{name:40s} {l:9.2f} {m:9.2f} {m / l:6.3f}  {lp:6.1f} {mp:6.1f}")
    parts = name.split("/")
    shape = next(p for p in parts if re.fullmatch(r"\d+x\d+x\d+", p))
    small = int(shape.split("x")[0]) <= 64
    states = [p for p in parts[2:] if re.fullmatch(r"S\d+", p)]
    ratios[tuple(parts[:2] + states) + ("1-64 tokens" if small else "larger",)].append(m / l)
print("\nmedian M / L per group (count):")
for k in sorted(ratios):
    print(" ".join(k), f"{statistics.median(ratios[k]):.3f} ({len(ratios[k])})")
