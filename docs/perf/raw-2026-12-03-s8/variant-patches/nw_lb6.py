import sys
p=sys.argv[1]
s=open(p).read()
old="Kokkos::LaunchBounds<nway_max_team_threads, nway_min_teams_per_sm>,"
assert old in s
s=s.replace(old,"Kokkos::LaunchBounds<nway_max_team_threads, (sizeof(typename functor_type::value_type) == 2 ? 6 : nway_min_teams_per_sm)>,")
open(p,'w').write(s)
