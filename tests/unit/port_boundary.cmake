# The port boundary: a port (src/posix, examples/baremetal, kernel/linux) includes only the
# headers of include/ucov, never those of src/core; and the headers a port
# sees (include/ucov, but for the hosted API ucov.h) are freestanding, so a
# kernel's port can include them as they are.
# Usage: cmake -DSRC=<source dir> -P port_boundary.cmake
file(GLOB port_files ${SRC}/src/posix/*.c ${SRC}/src/posix/*.h
  ${SRC}/examples/baremetal/*.c ${SRC}/examples/baremetal/*.h
  ${SRC}/kernel/linux/*.c ${SRC}/kernel/linux/*.h ${SRC}/kernel/linux/include/*.h)
set(bad "")
foreach(f ${port_files})
  file(STRINGS ${f} incs REGEX "^#[ \t]*include")
  foreach(i ${incs})
    if(i MATCHES "core/" OR i MATCHES "\"\\.\\./")
      list(APPEND bad "${f}: ${i}")
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
if(bad)
  string(REPLACE ";" "\n  " bad "${bad}")
  message(FATAL_ERROR "a port reaches into the core:\n  ${bad}")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/freestanding_includes.cmake)
file(GLOB public ${SRC}/include/ucov/*.h)
list(FILTER public EXCLUDE REGEX "/ucov\\.h$") # the hosted C API (it guards its one hosted header)
check_freestanding_includes("(ucov/)?[a-z_]+" ${public})
list(LENGTH port_files n)
message(STATUS "${n} port files include only include/ucov; its headers are freestanding")
