import json,sys,statistics as st,collections
runs=collections.defaultdict(lambda: collections.defaultdict(list))
for v in ['main','lite']:
    for p in [1,2,3]:
        d=json.load(open(f'{v}-{p}.json'))
        for b in d['benchmarks']:
            n=b['name'].split('/min_time')[0]
            runs[v][n].append(b)
def med(v,n,k):
    xs=[b[k] for b in runs[v][n] if k in b]
    return st.median(xs) if xs else None
names=[n for n in runs['main'] if n.startswith('merge/')]
print('launch entries:')
for n in runs['main']:
    if n.startswith('launch/'):
        print(' ',n, 'main total %.3f host %.3f | lite total %.3f host %.3f'%(med('main',n,'median_us'),med('main',n,'host_us'),med('lite',n,'median_us'),med('lite',n,'host_us')))
rows=[]
for n in names:
    r=dict(n=n, mt=med('main',n,'median_us'), lt=med('lite',n,'median_us'), mh=med('main',n,'host_us'), lh=med('lite',n,'host_us'),
           pt=st.median([med('main',n,'plain_us'),med('lite',n,'plain_us')]), ph=med('main',n,'plain_host_us'),
           mv=med('main',n,'vs_plain'), lv=med('lite',n,'vs_plain'))
    rows.append(r)
for t in ['float','half','bf16']:
  for tok in ['1','16','64']:
    sel=[r for r in rows if r['n'].split('/')[1]==t and r['n'].split('/')[2].split('x')[0]==tok]
    f=lambda k: st.median([r[k] for r in sel])
    print(t,tok,'n=%d vs_plain main %.3f lite %.3f | total main %.2f lite %.2f plain %.2f | host main %.2f lite %.2f plain %.2f'%(len(sel),f('mv'),f('lv'),f('mt'),f('lt'),f('pt'),f('mh'),f('lh'),f('ph')))
allm=st.median([r['mv'] for r in rows]); alll=st.median([r['lv'] for r in rows])
print('all 1-64: vs_plain main %.3f lite %.3f; host main %.2f lite %.2f plain %.2f'%(allm,alll,st.median([r['mh'] for r in rows]),st.median([r['lh'] for r in rows]),st.median([r['ph'] for r in rows])))
# per-pass medians
for v in ['main','lite']:
    print(v,'per pass median vs_plain', [round(st.median([b['vs_plain'] for n in names for b in [runs[v][n][p]]]),3) for p in range(3)])
