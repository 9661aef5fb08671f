import sys
p=sys.argv[1]
s=open(p).read()
a='''    Kokkos::TeamPolicy<ExecSpace, PairsPerThread<1>> policy(exec, league_size, shape.team_size,
                                                            shape.vector_length);'''
assert a in s
s=s.replace(a,'''    using Bounds = std::conditional_t<functor_type::weight_cache, Kokkos::LaunchBounds<128, 7>, Kokkos::LaunchBounds<0, 0>>;
    Kokkos::TeamPolicy<ExecSpace, Bounds, PairsPerThread<1>> policy(exec, league_size, shape.team_size,
                                                            shape.vector_length);''')
open(p,'w').write(s)
