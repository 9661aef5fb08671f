# SupplyKokkos.cmake -- build Kokkos and Kokkos Kernels 3.4.01 for MergeAttn.
#
# Run as a script:
#   cmake -DSUPPLY_CONFIG=host|cuda -DSUPPLY_PREFIX=<install dir> -DSUPPLY_CACHE=<cache dir>
#         [-DSUPPLY_JOBS=N] [-DSUPPLY_TARBALL=<trilinos_13.2.0.orig.tar.gz>] -P SupplyKokkos.cmake
#
# No package registry reachable from the project's machines serves a Kokkos that builds with the
# CUDA 13 toolkit, so the project supplies its own: Kokkos and Kokkos Kernels 3.4.01 from Debian
# bookworm's `trilinos` 13.2.0 source package, with the patches in ../patches (CUDA 13 and Hopper
# compat, and one for speed).
#
# Steps, each announced with a "[mergeattn-supply]" line:
#   download  apt-get source --download-only trilinos, through a temporary deb-src list whose URI
#             is read from the machine's own apt sources, with temporary apt state directories
#             (the system's apt configuration is not touched). Skipped when SUPPLY_TARBALL is given
#             or the tarball is already in the cache.
#   verify    SHA-256 of trilinos_13.2.0.orig.tar.gz.
#   extract   only packages/kokkos and packages/kokkos-kernels; the extracted sources are reused
#             only under the patch set they were patched with (any other set extracts afresh).
#   patch     each ../patches/*.patch, once, right after an extraction (reused sources carry the
#             whole set already); a patch that does not apply stops the supply.
#   configure, build, install   Kokkos, then Kokkos Kernels, into SUPPLY_PREFIX.
# SUPPLY_PREFIX is complete only when its stamp file exists; a prefix without the stamp (an
# interrupted earlier run) is removed and rebuilt. A file lock serialises concurrent supplies.

cmake_minimum_required(VERSION 3.19)

set(_trilinos_version "13.2.0")
set(_kokkos_version "3.4.01")
set(_tarball_name "trilinos_${_trilinos_version}.orig.tar.gz")
set(_tarball_sha256 "0ddb47784ba7b8a6b9a07a4822b33be508feb4ccd54301b2a5d10c9e54524b90")
set(_top "Trilinos-trilinos-release-13-2-0")
set(_stamp_name ".mergeattn-supply-complete")

# supply_message(STATUS|FATAL_ERROR part...): one "[mergeattn-supply]" line (FATAL_ERROR: an error,
# which stops the supply). A message may be given in several quoted parts; they are joined as
# given. Each part is read as ARGV<i> here, so semicolons in a part (a tool's output) stay.
function(supply_message mode)
  set(_msg "")
  foreach(_i RANGE 1 ${ARGC})
    if(_i LESS ARGC)
      string(APPEND _msg "${ARGV${_i}}")
    endif()
  endforeach()
  if(mode STREQUAL "FATAL_ERROR")
    string(PREPEND _msg "ERROR: ")
  endif()
  message(${mode} "[mergeattn-supply] ${_msg}")
endfunction()

foreach(_var SUPPLY_CONFIG SUPPLY_PREFIX SUPPLY_CACHE)
  if(NOT DEFINED ${_var} OR "${${_var}}" STREQUAL "")
    supply_message(FATAL_ERROR "${_var} is not set (see the header of ${CMAKE_CURRENT_LIST_FILE})")
  endif()
endforeach()
if(NOT SUPPLY_CONFIG MATCHES "^(host|cuda)$")
  supply_message(FATAL_ERROR "SUPPLY_CONFIG must be 'host' or 'cuda', got '${SUPPLY_CONFIG}'")
endif()
if(NOT SUPPLY_JOBS)
  cmake_host_system_information(RESULT SUPPLY_JOBS QUERY NUMBER_OF_LOGICAL_CORES)
endif()

get_filename_component(_patch_dir "${CMAKE_CURRENT_LIST_DIR}/../patches" ABSOLUTE)
file(GLOB _patches "${_patch_dir}/kokkos-*.patch")
list(SORT _patches)

file(MAKE_DIRECTORY "${SUPPLY_CACHE}")
file(LOCK "${SUPPLY_CACHE}/supply.lock" GUARD PROCESS TIMEOUT 7200 RESULT_VARIABLE _lock_result)
if(NOT _lock_result STREQUAL "0")
  supply_message(FATAL_ERROR "could not lock ${SUPPLY_CACHE}/supply.lock: ${_lock_result}")
endif()

