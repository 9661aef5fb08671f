import json,sys,statistics as st,collections
vs=sys.argv[1].split(',')
runs=collections.defaultdict(lambda: collections.defaultdict(list))
for v in vs:
    for p in [1,2,3]:
        d=json.load(open(f'{v}-{p}.json'))
        for b in d['benchmarks']:
            runs[v][b['name'].split('/min_time')[0]].append(b)
def med(v,n,k):
    xs=[b[k] for b in runs[v][n] if k in b]
    return st.median(xs) if xs else float('nan')
names=[n for n in runs[vs[0]] if n.startswith('merge/')]
for n in runs[vs[0]]:
    if n.startswith('launch/'):
        print('%-32s'%n, ' | '.join('%s total %.2f host %.2f'%(v,med(v,n,'median_us'),med(v,n,'host_us')) for v in vs))
for t in ['float','half','bf16']:
  for tok in ['1','16','64']:
    sel=[n for n in names if n.split('/')[1]==t and n.split('/')[2].split('x')[0]==tok]
    print('%-5s %-3s'%(t,tok), ' | '.join('%s %.3f h%.2f'%(v,st.median([med(v,n,'vs_plain') for n in sel]),st.median([med(v,n,'host_us') for n in sel])) for v in vs), '| plain h%.2f'%st.median([med(vs[0],n,'plain_host_us') for n in sel]))
print('all 1-64:', ' | '.join('%s vs_plain %.3f host %.2f total %.2f'%(v,st.median([med(v,n,'vs_plain') for n in names]),st.median([med(v,n,'host_us') for n in names]),st.median([med(v,n,'median_us') for n in names])) for v in vs))
print('plain total %.2f host %.2f'%(st.median([med(vs[0],n,'plain_us') for n in names]),st.median([med(vs[0],n,'plain_host_us') for n in names])))
for v in vs:
    print(v,'per pass median vs_plain', [round(st.median([runs[v][n][p]['vs_plain'] for n in names]),3) for p in range(3)], 'host', [round(st.median([runs[v][n][p]['host_us'] for n in names]),2) for p in range(3)])
