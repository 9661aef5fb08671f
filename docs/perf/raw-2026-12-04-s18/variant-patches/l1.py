# l1: every L2 row prefetch (prefetch.global.L2) asked as prefetch.global.L1 instead.
import sys
p = sys.argv[1]; s = open(p).read()
old = 'asm volatile("prefetch.global.L2 [%0];" ::"l"(a));'
assert s.count(old) == 1
s = s.replace(old, 'asm volatile("prefetch.global.L1 [%0];" ::"l"(a));')
open(p, 'w').write(s)