if(EXISTS "${SUPPLY_PREFIX}/${_stamp_name}")
  supply_message(STATUS "reusing ${SUPPLY_PREFIX}")
  return()
endif()
if(EXISTS "${SUPPLY_PREFIX}")
  supply_message(STATUS "removing incomplete install ${SUPPLY_PREFIX} (no completion stamp)")
  file(REMOVE_RECURSE "${SUPPLY_PREFIX}")
endif()

# Runs a command, logs its output into a file, and stops the supply with the log's tail on failure.
function(supply_run step logfile)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _rc OUTPUT_FILE "${logfile}" ERROR_FILE
                                  "${logfile}.err")
  if(NOT _rc STREQUAL "0")
    file(READ "${logfile}.err" _err)
    file(READ "${logfile}" _out)
    string(LENGTH "${_out}" _len)
    if(_len GREATER 4000)
      math(EXPR _from "${_len} - 4000")
      string(SUBSTRING "${_out}" ${_from} -1 _out)
    endif()
    supply_message(FATAL_ERROR "${step} failed (exit ${_rc}); logs: ${logfile}{,.err}\n"
                               "${_out}\n${_err}")
  endif()
endfunction()

# ---------------------------------------------------------------------------------------------
# download
set(_downloads "${SUPPLY_CACHE}/downloads")
set(_tarball "${_downloads}/${_tarball_name}")
if(SUPPLY_TARBALL)
  supply_message(STATUS "download: using given tarball ${SUPPLY_TARBALL}")
  set(_tarball "${SUPPLY_TARBALL}")
elseif(EXISTS "${_tarball}")
  supply_message(STATUS "download: reusing ${_tarball}")
else()
  find_program(_apt_get apt-get)
  if(NOT _apt_get)
    supply_message(FATAL_ERROR "apt-get not found: cannot fetch Debian's trilinos "
                               "${_trilinos_version} source. Download ${_tarball_name} yourself "
                               "and pass -DMERGEATTN_TRILINOS_TARBALL=<file>, or pass "
                               "Kokkos_ROOT/KokkosKernels_ROOT of your own install.")
  endif()
  # The URI (and keyring) of the machine's own bookworm main repository.
  set(_uri "")
  set(_keyring "")
  file(GLOB _deb822 "/etc/apt/sources.list.d/*.sources")
  foreach(_f IN LISTS _deb822)
    file(READ "${_f}" _text)
    string(REPLACE "\n\n" ";" _stanzas "${_text}")
    foreach(_s IN LISTS _stanzas)
      if(_s MATCHES "Suites:[^\n]*bookworm( |\n|$)" AND _s MATCHES "Components:[^\n]*main"
         AND _s MATCHES "URIs:[ \t]*([^ \t\n]+)")
        set(_uri "${CMAKE_MATCH_1}")
        if(_s MATCHES "Signed-By:[ \t]*([^ \t\n]+)")
          set(_keyring "${CMAKE_MATCH_1}")
        endif()
        break()
      endif()
    endforeach()
    if(_uri)
      break()
    endif()
  endforeach()
  if(NOT _uri AND EXISTS "/etc/apt/sources.list")
    file(STRINGS "/etc/apt/sources.list" _lines REGEX "^deb(-src)?[ \t]")
    foreach(_l IN LISTS _lines)
      if(_l MATCHES "^deb(-src)?[ \t]+(\\[[^]]*\\][ \t]+)?([^ \t]+)[ \t]+bookworm[ \t].*main")
        set(_uri "${CMAKE_MATCH_3}")
        if(_l MATCHES "signed-by=([^] \t]+)")
          set(_keyring "${CMAKE_MATCH_1}")
        endif()
        break()
      endif()
    endforeach()
  endif()
  if(NOT _uri)
    supply_message(FATAL_ERROR "no apt source for Debian bookworm main found in "
                               "/etc/apt/sources.list.d/*.sources or /etc/apt/sources.list. Pass "
                               "-DMERGEATTN_TRILINOS_TARBALL=<${_tarball_name}> or "
                               "Kokkos_ROOT/KokkosKernels_ROOT of your own install.")
  endif()
  string(RANDOM LENGTH 8 _rnd)
  set(_apt "${SUPPLY_CACHE}/apt-${_rnd}")
  file(MAKE_DIRECTORY "${_apt}/lists/partial" "${_apt}/archives/partial" "${_apt}/get")
  set(_opts "")
  if(_keyring)
    set(_opts "[signed-by=${_keyring}] ")
  endif()
  file(WRITE "${_apt}/sources.list" "deb-src ${_opts}${_uri} bookworm main\n")
  set(_apt_args -o "Dir::Etc::sourcelist=${_apt}/sources.list" -o "Dir::Etc::sourceparts=-"
                -o "Dir::State::Lists=${_apt}/lists" -o "Dir::Cache::archives=${_apt}/archives"
                -o "Debug::NoLocking=1" -o "APT::Sandbox::User=root" -q)
  supply_message(STATUS "download: apt-get update (temporary deb-src list for bookworm main)")
  execute_process(COMMAND "${_apt_get}" ${_apt_args} update RESULT_VARIABLE _rc
                  OUTPUT_VARIABLE _out ERROR_VARIABLE _err TIMEOUT 600)
  if(NOT _rc STREQUAL "0" OR _err MATCHES "(^|\n)(E:|Err:)")
    file(REMOVE_RECURSE "${_apt}")
    supply_message(FATAL_ERROR "apt-get update for the temporary deb-src list failed (${_rc}):\n"
                               "${_out}\n${_err}")
  endif()
  supply_message(STATUS "download: apt-get source --download-only trilinos (about 166 MB)")
  execute_process(COMMAND "${_apt_get}" ${_apt_args} source --download-only trilinos
                  WORKING_DIRECTORY "${_apt}/get" RESULT_VARIABLE _rc OUTPUT_VARIABLE _out
                  ERROR_VARIABLE _err TIMEOUT 1800)
  if(NOT _rc STREQUAL "0" OR NOT EXISTS "${_apt}/get/${_tarball_name}")
    file(REMOVE_RECURSE "${_apt}")
    supply_message(FATAL_ERROR "apt-get source --download-only trilinos failed (${_rc}) or gave no "
                               "${_tarball_name}:\n${_out}\n${_err}")
  endif()
  file(MAKE_DIRECTORY "${_downloads}")
  file(RENAME "${_apt}/get/${_tarball_name}" "${_tarball}.part")
  file(REMOVE_RECURSE "${_apt}")
  file(RENAME "${_tarball}.part" "${_tarball}")
