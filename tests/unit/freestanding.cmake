# Link the core's objects with -nostdlib against a stub port: any libc (or
# other) symbol the core needs is an undefined reference and fails the link;
# and what the objects leave undefined must be functions port.h declares.
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
# Every symbol the core needs from outside itself is a function of include/ucov/port/port.h.
execute_process(COMMAND nm -u ${objs} OUTPUT_VARIABLE undef RESULT_VARIABLE r)
execute_process(COMMAND nm --defined-only ${objs} OUTPUT_VARIABLE defs)
file(READ ${SRC}/include/ucov/port/port.h port_h)
string(REGEX MATCHALL "[a-z_0-9]+\\(" port_funcs "${port_h}")
string(REGEX MATCHALL "[ \t]U [A-Za-z_0-9.]+" undef_syms "${undef}")
set(outside "")
foreach(u ${undef_syms})
  string(REGEX REPLACE "^[ \t]U " "" u "${u}")
  if(defs MATCHES " [A-Za-z] ${u}\n")
    continue() # one core object's, for another
  endif()
  list(FIND port_funcs "${u}(" found)
  if(found EQUAL -1 AND NOT u MATCHES "^_GLOBAL_OFFSET_TABLE_$")
    list(APPEND outside ${u})
  endif()
endforeach()
if(outside)
  list(REMOVE_DUPLICATES outside)
  message(FATAL_ERROR "the core needs symbols that include/ucov/port/port.h does not declare: ${outside}")
endif()
# Only freestanding headers, the core's own and include/ucov's (the core and proto/frame.c).
include(${CMAKE_CURRENT_LIST_DIR}/freestanding_includes.cmake)
file(GLOB sources ${SRC}/src/core/*.c ${SRC}/src/core/*.h ${SRC}/src/proto/frame.c)
check_freestanding_includes("[a-z_/]+" ${sources})
message(STATUS "core links with -nostdlib and includes only freestanding headers")
