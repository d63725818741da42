# The host side's layers (docs/architecture.md, "Layers"), enforced: each
# host folder includes, of the project's headers, its own and those of the
# layers below it only, and of the libraries only its own. From the bottom:
#  - src/base (the model and its path policy, exclusions, diagnostics,
#    utilities, JSON, tools run): nothing of the project's; libc;
#  - src/symbols (ELF, DWARF, call sites, build-ids, module maps and their
#    cache): base, ucov/dormant.h; elfutils;
#  - src/diffcov (differential coverage): base;
#  - src/readers (every input kind, every report format read): base,
#    symbols, ucov/kcov.h;
#  - src/writers (every report format written, the HTML page): base,
#    diffcov;
#  - src/store: base, symbols, readers, writers; SQLite, libpq;
#  - src/proto: its own, ucov/port/frame.h and ucov/port/compiler.h; libc;
#  - src/cli: everything of the host side, src/posix/beneath.h and
#    src/posix/elf_file.h of the runtime, include/ucov/ and ucov/port/frame.h.
# Only the store opens a database, only the command mounts. Included by port_boundary.cmake (SRC set); appends to `bad`.
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
set(no_db "sqlite3|libpq|fuse|postgres")
host_layer(base "^$" "${no_db}|gelf|libelf|elfutils|dwarf")
host_layer(symbols "^base/[a-z0-9_]+\\.h$|^ucov/dormant\\.h$" "${no_db}")
host_layer(diffcov "^base/[a-z0-9_]+\\.h$" "${no_db}|gelf|libelf|elfutils|dwarf")
host_layer(readers "^(base|symbols)/[a-z0-9_]+\\.h$|^ucov/kcov\\.h$" "${no_db}")
host_layer(writers "^(base|diffcov)/[a-z0-9_]+\\.h$" "${no_db}|gelf|libelf|elfutils|dwarf")
host_layer(store "^(base|symbols|readers|writers)/[a-z0-9_]+\\.h$" "fuse|gelf|libelf|elfutils|dwarf")
host_layer(proto "^ucov/port/(frame|compiler)\\.h$" "${no_db}|gelf|libelf|elfutils")
host_layer(cli
  "^(base|symbols|diffcov|readers|writers|store|proto)/[a-z0-9_]+\\.h$|^posix/(beneath|elf_file)\\.h$|^ucov/[a-z0-9_]+\\.h$|^ucov/port/frame\\.h$"
  "")
