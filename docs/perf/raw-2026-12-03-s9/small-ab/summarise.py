import json,glob,statistics as st,collections,re
def load(pat):
    d=collections.defaultdict(list)
    for f in glob.glob(pat):
        for b in json.load(open(f))['benchmarks']:
            n=b['name'].split('/min_time')[0]
            d[n].append((b.get('median_us',0),b.get('vs_plain',0)))
    return d
V=['base','A','B','AB']
D={v:load(f'docs/perf/raw-2026-12-03-s9/small-ab/{v}-[0-9].json') for v in V}
names=list(D['base'])
def tok(n): return int(n.split('/')[2].split('x')[0])
print('per-shape median vs_plain over rounds; summary per token count & type: median over shapes')
summ=collections.defaultdict(lambda: collections.defaultdict(list))
for n in names:
    row=[]
    for v in V:
        r=st.median(x[1] for x in D[v][n]); row.append(r)
        typ=n.split('/')[1]
        summ[(typ,tok(n))][v].append(r)
for k in sorted(summ):
    print(k, '  '.join(f"{v} {st.median(summ[k][v]):.3f} (max {max(summ[k][v]):.3f})" for v in V))
print('all 1-64:', '  '.join(f"{v} {st.median([x for k in summ if k[1]<=64 for x in summ[k][v]]):.3f}" for v in V))
print('256:', '  '.join(f"{v} {st.median([x for k in summ if k[1]==256 for x in summ[k][v]]):.3f}" for v in V))
B={v:load(f'docs/perf/raw-2026-12-03-s9/small-ab/big-{v}.json') for v in V}
for n in B['base']:
    print(n, '  '.join(f"{v} {B[v][n][0][0]:.1f}us {B[v][n][0][1]:.3f}" for v in V))
