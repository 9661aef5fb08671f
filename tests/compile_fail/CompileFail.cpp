// Must-not-compile cases: each MERGEATTN_CASE_* misuses the public API once, and the build of
// this file must fail with the static_assert message that names the function and the argument
// (tests/CMakeLists.txt: one ctest per case, passing only on that message). MERGEATTN_CASE_valid
// is the control: the same calls, correct, must compile.
#include <Kokkos_Core.hpp>
#include <MergeAttn.hpp>
#include <cstdint>

namespace {

using Exec = Kokkos::DefaultHostExecutionSpace;
using Mem = Kokkos::HostSpace;
template <class T>
using V1 = Kokkos::View<T*, Kokkos::LayoutRight, Mem>;
template <class T>
using V2 = Kokkos::View<T**, Kokkos::LayoutRight, Mem>;
template <class T>
using V3 = Kokkos::View<T***, Kokkos::LayoutRight, Mem>;
template <class T>
using V4 = Kokkos::View<T****, Kokkos::LayoutRight, Mem>;

}  // namespace

void compile_fail_case() {
  const Exec exec;
  V3<float> out("out", 1, 1, 8), pre("pre", 1, 1, 8), suf("suf", 1, 1, 8);
  V2<float> pl("pl", 1, 1), sl("sl", 1, 1), ol("ol", 1, 1);
  V4<float> states("states", 3, 1, 1, 8);
  Kokkos::View<float***, Kokkos::LayoutRight, Mem> states_lse("states_lse", 3, 1, 1);
  V1<int> indptr("indptr", 2);
  V1<std::uint8_t> mask("mask", 1);
#if defined(MERGEATTN_CASE_valid)
  MergeAttn::merge_attn_states(exec, out, pre, pl, suf, sl, ol);
  MergeAttn::merge_attn_states_masked(exec, mask, out, out, pl, suf, sl, pl);
  MergeAttn::merge_attn_states(exec, out, states, states_lse, ol);
  MergeAttn::merge_attn_states_varlen(exec, out, pre, pl, indptr, ol);
  MergeAttn::plan_merge_attn_states(exec, out, pre, pl, suf, sl, ol).execute();
  MergeAttn::plan_merge_attn_states_masked(exec, mask, out, out, pl, suf, sl, pl).execute();
  MergeAttn::plan_merge_attn_states(exec, out, states, states_lse, ol).execute();
  MergeAttn::plan_merge_attn_states_varlen(exec, out, pre, pl, indptr, ol).execute();
#elif defined(MERGEATTN_CASE_output_rank)
  V2<float> out2("out2", 1, 8);
  MergeAttn::merge_attn_states(exec, out2, pre, pl, suf, sl, ol);
#elif defined(MERGEATTN_CASE_output_const)
  const V3<const float> cout = out;
  MergeAttn::merge_attn_states(exec, cout, pre, pl, suf, sl, ol);
#elif defined(MERGEATTN_CASE_output_value_type)
  V3<int> iout("iout", 1, 1, 8), ipre("ipre", 1, 1, 8), isuf("isuf", 1, 1, 8);
  MergeAttn::merge_attn_states(exec, iout, ipre, pl, isuf, sl, ol);
#elif defined(MERGEATTN_CASE_prefix_value_type)
  V3<double> dpre("dpre", 1, 1, 8);
  MergeAttn::merge_attn_states(exec, out, dpre, pl, suf, sl, ol);
#elif defined(MERGEATTN_CASE_prefix_not_a_view)
  float* raw = out.data();
  MergeAttn::merge_attn_states(exec, out, raw, pl, suf, sl, ol);
#elif defined(MERGEATTN_CASE_lse_value_type)
  V2<int> ipl("ipl", 1, 1);
  MergeAttn::merge_attn_states(exec, out, pre, ipl, suf, sl, ol);
#elif defined(MERGEATTN_CASE_output_lse_const)
  const V2<const float> col = ol;
  MergeAttn::merge_attn_states(exec, out, pre, pl, suf, sl, col);
#elif defined(MERGEATTN_CASE_mask_value_type)
  V1<int> imask("imask", 1);
  MergeAttn::merge_attn_states_masked(exec, imask, out, out, pl, suf, sl, pl);
#elif defined(MERGEATTN_CASE_nway_states_rank)
  MergeAttn::merge_attn_states(exec, out, pre, states_lse, ol);
#elif defined(MERGEATTN_CASE_varlen_indptr_type)
  V1<float> findptr("findptr", 2);
  MergeAttn::merge_attn_states_varlen(exec, out, pre, pl, findptr, ol);
#elif defined(MERGEATTN_CASE_plan_exec)
  (void)MergeAttn::plan_merge_attn_states(out, out, pre, pl, suf, sl, ol);
#elif defined(MERGEATTN_CASE_plan_output_rank)
  V2<float> out2("out2", 1, 8);
  (void)MergeAttn::plan_merge_attn_states(exec, out2, pre, pl, suf, sl, ol);
#else
#error "tests/compile_fail/CompileFail.cpp: define one MERGEATTN_CASE_*"
#endif
}
