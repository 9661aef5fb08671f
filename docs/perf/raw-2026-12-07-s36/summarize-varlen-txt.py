#!/usr/bin/env python3
"""Session 36: the varlen sweeps from the bench's console output (varlen-<pass>.txt[.gz]), for
passes whose JSON was cut off (run1: the bench aborted at varlen-pairs/float/S64/16384x32x128).
   summarize-varlen-txt.py <dir> For each sweep, mean count S and shape: the built-in shape's median time
(µs, over the passes) and each forced shape's median time / the built-in one's."""
import glob, gzip, re, statistics, sys
from collections import defaultdict

def num(s):
    m = {"k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
    return float(s[:-1]) * m[s[-1]] if s[-1] in m else float(s)

times = defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + "/varlen-*.txt*")):
    for line in (gzip.open if f.endswith(".gz") else open)(f, "rt"):
        if not line.startswith("varlen-"):
            continue
        mu = re.search(r"median_us=(\S+)", line)
        if mu:
            times[line.split()[0].split("/min_time")[0]].append(num(mu.group(1)))
rows = defaultdict(dict)
for name, v in times.items():
    sweep, typ, S, shape, form = name.split("/")[:5]
    rows[(sweep, typ, int(S[1:]), shape)][form] = (statistics.median(v), len(v))
forms = sorted({f for r in rows.values() for f in r if f != "auto"})
print("sweep type S shape passes: auto µs, then forced / auto for " + ", ".join(forms))
for key in sorted(rows, key=lambda k: (k[0], k[1], k[2], int(k[3].split("x")[0]))):
    r = rows[key]
    if "auto" not in r:
        continue
    a, n = r["auto"]
    print(" ".join(map(str, key)), n, f"{a:9.2f}",
          " ".join(f"{r[f][0] / a:6.3f}" if f in r else "   -  " for f in forms))