endif()

# ---------------------------------------------------------------------------------------------
# verify
supply_message(STATUS "verify: SHA-256 of ${_tarball}")
if(NOT EXISTS "${_tarball}")
  supply_message(FATAL_ERROR "${_tarball} does not exist")
endif()
file(SHA256 "${_tarball}" _sha)
if(NOT _sha STREQUAL _tarball_sha256)
  if(NOT SUPPLY_TARBALL)
    file(REMOVE "${_tarball}")
  endif()
  supply_message(FATAL_ERROR "checksum mismatch for ${_tarball}: got ${_sha}, expected "
                             "${_tarball_sha256}. The cached copy was removed; the next configure "
                             "downloads again.")
endif()

# ---------------------------------------------------------------------------------------------
# extract (into the cache; reused by both configurations)
# The sources are patched in place, so they are reused only under the patch set they were patched
# with: a patch removed from ../patches (or changed) must not stay applied for a later build. The
# set is recorded as the SHA-256 of its file names and contents; another set extracts afresh.
set(_src "${SUPPLY_CACHE}/src/trilinos-${_trilinos_version}")
set(_patch_set "")
foreach(_p IN LISTS _patches)
  get_filename_component(_pname "${_p}" NAME)
  file(SHA256 "${_p}" _psha)
  string(APPEND _patch_set "${_pname} ${_psha}\n")
endforeach()
string(SHA256 _patch_set_sha "${_patch_set}")
set(_src_patch_set "none")
if(EXISTS "${_src}/.patch-set")
  file(READ "${_src}/.patch-set" _src_patch_set)
endif()
if(EXISTS "${_src}/.extracted" AND _src_patch_set STREQUAL _patch_set_sha)
  supply_message(STATUS "extract: reusing ${_src} (patch set ${_patch_set_sha})")
