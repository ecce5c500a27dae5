# The memory allocator of the programs that run simulations.
#
# ns-3's TCP splits and joins its segments' buffers (TcpTxBuffer merges the rest of one write with
# the next, TcpRxBuffer::Extract joins segments), and a join of shared buffers copies their
# virtual zero bytes into real ones: a TCP run allocates segment-sized buffers (8-32 KB, tens of
# thousands a second) among millions of small objects a second. glibc's malloc serves each large
# one outside its per-thread cache and consolidates its fast bins first, which was a fifth of a
# TCP run's time; tcmalloc serves both from size classes. Measured in doc/talb-benchmarks.rst
# ("The allocator in the standard build"): the README's job 0.81x the CPU time, the llm family's
# dense job over TCP 0.75x, its MoE job over RDMA 0.97x; outputs byte-identical.
#
# TALB_ALLOCATOR: auto (tcmalloc where Debian's libtcmalloc-minimal4 is installed, else glibc),
# tcmalloc (required), system (glibc's malloc). The sanitizer build keeps ASan's allocator.
set(TALB_ALLOCATOR "auto" CACHE STRING
    "malloc of the simulation programs: auto (tcmalloc where installed), tcmalloc, system")
set_property(CACHE TALB_ALLOCATOR PROPERTY STRINGS auto tcmalloc system)
if(NOT TALB_ALLOCATOR MATCHES "^(auto|tcmalloc|system)$")
  message(FATAL_ERROR "TALB_ALLOCATOR='${TALB_ALLOCATOR}': expected auto, tcmalloc or system")
endif()

set(talb_allocator_library "")
if(TALB_SANITIZE)
  if(TALB_ALLOCATOR STREQUAL "tcmalloc")
    message(FATAL_ERROR "TALB_ALLOCATOR=tcmalloc with TALB_SANITIZE=ON: AddressSanitizer "
                        "brings its own allocator; use TALB_ALLOCATOR=auto or system")
  endif()
elseif(NOT TALB_ALLOCATOR STREQUAL "system")
  # The runtime package ships only the versioned name (the unversioned one is in the larger
  # libgoogle-perftools-dev).
  find_library(TALB_TCMALLOC_LIBRARY NAMES tcmalloc_minimal libtcmalloc_minimal.so.4)
  if(TALB_TCMALLOC_LIBRARY)
    set(talb_allocator_library ${TALB_TCMALLOC_LIBRARY})
  elseif(TALB_ALLOCATOR STREQUAL "tcmalloc")
    message(FATAL_ERROR "TALB_ALLOCATOR=tcmalloc: libtcmalloc_minimal not found "
                        "(apt-get install libtcmalloc-minimal4, or scripts/install-deps.sh)")
  endif()
endif()
# What run.json's "allocator" names in this build's simulation programs (checked by
# test/python/test_scenario_runner.py).
if(talb_allocator_library)
  set(talb_allocator_in_use tcmalloc)
  message(STATUS "talb: simulation programs allocate with ${talb_allocator_library}")
elseif(TALB_SANITIZE)
  set(talb_allocator_in_use asan)
  message(STATUS "talb: simulation programs allocate with AddressSanitizer's malloc")
else()
  set(talb_allocator_in_use glibc)
  message(STATUS "talb: simulation programs allocate with glibc's malloc "
                 "(TCP runs take about 1.25x the CPU time they take with libtcmalloc-minimal4)")
endif()

# Links \p target with the chosen allocator. Nothing in the program names it, so a toolchain that
# links only what is named (--as-needed) would drop it: the flags around it keep it.
function(talb_use_allocator target)
  if(talb_allocator_library)
    target_link_libraries(${target} PRIVATE -Wl,--push-state,--no-as-needed
                                            ${talb_allocator_library} -Wl,--pop-state)
  endif()
endfunction()
