import re,sys
for f in sys.argv[1:]:
    lines=open(f).read().split('\n')
    print(f)
    for i,l in enumerate(lines):
        if 'Function' in l and ('StackedStates' in l or 'VarlenStates' in l):
            res=lines[i+1]
            tag=re.search(r'(PairsPerThreadILi(\d)|LanePairsILi(\d))',l); pf=re.search(r'PairsILi\dELb(\d)',l)
            t=(('P%s'%tag.group(2)) if tag.group(2) else ('L%s'%tag.group(3)))+('pf'+pf.group(1) if pf else '')
            vt='bf16' if '10bfloat16_t' in l else 'half' if 'half_t' in l else 'double' if 'IPPPPd' in l or 'IPPPd' in l else 'float'
            kind='stk' if 'StackedStates' in l else 'var'
            packs='packs' if re.search(r'EELb1ENS4_10RuntimeLse',l) else 'gen' if re.search(r'EELb0ENS4_10RuntimeLse',l) else '?'
            olse='olse' if 'NoOutputLse' not in l else 'nolse'
            m=re.search(r'REG:(\d+) STACK:(\d+).*LOCAL:(\d+)',res)
            print('  %-6s %s %s %s %-5s REG %s STACK %s LOCAL %s'%(vt,kind,t,packs,olse,*m.groups()))