else()
  if(EXISTS "${_src}/.extracted" AND _src_patch_set STREQUAL "none")
    supply_message(STATUS "extract: ${_src} has no record of a completed patch step "
                          "(interrupted, failed, or extracted by an older supply); extracting "
                          "afresh")
  elseif(EXISTS "${_src}/.extracted")
    supply_message(STATUS "extract: ${_src} was patched with another patch set; extracting afresh")
  endif()
  supply_message(STATUS "extract: packages/kokkos and packages/kokkos-kernels into ${_src}")
  file(REMOVE_RECURSE "${_src}" "${_src}.part")
  file(MAKE_DIRECTORY "${_src}.part")
  file(ARCHIVE_EXTRACT INPUT "${_tarball}" DESTINATION "${_src}.part"
       PATTERNS "${_top}/packages/kokkos/*" "${_top}/packages/kokkos-kernels/*")
  if(NOT EXISTS "${_src}.part/${_top}/packages/kokkos/CMakeLists.txt"
     OR NOT EXISTS "${_src}.part/${_top}/packages/kokkos-kernels/CMakeLists.txt")
    supply_message(FATAL_ERROR "extraction of ${_tarball} did not produce packages/kokkos and "
                               "kokkos-kernels")
  endif()
  file(RENAME "${_src}.part/${_top}/packages" "${_src}")
  file(REMOVE_RECURSE "${_src}.part")
  file(TOUCH "${_src}/.extracted")

  # -------------------------------------------------------------------------------------------
  # patch: the fresh sources, each patch once; the record is written after the last, so an
  # interrupted patch step leaves none and the next run extracts again.
  find_program(_patch_exe patch)
  if(NOT _patch_exe)
    supply_message(FATAL_ERROR "the 'patch' program is needed to apply ${_patch_dir}/*.patch "
                               "(apt-get install patch)")
  endif()
  foreach(_p IN LISTS _patches)
    get_filename_component(_pname "${_p}" NAME)
    execute_process(COMMAND "${_patch_exe}" -p0 -s -f --dry-run -i "${_p}"
                    WORKING_DIRECTORY "${_src}/kokkos" RESULT_VARIABLE _fwd OUTPUT_VARIABLE _out
                    ERROR_VARIABLE _err)
    if(NOT _fwd STREQUAL "0")
      supply_message(FATAL_ERROR "patch ${_pname} does not apply to ${_src}/kokkos:\n"
                                 "${_out}${_err}")
    endif()
    supply_message(STATUS "patch: applying ${_pname}")
    supply_run("patch ${_pname}" "${_src}/patch-${_pname}.log" "${_patch_exe}" -p0 -f -i "${_p}"
               WORKING_DIRECTORY "${_src}/kokkos")
  endforeach()
  file(WRITE "${_src}/.patch-set" "${_patch_set_sha}")
endif()

# ---------------------------------------------------------------------------------------------
# configure, build, install
set(_kokkos_args -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DCMAKE_CXX_EXTENSIONS=OFF
                 -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON
                 -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_TESTS=OFF
                 -DKokkos_ENABLE_EXAMPLES=OFF)
if(SUPPLY_CONFIG STREQUAL "cuda")
  find_program(_nvcc nvcc HINTS "$ENV{CUDA_ROOT}/bin" "$ENV{CUDA_HOME}/bin" /usr/local/cuda/bin)
  if(NOT _nvcc)
    supply_message(FATAL_ERROR "nvcc not found (PATH, CUDA_ROOT, CUDA_HOME, /usr/local/cuda/bin): "
                               "the 'cuda' configuration needs the CUDA toolkit (13.x). Use the "
                               "'host' preset without it.")
  endif()
  get_filename_component(_cuda_root "${_nvcc}" DIRECTORY)
  get_filename_component(_cuda_root "${_cuda_root}" DIRECTORY)
  set(ENV{CUDA_ROOT} "${_cuda_root}")
  supply_message(STATUS "configure: CUDA toolkit at ${_cuda_root}")
  list(APPEND _kokkos_args -DCMAKE_CXX_COMPILER=${_src}/kokkos/bin/nvcc_wrapper
       -DCMAKE_CXX_FLAGS=-arch=sm_90 -DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON
       -DKokkos_ENABLE_CUDA_CONSTEXPR=ON -DKokkos_ARCH_HOPPER90=ON)
else()
  find_program(_gxx NAMES g++ c++)
  if(NOT _gxx)
    supply_message(FATAL_ERROR "no C++ compiler (g++) found for the 'host' configuration")
  endif()
  list(APPEND _kokkos_args -DCMAKE_CXX_COMPILER=${_gxx})
endif()

set(_build "${SUPPLY_CACHE}/build/${SUPPLY_CONFIG}")
file(REMOVE_RECURSE "${_build}")
file(MAKE_DIRECTORY "${_build}")

supply_message(STATUS "configure: Kokkos ${_kokkos_version} (${SUPPLY_CONFIG}) -> ${SUPPLY_PREFIX}")
supply_run("configure Kokkos" "${_build}/kokkos-configure.log" "${CMAKE_COMMAND}"
           -S "${_src}/kokkos" -B "${_build}/kokkos" "-DCMAKE_INSTALL_PREFIX=${SUPPLY_PREFIX}"
           ${_kokkos_args})
