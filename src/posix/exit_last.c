/* SPDX-License-Identifier: MIT */
/*
 * POSIX port: the exit write, last. Every count the process makes before it
 * ends is in its exit files, whatever order its constructors, atexit and
 * __cxa_atexit registrations ran in: the write is the first entry of this
 * module's .fini_array (priority 0, below what gcc's own __gcov_exit calls
 * use, 99, and below every priority a program may take), and the loader runs
 * .fini_array backwards, so it runs after every other destructor of the
 * module. .fini_array itself runs from _dl_fini (a static program: from the
 * handler __libc_start_main registers), which glibc registers before any
 * constructor runs, so after every exit handler and global destructor a
 * program registers. In the program (libucov.a) that is before the
 * libraries' own destructors, which add what they count when they unload
 * (ucov_dso_unload); as libucov.so it is after everything that needs it.
 *
 * An atexit registration (what this replaced) ran before the handlers
 * registered earlier: a C++ global constructed before the runtime, or one
 * in a library, lost the counts of its destructor. compiler-rt's profile
 * runtime still writes from one (tests/e2e/exitlast.sh).
 */
#include <sys/types.h>

#include "posix.h"
#include "ucov/port/port.h"
#include "ucov/port/units.h"

static UCOV_NOTRACE void exit_write(void) {
  ucov_gcov_exit_llvm(); /* (every unit, gcc's and clang's, unless dumped) */
  ucov_posix_pgo_at_exit();
}

__attribute__((section(".fini_array.00000"),
               used)) static void (*const ucov_exit_write)(void) = exit_write;
