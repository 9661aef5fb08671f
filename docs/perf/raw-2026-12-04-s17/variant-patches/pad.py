# pad: the weight cache of the non-LanePairs N-state forms (a row of 2 * cache_states values per
# team thread) with an odd row stride, so that the team threads of a warp read their weights from
# different shared-memory banks (ncu, bf16 S64 4096x32x128: 4-way conflicts on 75 % of the
# shared-load wavefronts).
import sys
p = sys.argv[1]; s = open(p).read()
def rep(old, new):
    global s
    assert s.count(old) == 1, old
    s = s.replace(old, new)
rep('''    return weight_cache ? scratch_view::shmem_size(team_size, 2 * m_cache_states) : 0;''',
    '''    return weight_cache ? scratch_view::shmem_size(team_size, 2 * m_cache_states + 1) : 0;''')
rep('''        const scratch_view sv(team.team_scratch(0), team.team_size(), 2 * m_cache_states);''',
    '''        const scratch_view sv(team.team_scratch(0), team.team_size(), 2 * m_cache_states + 1);''')
open(p, 'w').write(s)
