import sys,re,collections,statistics,glob
d=collections.defaultdict(list); vs=[]
for f in sorted(glob.glob(sys.argv[1]+'/*-[0-9].log')):
    v=f.split('/')[-1].rsplit('-',1)[0]
    if v not in vs: vs.append(v)
    for l in open(f):
        m=re.match(r'(nway-sweep/\S+)/min_time\S*\s.*pct_of_copy=([0-9.]+)',l)
        if not m: continue
        n=m.group(1).replace('nway-sweep/','')
        a=n.split('/'); key='%s %s %s %s'%(a[0],a[1],a[2].replace('x32x','x'),a[3].replace('team16xvec8_g4_',''))
        d[(key,v)].append(float(m.group(2)))
order=sys.argv[2].split(',') if len(sys.argv)>2 else vs
print('%-40s'%'', ' '.join('%7s'%v for v in order))
for key in sorted(set(k for k,_ in d), key=lambda s:(s.split()[0],int(s.split()[1][1:]),s.split()[2],s.split()[3])):
    print('%-40s'%key, ' '.join('%7.1f'%statistics.median(d[(key,v)]) if d[(key,v)] else '      -' for v in order))
