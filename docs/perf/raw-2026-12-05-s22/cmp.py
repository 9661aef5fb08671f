# Session 22: medians over the passes of the bench JSON files DIR/PREFIX-VARIANT-PASS.json, per
# entry and variant: % of copy and the time ratio to plain CUDA (2-way) or the speed-up over the
# fold of S - 1 two-way merges (N-way).
#   python3 cmp.py DIR PREFIX VARIANT...
import glob, json, re, statistics, sys

d, pre, vs = sys.argv[1], sys.argv[2], sys.argv[3:]
res = {}
for v in vs:
    for f in sorted(glob.glob(f'{d}/{pre}-{v}-*.json')):
        for b in json.load(open(f))['benchmarks']:
            if 'pct_of_copy' not in b:
                continue
            n = re.sub(r'/min_time.*', '', b['name'])
            res.setdefault(n, {}).setdefault(v, []).append(b)
for n in res:
    row = [n.ljust(40)]
    for v in vs:
        x = res[n].get(v, [])
        if not x:
            row.append(f'{v[:7]}: -')
            continue
        p = statistics.median(b['pct_of_copy'] for b in x)
        if 'vs_plain' in x[0]:
            r = f"plain x{statistics.median(b['vs_plain'] for b in x):.3f}"
        else:
            r = f"fold x{statistics.median(b.get('speedup_vs_fold', 0) for b in x):.2f}"
        row.append(f'{v[:7]}:{p:6.1f}% {r}')
    print('  '.join(row))
