# The host side's layers (docs/architecture.md, "Folders, and what each may
# include"), enforced: each host folder includes, of the project's headers,
# its own and those of the folders below it only, and of the libraries only
# its own:
#  - src/report: its own headers, ucov/kcov.h and ucov/dormant.h; libc and
#    elfutils (no SQLite, libpq or FUSE);
#  - src/store: its own, src/report's; SQLite, libpq, and libelf (the
#    build-ids of a push's programs);
#  - src/proto: its own, ucov/port/frame.h and ucov/port/compiler.h; libc;
#  - src/cli: everything of the host side, src/posix/beneath.h and
#    src/posix/elf_file.h of the runtime, include/ucov/ and ucov/port/frame.h.
# Included by port_boundary.cmake (SRC set); appends to `bad`.
function(host_layer folder allowed_quoted forbidden_system)
  file(GLOB files ${SRC}/src/${folder}/*.c ${SRC}/src/${folder}/*.h)
  foreach(f ${files})
    file(STRINGS ${f} incs REGEX "^#[ \t]*include")
    foreach(i ${incs})
      if(i MATCHES "^#[ \t]*include[ \t]*\"([^\"]+)\"")
        set(h ${CMAKE_MATCH_1})
        if(NOT h MATCHES "/" AND EXISTS ${SRC}/src/${folder}/${h})
          continue() # its own
        endif()
        if(NOT h MATCHES "${allowed_quoted}")
          list(APPEND bad "${f}: ${i} (${folder} may include only ${allowed_quoted})")
        endif()
      elseif(forbidden_system AND i MATCHES "<(${forbidden_system})")
        list(APPEND bad "${f}: ${i} (not a library of this layer)")
      endif()
    endforeach()
  endforeach()
  set(bad ${bad} PARENT_SCOPE)
endfunction()
host_layer(report "^ucov/(kcov|dormant)\\.h$" "sqlite3|libpq|fuse|postgres")
host_layer(store "^report/[a-z0-9_]+\\.h$" "fuse|elfutils|dwarf")
host_layer(proto "^ucov/port/(frame|compiler)\\.h$" "sqlite3|libpq|fuse|gelf|libelf|elfutils")
host_layer(cli
  "^(report|store|proto)/[a-z0-9_]+\\.h$|^posix/(beneath|elf_file)\\.h$|^ucov/[a-z0-9_]+\\.h$|^ucov/port/frame\\.h$"
  "")
