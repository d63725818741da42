# The header layout and the port boundary:
#  - include/ucov/ holds only what programs include (ucov.h, kcov.h,
#    version.h, dormant.h, and afl.h, which ucov cc --afl includes in every
#    compile); none of them includes a port header;
#  - include/ucov/port/ holds what a port implements or calls; its headers
#    are freestanding (a kernel's port includes them as they are) and declare
#    the core's calls UCOV_PORT_API, never UCOV_HIDDEN: the core's own
#    declarations live in src/core/;
#  - a port (src/posix, examples/baremetal, kernel/linux) and the host tool
#    (src/cli, src/base, src/symbols, src/diffcov, src/readers, src/writers,
#    src/store, src/proto) include ucov/ and
#    ucov/port/ headers only, never src/core's, nor reach them by -I;
#  - the host side's folders keep their layers (host_layers.cmake).
# Usage: cmake -DSRC=<source dir> -P port_boundary.cmake
set(bad "")
file(GLOB top RELATIVE ${SRC}/include/ucov ${SRC}/include/ucov/*.h)
list(SORT top)
if(NOT top STREQUAL "afl.h;dormant.h;kcov.h;ucov.h;version.h")
  list(APPEND bad "include/ucov/ holds ${top}, not only afl.h dormant.h kcov.h ucov.h version.h")
endif()
foreach(h ${top})
  file(STRINGS ${SRC}/include/ucov/${h} incs REGEX "^#[ \t]*include[ \t]*[\"<]ucov/port/")
  if(incs)
    list(APPEND bad "include/ucov/${h}: a program's header includes a port header: ${incs}")
  endif()
endforeach()
file(GLOB port_headers ${SRC}/include/ucov/port/*.h)
if(NOT port_headers)
  list(APPEND bad "include/ucov/port/ is empty")
endif()
foreach(h ${port_headers})
  file(STRINGS ${h} hidden REGEX "UCOV_HIDDEN")
  list(FILTER hidden EXCLUDE REGEX "^#define UCOV_HIDDEN ")
  list(FILTER hidden EXCLUDE REGEX "^ \\* UCOV_HIDDEN:")
  if(hidden)
    list(APPEND bad "${h}: a core-internal (UCOV_HIDDEN) declaration in a port header: ${hidden}")
  endif()
endforeach()
file(GLOB_RECURSE anywhere ${SRC}/include/*.h)
foreach(h ${anywhere})
  if(NOT h MATCHES "/include/ucov/" OR h MATCHES "/include/ucov/port/[^/]+/")
    list(APPEND bad "${h}: a header outside include/ucov/ and include/ucov/port/")
  endif()
endforeach()
file(GLOB outside_core ${SRC}/src/posix/*.c ${SRC}/src/posix/*.h
  ${SRC}/src/cli/*.c ${SRC}/src/cli/*.h ${SRC}/src/base/*.[ch] ${SRC}/src/symbols/*.[ch]
  ${SRC}/src/diffcov/*.[ch] ${SRC}/src/readers/*.[ch] ${SRC}/src/writers/*.[ch]
  ${SRC}/src/store/*.c ${SRC}/src/store/*.h ${SRC}/src/proto/*.c ${SRC}/src/proto/*.h
  ${SRC}/examples/baremetal/*.c ${SRC}/examples/baremetal/*.h
  ${SRC}/kernel/linux/*.c ${SRC}/kernel/linux/*.h ${SRC}/kernel/linux/include/*.h)
foreach(f ${outside_core})
  file(STRINGS ${f} incs REGEX "^#[ \t]*include")
  foreach(i ${incs})
    if(i MATCHES "core/" OR i MATCHES "\"\\.\\./")
      list(APPEND bad "${f}: ${i}")
    endif()
    if(i MATCHES "\"ucov/([a-z_]+/)?[a-z_]+\\.h\"" AND NOT i MATCHES "\"ucov/(port/)?[a-z_]+\\.h\"")
      list(APPEND bad "${f}: ${i}")
    endif()
    if(i MATCHES "\"ucov/(baseline|gcov|gcov_llvm)\\.h\"")
      list(APPEND bad "${f}: ${i} (a core header)")
    endif()
  endforeach()
endforeach()
# Nor may a port's build reach the core's headers through an include path.
foreach(mk examples/baremetal/Makefile kernel/linux/Makefile)
  file(STRINGS ${SRC}/${mk} flags REGEX "-I")
  foreach(l ${flags})
    if(l MATCHES "-I[^ ]*/src(/core)?/?( |$)")
      list(APPEND bad "${mk}: ${l}")
    endif()
  endforeach()
endforeach()
include(${CMAKE_CURRENT_LIST_DIR}/host_layers.cmake)
if(bad)
  string(REPLACE ";" "\n  " bad "${bad}")
  message(FATAL_ERROR "the header layout or the port boundary is broken:\n  ${bad}")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/freestanding_includes.cmake)
set(freestanding ${port_headers} ${SRC}/include/ucov/kcov.h ${SRC}/include/ucov/version.h
  ${SRC}/include/ucov/dormant.h)
check_freestanding_includes("ucov/(port/)?[a-z_]+" ${freestanding})
list(LENGTH outside_core n)
list(LENGTH port_headers np)
message(STATUS "${n} files outside the core include only include/ucov; ${np} port headers, freestanding")
