import json,sys,re,collections,statistics
d=collections.defaultdict(list)
for f in sys.argv[1:]:
    tag=f.split('/')[-1].rsplit('-',1)[0]
    j=json.load(open(f))
    for b in j['benchmarks']:
        n=b['name'].replace('/manual_time','').replace('/min_time:0.050','').replace('nway-sweep/','')
        if 'error_message' in b: continue
        d[(n.split('/')[0]+'/'+n.split('/')[1], n.split('/',3)[3]+' '+tag)].append(b.get('pct_of_copy'))
cur=None
for k in sorted(d):
    if k[0]!=cur: print(k[0]); cur=k[0]
    v=d[k]; print('   %-34s med %.1f  (%s)'%(k[1],statistics.median(v),' '.join('%.1f'%x for x in v)))
