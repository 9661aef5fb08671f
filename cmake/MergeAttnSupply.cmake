# MergeAttnSupply.cmake -- decide where Kokkos and Kokkos Kernels come from.
#
# Included by the top-level CMakeLists.txt BEFORE project(): a CUDA build's C++ compiler is Kokkos'
# nvcc_wrapper, which exists only once the supply has run, and CMake fixes the compiler at
# project(). In order:
#   1. the parent project already has Kokkos::kokkos (add_subdirectory): use it, supply nothing;
#   2. Kokkos_ROOT / Kokkos_DIR (variable or environment) given: find_package uses it after
#      project(), supply nothing;
#   3. MERGEATTN_SUPPLY_KOKKOS=ON (the default for a top-level build): run cmake/supply/
#      SupplyKokkos.cmake for MERGEATTN_BACKEND (host or cuda) into a cache prefix keyed by the
#      configuration, and point Kokkos_ROOT/KokkosKernels_ROOT (and, for cuda, the compiler) at it.

set(MERGEATTN_BACKEND "host" CACHE STRING "Backends of the supplied Kokkos: host (Serial+OpenMP) or cuda (Cuda+OpenMP+Serial, sm_90)")
set_property(CACHE MERGEATTN_BACKEND PROPERTY STRINGS host cuda)
option(MERGEATTN_SUPPLY_KOKKOS "Build Kokkos/Kokkos Kernels 3.4.01 from Debian's trilinos source when no Kokkos is given" ON)
set(MERGEATTN_TRILINOS_TARBALL "" CACHE FILEPATH "A local trilinos_13.2.0.orig.tar.gz to use instead of apt-get source")

if(DEFINED ENV{MERGEATTN_DEPS_CACHE} AND NOT "$ENV{MERGEATTN_DEPS_CACHE}" STREQUAL "")
  set(_mergeattn_default_cache "$ENV{MERGEATTN_DEPS_CACHE}")
elseif(DEFINED ENV{XDG_CACHE_HOME} AND NOT "$ENV{XDG_CACHE_HOME}" STREQUAL "")
  set(_mergeattn_default_cache "$ENV{XDG_CACHE_HOME}/mergeattn")
else()
  set(_mergeattn_default_cache "$ENV{HOME}/.cache/mergeattn")
endif()
set(MERGEATTN_DEPS_CACHE "${_mergeattn_default_cache}" CACHE PATH "Where the Kokkos supply keeps its download, sources and install prefixes (env MERGEATTN_DEPS_CACHE overrides the default)")
# Every supplied prefix is <cache>/<stem><backend>-<key>.
set(_mergeattn_prefix_stem "kokkos-3.4.01-")

# A Kokkos_DIR or KokkosKernels_DIR inside the supply's cache is where an earlier configure's
# find_package found a supplied prefix, not a Kokkos the user gave: it is forgotten, so that the
# supply runs again and its key (the patches, the supply script) picks the prefix. Kept, it would
# make a build directory configured before a patch changed go on with the old prefix.
if(MERGEATTN_SUPPLY_KOKKOS AND NOT TARGET Kokkos::kokkos)
  get_filename_component(_mergeattn_real_cache "${MERGEATTN_DEPS_CACHE}" REALPATH)
  foreach(_v Kokkos_DIR KokkosKernels_DIR)
    foreach(_c IN ITEMS "${MERGEATTN_DEPS_CACHE}" "${_mergeattn_real_cache}")
      string(FIND "$CACHE{${_v}}" "${_c}/${_mergeattn_prefix_stem}" _at)
      if(_at EQUAL 0)
        message(STATUS "MergeAttn: ${_v} (${${_v}}) is an earlier supply's; the supply decides again")
        unset(${_v} CACHE)
        break()
      endif()
    endforeach()
  endforeach()
endif()

set(_mergeattn_have_kokkos OFF)
if(TARGET Kokkos::kokkos)
  message(STATUS "MergeAttn: using the parent project's Kokkos::kokkos")
  set(_mergeattn_have_kokkos ON)
