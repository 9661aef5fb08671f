import json,sys,statistics as st
def load(p):
    r={}
    for b in json.load(open(p))['benchmarks']:
        n=b['name'].split('/min_time')[0]; parts=n.split('/')
        if parts[0]!='merge': continue
        t,h,d=map(int,parts[2].split('x'))
        r[(parts[1],t,h,d)]=(b.get('pct_of_copy'),b.get('vs_plain'),b.get('median_us'))
    return r
for p in sys.argv[1:]:
    r=load(p); print(p)
    for typ in ['float','half','bf16']:
        big=[v[0] for k,v in r.items() if k[0]==typ and k[1]*k[2]>=2**17 and k[3]>=64]
        ge=sum(1 for x in big if x>=100)
        s256=[v[1] for k,v in r.items() if k[0]==typ and k[1]>=256 and v[1]]
        small=[v[1] for k,v in r.items() if k[0]==typ and k[1]<=64 and v[1]]
        t1=[v[1] for k,v in r.items() if k[0]==typ and k[1]==1 and v[1]]
        print(f" {typ}: >=2^17 median {st.median(big):.1f} min {min(big):.1f} >=100: {ge}/{len(big)}; >=256 tok vs_plain median {st.median(s256):.3f} max {max(s256):.3f}; 1-64 tok median {st.median(small):.3f} max {max(small):.3f}; 1 tok median {st.median(t1):.3f}")
    for k in [('float',1,32,128),('half',1,32,128),('bf16',1,32,128),('float',256,32,128),('half',256,32,128),('bf16',256,32,128),('float',65536,32,128),('bf16',65536,32,128),('bf16',4096,32,64)]:
        print('  ',k, r[k])
