// MergeAttn: merging partial attention states on Kokkos. Include this header for the whole API.
#ifndef MERGEATTN_HPP
#define MERGEATTN_HPP

#include <MergeAttn/MergeAttn_MergeStates.hpp>
#include <MergeAttn/MergeAttn_Options.hpp>
#include <MergeAttn/MergeAttn_Plan.hpp>
#include <MergeAttn/MergeAttn_Types.hpp>

#endif  // MERGEATTN_HPP
