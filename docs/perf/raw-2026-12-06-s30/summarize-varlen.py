#!/usr/bin/env python3
"""Session 30: the varlen sweeps (varlen-pairs/, varlen-ragged/) of run-s30a.sh's passes.
   summarize-varlen.py <dir with varlen-<pass>.json or .json.gz>
For each sweep, type, mean count S and token count: the built-in shape's median time (µs, over the
passes) and each forced lane count's median time / the built-in one's."""
import glob, gzip, json, statistics, sys
from collections import defaultdict

times = defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + "/varlen-*.json*")):
    for b in json.load((gzip.open if f.endswith(".gz") else open)(f, "rt"))["benchmarks"]:
        if "error_occurred" in b and b["error_occurred"]:
            continue
        times[b["name"].split("/min_time")[0]].append(b["median_us"])
rows = defaultdict(dict)
for name, v in times.items():
    sweep, typ, S, shape, form = name.split("/")[:5]
    rows[(sweep, typ, int(S[1:]), shape)][form] = statistics.median(v)
forms = sorted({f for r in rows.values() for f in r if f != "auto"})
print("sweep type S shape: auto µs, then forced / auto for " + ", ".join(forms))
for key in sorted(rows, key=lambda k: (k[0], k[1], k[2], int(k[3].split("x")[0]))):
    r = rows[key]
    a = r.get("auto")
    if a is None:
        continue
    print(" ".join(map(str, key)), f"{a:8.2f}", " ".join(f"{r[f] / a:6.3f}" if f in r else "   -  " for f in forms))
