import sys
p=sys.argv[1]
s=open(p).read()
def rep(a,b,n=None):
    global s
    c=s.count(a); assert c>=1, a
    s=s.replace(a,b)
rep('return tokens_heads ? v(t, h) : v(h, t);','return v(h, t);')
rep('return m_base2 ? Impl::exp2(x) : Impl::exp(x);','return Impl::exp(x);')
rep('return m_base2 ? Impl::log1p(x) * compute_type(1.4426950408889634) : Impl::log1p(x);','return Impl::log1p(x);')
open(p,'w').write(s)
