# Link the core's objects with -nostdlib against a stub port: any libc (or
# other) symbol the core needs is an undefined reference and fails the link.
string(REPLACE "|" ";" objs "${OBJS}")
file(MAKE_DIRECTORY ${OUT})
execute_process(
  COMMAND ${CC} -c -fPIC -ffreestanding -Wall -Werror -I${SRC}/include
          ${SRC}/tests/integration/stub_port.c -o ${OUT}/stub_port.o
  RESULT_VARIABLE r ERROR_VARIABLE e)
if(r)
  message(FATAL_ERROR "stub port: ${e}")
endif()
execute_process(
  COMMAND ${CC} -nostdlib -shared -Wl,-z,defs -o ${OUT}/core.so ${objs} ${OUT}/stub_port.o
  RESULT_VARIABLE r ERROR_VARIABLE e)
if(r)
  message(FATAL_ERROR "the core does not link freestanding:\n${e}")
endif()
# Only freestanding headers, the core's own and include/ucov's.
file(GLOB sources ${SRC}/src/core/*.c ${SRC}/src/core/*.h)
foreach(f ${sources})
  file(STRINGS ${f} incs REGEX "^#include")
  foreach(i ${incs})
    if(NOT i MATCHES "^#include (<(stdint|stddef|stdbool|stdatomic)\\.h>|\"[a-z_/]+\\.h\")$")
      message(FATAL_ERROR "${f}: not a freestanding include: ${i}")
    endif()
  endforeach()
endforeach()
message(STATUS "core links with -nostdlib and includes only freestanding headers")
