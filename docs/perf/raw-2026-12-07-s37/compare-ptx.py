#!/usr/bin/env python3
"""Session 37: the bench's kernels built on two Kokkos supplies, compared without a GPU: for every
kernel (.entry) of the PTX, its parameter bytes and PTX instruction count, and ptxas' register
count from the -Xptxas=-v log.
   compare-ptx.py <L.ptx> <M.ptx> <L ptxas log> <M ptxas log>
(the PTX and logs come from the bench's compile command with -Xptxas=-v --keep --keep-dir=<dir>)."""
import re, sys, collections
def ptx(path):
    out = {}
    name = None; depth = 0; params = 0; ninst = 0
    for line in open(path):
        m = re.match(r"\s*(\.\w+\s+)*\.entry\s+(\S+)\(", line)
        if m:
            name = m.group(2); params = 0; ninst = 0; depth = 0; inparams = True; continue
        if name is None: continue
        pm = re.match(r'\s*\.param\s+\.(align\s+(\d+)\s+)?\.?(b|u|s|f)(\d+)\s+\S+?(\[(\d+)\])?,?\s*$', line)
        if pm and depth == 0:
            params += (int(pm.group(4)) // 8) * (int(pm.group(6)) if pm.group(6) else 1); continue
        depth += line.count('{') - line.count('}')
        s = line.strip()
        if depth > 0 and s and not s.startswith(('.', '//', '$', '{', '}')) and not s.endswith(':'):
            ninst += 1
        if depth == 0 and '}' in line:
            out[name] = (params, ninst); name = None
    return out
def regs(path):
    out = {}; cur = None
    for line in open(path):
        m = re.search(r"Compiling entry function '(\S+)'", line)
        if m: cur = m.group(1); continue
        m = re.search(r'Used (\d+) registers', line)
        if m and cur: out[cur] = int(m.group(1)); cur = None
    return out
L, M = ptx(sys.argv[1]), ptx(sys.argv[2])
RL, RM = regs(sys.argv[3]), regs(sys.argv[4])
print(len(L), len(M), "entries;", len(RL), len(RM), "with registers")
# Kernels are matched by demangled-ish name; the names differ where a View type's layout changed? compare key sets
common = sorted(set(L) & set(M))
print("common", len(common), "only L", len(set(L) - set(M)), "only M", len(set(M) - set(L)))
d = collections.Counter()
rows = []
for k in common:
    (pl, il), (pm, im) = L[k], M[k]
    rl, rm = RL.get(k), RM.get(k)
    rows.append((k, pl, pm, il, im, rl, rm))
import statistics
merge = [r for r in rows if 'MergeFunctor' in r[0]]
print("merge kernels (MergeFunctor):", len(merge))
for label, sel in (("all", rows), ("merge", merge)):
    dp = [r[2] - r[1] for r in sel]; di = [(r[4] - r[3]) / max(r[3], 1) for r in sel]
    dr = [r[6] - r[5] for r in sel if r[5] is not None and r[6] is not None]
    print(label, "param bytes M-L: min %d median %d max %d" % (min(dp), statistics.median(dp), max(dp)))
    print(label, "PTX instructions (M-L)/L: min %.3f median %.3f max %.3f; identical count %d of %d" % (min(di), statistics.median(di), max(di), sum(1 for r in sel if r[3] == r[4]), len(sel)))
    print(label, "registers M-L: min %d median %.1f max %d; same %d of %d" % (min(dr), statistics.median(dr), max(dr), sum(1 for x in dr if x == 0), len(dr)))
worst = sorted(merge, key=lambda r: -(r[4] - r[3]) / max(r[3], 1))[:8]
for r in worst:
    print("%+5.3f inst  %+d regs  params %d->%d  %s" % ((r[4] - r[3]) / r[3], (r[6] or 0) - (r[5] or 0), r[1], r[2], r[0][:140]))
print("--- register or instruction changes in merge kernels (regs L->M, inst L->M, functor kind)")
def kind(n):
    m = re.search(r'MergeFunctor(I.{0,0})', n)
    t = 'bf16' if 'bfloat16' in n else 'half' if 'half_t' in n else 'float'
    st = 'Varlen' if 'VarlenStates' in n else 'Stacked' if 'StackedStates' in n else 'TwoStates' if 'TwoStates' in n or 'Pair' in n else 'other'
    return t + ' ' + st
for r in merge:
    if r[5] != r[6] or r[3] != r[4]:
        print("regs %s->%s inst %d->%d (%+.3f) %s" % (r[5], r[6], r[3], r[4], (r[4]-r[3])/r[3], kind(r[0])))
print("--- kernels with more registers")
for r in merge:
    if r[5] is not None and r[6] is not None and r[6] > r[5]:
        n = r[0]
        print(r[5], r[6], re.sub(r'Kokkos|Impl|MergeAttn', '', n)[60:700])
