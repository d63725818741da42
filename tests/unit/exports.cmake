# libucov.so exports exactly tests/data/libucov.exports: the calls of ucov.h
# and what compiled code calls under UCOV_0, ucov's cross-module calls under
# UCOV_PRIVATE_0 (src/posix/libucov.map), nothing else. A symbol added to the
# library's interface is added to that list on purpose.
# Usage: cmake -DLIB=<libucov.so> -DNM=<nm> -DWANT=<list> -P exports.cmake
execute_process(COMMAND ${NM} -D --defined-only --with-symbol-versions ${LIB}
  OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} ${LIB} failed")
endif()
string(REGEX MATCHALL "[^ \n]+@@?[A-Z0-9_]+" got "${out}")
list(FILTER got EXCLUDE REGEX "^UCOV_")
list(SORT got)
file(STRINGS ${WANT} want)
list(SORT want)
set(extra ${got})
list(REMOVE_ITEM extra ${want})
set(missing ${want})
list(REMOVE_ITEM missing ${got})
if(extra OR missing)
  string(REPLACE ";" "\n  " extra "${extra}")
  string(REPLACE ";" "\n  " missing "${missing}")
  message(FATAL_ERROR "libucov.so's exports differ from ${WANT}:\nexported, not listed:\n  ${extra}\nlisted, not exported:\n  ${missing}")
endif()
list(LENGTH got n)
message(STATUS "${n} symbols exported, as listed")
