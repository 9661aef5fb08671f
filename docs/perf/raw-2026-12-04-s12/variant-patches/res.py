import re,sys
# ptxas -v: "Compiling entry function 'NAME' for 'sm_90'" ... "Used N registers, ..." ; spill lines
cur=None; out=[]
for l in open(sys.argv[1]):
    m=re.search(r"Compiling entry function '([^']+)'",l)
    if m: cur=m.group(1); spill=''; continue
    m=re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads",l)
    if m and cur: spill='stack %s st %s ld %s'%m.groups()
    m=re.search(r"Used (\d+) registers",l)
    if m and cur:
        n=cur
        tag=re.search(r'(LanePairsILi\d+ELb[01]E|PairsPerThreadILi\d+ELb[01]E)',n)
        m2=re.search(r'MergeFunctorINS_4CudaENS_4ViewIPPP(NS3_10bfloat16_t|NS3_6half_t|NS\d_\d+bfloat16_t|NS\d_\d+half_t|f|d)',n); vt={'f':'float','d':'double'}.get(m2.group(1), 'bf16' if m2 and 'bfloat' in m2.group(1) else 'half') if m2 else '?'
        if tag and 'MergeFunctor' in n:
            ns='N' if 'Lb1ENS4_10' in n or 'Lb1ENS4_' in n.split('StackedStates')[-1][:200] else '2'; ns = ('V' if 'VarlenStates' in n else 'S') + ('w' if re.search(r'EELb1ENS4_\d+\w*Lse',n) else '-')
            out.append('%-4s %-6s %-24s regs %3s %s'%(ns,vt,tag.group(1),m.group(1),spill))
        cur=None
for o in sorted(set(out)): print(o)
