# padl: the N-state LanePairs forms' weight fields (nf * K values per team thread) with an odd row
# stride too (the ring forms with S = 1 mod 4 states had rows of a multiple of 32 words).
import sys
p = sys.argv[1]; s = open(p).read()
def rep(old, new):
    global s
    assert s.count(old) == 1, old
    s = s.replace(old, new)
rep('''      return scratch_view::shmem_size(team_size,
                                      lane_weight_fields(ring_slots > 0) * lane_pairs_per_thread) +''',
    '''      return scratch_view::shmem_size(
                 team_size, lane_weight_fields(ring_slots > 0) * lane_pairs_per_thread + 1) +''')
rep('''      const scratch_view sv(team.team_scratch(0), team.team_size(), nf * K);''',
    '''      const scratch_view sv(team.team_scratch(0), team.team_size(), nf * K + 1);''')
open(p, 'w').write(s)