supply_message(STATUS "build: Kokkos with ${SUPPLY_JOBS} jobs (host: ~20 s, cuda: ~5 min on 2 "
                      "cores)")
supply_run("build Kokkos" "${_build}/kokkos-build.log" "${CMAKE_COMMAND}" --build
           "${_build}/kokkos" --parallel ${SUPPLY_JOBS})
supply_message(STATUS "install: Kokkos")
supply_run("install Kokkos" "${_build}/kokkos-install.log" "${CMAKE_COMMAND}" --install
           "${_build}/kokkos")

# Kokkos Kernels: headers plus a small library, every explicit instantiation off.
set(_kk_args -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DCMAKE_CXX_EXTENSIONS=OFF
             -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON
             "-DKokkos_ROOT=${SUPPLY_PREFIX}" -DKokkosKernels_ENABLE_TESTS=OFF
             -DKokkosKernels_ENABLE_EXAMPLES=OFF -DKokkosKernels_ADD_DEFAULT_ETI=OFF
             -DKokkosKernels_INST_DOUBLE=OFF -DKokkosKernels_INST_FLOAT=OFF
             -DKokkosKernels_INST_COMPLEX_DOUBLE=OFF -DKokkosKernels_INST_COMPLEX_FLOAT=OFF
             -DKokkosKernels_INST_LAYOUTLEFT=OFF -DKokkosKernels_INST_LAYOUTRIGHT=OFF
             -DKokkosKernels_INST_OFFSET_INT=OFF -DKokkosKernels_INST_OFFSET_SIZE_T=OFF
             -DKokkosKernels_INST_ORDINAL_INT=OFF -DKokkosKernels_INST_ORDINAL_INT64_T=OFF)
if(SUPPLY_CONFIG STREQUAL "cuda")
  list(APPEND _kk_args -DCMAKE_CXX_COMPILER=${SUPPLY_PREFIX}/bin/nvcc_wrapper
       -DCMAKE_CXX_FLAGS=-arch=sm_90)
else()
  list(APPEND _kk_args -DCMAKE_CXX_COMPILER=${_gxx})
endif()
supply_message(STATUS "configure: Kokkos Kernels ${_kokkos_version}")
supply_run("configure Kokkos Kernels" "${_build}/kokkoskernels-configure.log" "${CMAKE_COMMAND}"
           -S "${_src}/kokkos-kernels" -B "${_build}/kokkos-kernels"
           "-DCMAKE_INSTALL_PREFIX=${SUPPLY_PREFIX}" ${_kk_args})
supply_message(STATUS "build: Kokkos Kernels")
supply_run("build Kokkos Kernels" "${_build}/kokkoskernels-build.log" "${CMAKE_COMMAND}" --build
           "${_build}/kokkos-kernels" --parallel ${SUPPLY_JOBS})
supply_message(STATUS "install: Kokkos Kernels")
supply_run("install Kokkos Kernels" "${_build}/kokkoskernels-install.log" "${CMAKE_COMMAND}"
           --install "${_build}/kokkos-kernels")

if(SUPPLY_CONFIG STREQUAL "cuda")
  # nvcc_wrapper defaults to sm_35, which CUDA 13 rejects, and finds nvcc only through PATH or
  # CUDA_ROOT. This launcher fixes both for whoever uses the prefix as CMAKE_CXX_COMPILER.
  file(WRITE "${SUPPLY_PREFIX}/bin/nvcc_wrapper_sm90"
       "#!/bin/bash\n"
       "# Written by MergeAttn's SupplyKokkos.cmake: Kokkos' nvcc_wrapper for sm_90.\n"
       "if [ -z \"\${CUDA_ROOT}\" ] && ! command -v nvcc >/dev/null 2>&1; then\n"
       "  export CUDA_ROOT=\"${_cuda_root}\"\n"
       "fi\n"
       "exec \"$(dirname \"\${BASH_SOURCE[0]}\")/nvcc_wrapper\" -arch=sm_90 \"$@\"\n")
  file(CHMOD "${SUPPLY_PREFIX}/bin/nvcc_wrapper_sm90" PERMISSIONS OWNER_READ OWNER_WRITE
       OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endif()

file(REMOVE_RECURSE "${_build}")
string(TIMESTAMP _now UTC)
file(WRITE "${SUPPLY_PREFIX}/${_stamp_name}"
     "Kokkos and Kokkos Kernels ${_kokkos_version} (${SUPPLY_CONFIG}), Debian trilinos "
     "${_trilinos_version}, patched, installed ${_now}\n")
supply_message(STATUS "done: ${SUPPLY_PREFIX}")
