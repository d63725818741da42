# The runtime must never instrument itself: its code calls no hook, and it
# defines the hooks the compilers emit.
foreach(lib ${LIB} ${SHIM})
  execute_process(COMMAND objdump -d --no-show-raw-insn ${lib} OUTPUT_VARIABLE dis
                  RESULT_VARIABLE r)
  if(r)
    message(FATAL_ERROR "objdump failed on ${lib}")
  endif()
  string(REGEX MATCHALL "call[^\n]*<(__sanitizer_cov|__cyg_profile)[^\n]*" calls "${dis}")
  if(calls)
    message(FATAL_ERROR "${lib} calls instrumentation hooks:\n${calls}")
  endif()
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
