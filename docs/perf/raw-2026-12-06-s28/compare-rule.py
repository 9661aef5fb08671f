#!/usr/bin/python3
"""Session 28: the small N-state launch rule. From decode-*.json of a run of a bench with the rule
(auto = 32 lanes, 4 team threads up to 2048 pairs), per case of 1-64 tokens the old built-in shape
(no prefetch; head sizes up to 128: 16 team threads x 8 lanes, forced team16xvec8_g<G>_k1; 256:
8 x 16, team8xvec16_g<G>_k1) against the new one (auto), median µs over passes.

    compare-rule.py <run folder>
"""
import glob
import json
import statistics
import sys
from collections import defaultdict

times = defaultdict(list)
for path in sorted(glob.glob(sys.argv[1] + "/decode-*.json")):
    for b in json.load(open(path))["benchmarks"]:
        if b.get("run_type") != "aggregate" and "error_occurred" not in b:
            times[b["name"].split("/min_time")[0]].append(b["median_us"])
cases = defaultdict(dict)
for name, ts in times.items():
    _, t, S, shape, label = name.split("/")
    cases[(t, int(S[1:]), shape)][label] = statistics.median(ts)
ratios = defaultdict(list)
for (t, S, shape), forms in sorted(cases.items()):
    tokens = int(shape.split("x")[0])
    if tokens > 64:
        continue
    prefix = "team8xvec16_" if int(shape.split("x")[2]) > 128 else "team16xvec8_"
    old = [v for k, v in forms.items() if k.startswith(prefix) and k.endswith("_k1")]
    if not old or "auto" not in forms:
        continue
    r = forms["auto"] / old[0]
    ratios[(t, S, shape.split("x")[2])].append(r)
    ratios["all"].append(r)
    print("%-5s S%-3d %-10s old %7.2f  new %7.2f  new / old %.3f" % (t, S, shape, old[0],
                                                                      forms["auto"], r))
for k in sorted((k for k in ratios if k != "all"), key=str):
    print("%s: median new / old %.3f" % (k, statistics.median(ratios[k])))
print("all 1-64-token cases: median new / old %.3f, range %.3f-%.3f (%d)" % (
    statistics.median(ratios["all"]), min(ratios["all"]), max(ratios["all"]), len(ratios["all"])))
