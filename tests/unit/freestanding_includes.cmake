# check_freestanding_includes(QUOTED FILE...): every #include of the files is a
# freestanding C header (stdint, stddef, stdbool, stdatomic) or a header in
# quotes whose path matches the regex QUOTED (without the .h), or the header
# a port names in UCOV_TASK_HEADER (ucov/port/task.h); else a fatal error.
# Included by freestanding.cmake (the core) and port_boundary.cmake (the
# headers a port sees).
function(check_freestanding_includes quoted)
  foreach(f ${ARGN})
    file(STRINGS ${f} incs REGEX "^#[ \t]*include")
    foreach(i ${incs})
      if(NOT i MATCHES "^#include (<(stdint|stddef|stdbool|stdatomic)\\.h>|\"${quoted}\\.h\"|UCOV_TASK_HEADER)$")
        message(FATAL_ERROR "${f}: not a freestanding include: ${i}")
      endif()
    endforeach()
  endforeach()
endfunction()