elseif(Kokkos_ROOT OR Kokkos_DIR OR DEFINED ENV{Kokkos_ROOT} OR DEFINED ENV{Kokkos_DIR})
  message(STATUS "MergeAttn: using the Kokkos given by Kokkos_ROOT/Kokkos_DIR")
  set(_mergeattn_have_kokkos ON)
endif()

if(NOT _mergeattn_have_kokkos AND MERGEATTN_SUPPLY_KOKKOS)
  if(NOT MERGEATTN_BACKEND MATCHES "^(host|cuda)$")
    message(FATAL_ERROR "MERGEATTN_BACKEND must be 'host' or 'cuda', got '${MERGEATTN_BACKEND}'")
  endif()
  # The prefix is keyed by the configuration: the backend and a hash of the patches and of the
  # supply script, so a change to either builds a new prefix instead of reusing a stale one.
  file(GLOB _mergeattn_patches "${CMAKE_CURRENT_LIST_DIR}/patches/*.patch")
  list(SORT _mergeattn_patches)
  set(_mergeattn_key_text "")
  foreach(_f IN LISTS _mergeattn_patches ITEMS "${CMAKE_CURRENT_LIST_DIR}/supply/SupplyKokkos.cmake")
    file(SHA256 "${_f}" _h)
    string(APPEND _mergeattn_key_text "${_h}")
  endforeach()
  string(SHA256 _mergeattn_key "${_mergeattn_key_text}")
  string(SUBSTRING "${_mergeattn_key}" 0 12 _mergeattn_key)
  set(MERGEATTN_DEPS_PREFIX "${MERGEATTN_DEPS_CACHE}/${_mergeattn_prefix_stem}${MERGEATTN_BACKEND}-${_mergeattn_key}")
  message(STATUS "MergeAttn: Kokkos supply for '${MERGEATTN_BACKEND}' in ${MERGEATTN_DEPS_PREFIX}")
  execute_process(
    COMMAND "${CMAKE_COMMAND}" "-DSUPPLY_CONFIG=${MERGEATTN_BACKEND}"
            "-DSUPPLY_PREFIX=${MERGEATTN_DEPS_PREFIX}" "-DSUPPLY_CACHE=${MERGEATTN_DEPS_CACHE}"
            "-DSUPPLY_TARBALL=${MERGEATTN_TRILINOS_TARBALL}"
            -P "${CMAKE_CURRENT_LIST_DIR}/supply/SupplyKokkos.cmake"
    RESULT_VARIABLE _mergeattn_supply_rc)
  if(NOT _mergeattn_supply_rc STREQUAL "0")
    message(FATAL_ERROR "MergeAttn: the Kokkos supply failed (see the [mergeattn-supply] lines above). "
                        "Alternatively pass -DKokkos_ROOT=... -DKokkosKernels_ROOT=... of your own install.")
  endif()
  set(Kokkos_ROOT "${MERGEATTN_DEPS_PREFIX}")
  set(KokkosKernels_ROOT "${MERGEATTN_DEPS_PREFIX}")
  if(MERGEATTN_BACKEND STREQUAL "cuda")
    set(_mergeattn_wrapper "${MERGEATTN_DEPS_PREFIX}/bin/nvcc_wrapper_sm90")
    if(CMAKE_CXX_COMPILER AND NOT CMAKE_CXX_COMPILER STREQUAL _mergeattn_wrapper)
      message(FATAL_ERROR "MergeAttn: the supplied CUDA Kokkos needs CMAKE_CXX_COMPILER=${_mergeattn_wrapper}, "
                          "but it is ${CMAKE_CXX_COMPILER} (where that is an earlier supply's nvcc_wrapper, "
                          "the patches or the supply script changed since this directory was configured). "
                          "Configure a fresh build directory.")
    endif()
    set(CMAKE_CXX_COMPILER "${_mergeattn_wrapper}" CACHE FILEPATH "C++ compiler (Kokkos' nvcc_wrapper for sm_90)" FORCE)
  endif()
endif()
