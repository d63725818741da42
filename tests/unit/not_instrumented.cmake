# The runtime must never instrument itself: no code of it refers to a hook
# (the runtime defines the hooks; a reference is a call from instrumented code),
# and it defines every hook the compilers emit.
set(hook_re "(__sanitizer_cov_|__cyg_profile_func_)")

# Fail if `objdump FLAG FILE` lists a relocation against a hook.
function(check_no_hook_relocations flag file)
  execute_process(COMMAND objdump ${flag} ${file} OUTPUT_VARIABLE relocs RESULT_VARIABLE r)
  if(r)
    message(FATAL_ERROR "objdump ${flag} failed on ${file}")
  endif()
  string(REGEX MATCHALL "[^\n]*R_X86_64_[A-Z0-9_]+ +${hook_re}[^\n]*" refs "${relocs}")
  if(refs)
    message(FATAL_ERROR "${file} refers to instrumentation hooks:\n${refs}")
  endif()
endfunction()

check_no_hook_relocations(-r ${LIB}) # the archive's objects
if(AFL)
  check_no_hook_relocations(-r ${AFL}) # libucov-afl.a (ucov cc --afl)
endif()
foreach(so ${SHARED} ${SHIM})
  check_no_hook_relocations(-R ${so}) # PLT slots of the shared objects
endforeach()

execute_process(COMMAND nm --defined-only ${LIB} OUTPUT_VARIABLE syms)
foreach(hook __sanitizer_cov_trace_pc __sanitizer_cov_trace_cmp1 __sanitizer_cov_trace_cmp8
        __sanitizer_cov_trace_const_cmp4 __sanitizer_cov_trace_switch __sanitizer_cov_trace_cmpf
        __sanitizer_cov_trace_cmpd __sanitizer_cov_trace_div4 __sanitizer_cov_trace_div8
        __sanitizer_cov_trace_gep __sanitizer_cov_trace_pc_entry __sanitizer_cov_trace_pc_exit
        __cyg_profile_func_enter __cyg_profile_func_exit)
  if(NOT syms MATCHES " T ${hook}\n")
    message(FATAL_ERROR "libucov.a does not define ${hook}")
  endif()
endforeach()
message(STATUS "runtime not instrumented; hooks defined")
