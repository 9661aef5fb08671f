import json,sys,glob,statistics,re
d=sys.argv[1]; vs=sys.argv[2:]
res={}
for v in vs:
    for f in sorted(glob.glob(f'{d}/{v}-*.json')):
        for b in json.load(open(f))['benchmarks']:
            if 'pct_of_copy' not in b: continue
            n=re.sub(r'/min_time.*','',b['name'])
            res.setdefault(n,{}).setdefault(v,[]).append((b['pct_of_copy'], b.get('speedup_vs_fold',0), b.get('median_us',0)))
for n in res:
    row=[n.ljust(34)]
    for v in vs:
        x=res[n].get(v,[])
        if not x: row.append(f"{v}: -"); continue
        row.append(f"{v}:{statistics.median(a[0] for a in x):6.1f}% fold x{statistics.median(a[1] for a in x):.2f} {statistics.median(a[2] for a in x)/1000:8.2f}ms")
    print('  '.join(row))
