/* SPDX-License-Identifier: MIT */
/*
 * Report inputs: whatever a path holds, into the model. A directory (as
 * `ucov pull` or a build writes it) is walked for raw data: .gcda, .gcno,
 * .profraw/.profdata, PC dumps and Xen blobs (never a tracefile or JSON, which
 * are reports: inputs only when named); a file is read by its content. The
 * same file or directory reached twice is read once. .gcda files are read with their .gcno (found
 * beside them, or, in a pulled tree DIR/gcov/<build path>.gcda, at the build path) natively
 * (gcovn.h; --gcov-tool: through that gcov or llvm-cov); a .gcno no
 * .gcda paired with is a unit that never ran (input_finish). Raw and
 * indexed LLVM profiles are kept until input_finish: one llvm-profdata
 * merge and one llvm-cov export (JSON, llvm_export_read) per program (with
 * --binary, or a pulled tree's module map), by the tools of the clang
 * version that wrote them. Traces: PC dumps (one
 * hex PC a line, as KCOV clients and syzkaller's rawcover print them; *.pcs or
 * rawcover* in a directory) and KCOV buffer dumps (*.kcov: the u64 count, then
 * the PCs), against --binary or the module map (--modules, or DIR/modules):
 * every trace-pc call site of a module is a line with code, hit or not.
 */
#ifndef UCOV_READERS_INPUTS_H
#define UCOV_READERS_INPUTS_H

#include "base/model.h"

struct input_opts {
  const char **binaries; /* --binary: programs for .profraw inputs and PC dumps */
  int n_binaries;
  const char *modules;   /* --modules: the module map of the traced process (PC dumps) */
  const char *gcov_tool; /* --gcov-tool: .gcda through this gcov (NULL: natively) */
  int progress;          /* a progress line on stderr */
  /* For a push (NULL: not wanted): each gcov unit read natively, with the
   * .gcda read with it (NULL: a unit no run reached, at zero), told before
   * it is read; the model's reading_unit is set while it is. Nonzero: no
   * memory (the unit is not read, a problem). */
  int (*unit)(void *arg, const char *gcno, const char *gcda);
  void *unit_arg;
};

/*
 * What reading one report's inputs keeps from the first input_read to
 * input_finish (input_session.h): what was read already, the units and
 * profiles kept for the end, the traced modules. o must outlive it.
 * NULL: out of memory.
 */
struct input_session;
struct input_session *input_session_new(const struct input_opts *o);
void input_session_free(struct input_session *s);

/* Read one input. Returns the number of problems reported on stderr (0: all read). */
int input_read(struct input_session *s, struct cov_model *m, const char *path);

/*
 * For a push: the notes files of the build trees that the .gcda read so far
 * paired with in another directory (a pulled or exit tree's units at their
 * build paths; a build tree pushed itself holds its notes already), so that
 * input_finish adds the units no run reached at zero, as a report of the
 * build tree itself does. A build tree is where the build system put the
 * notes file: CMake's <tree>/CMakeFiles/<target>.dir/, Meson's <target>.p/
 * below its build.ninja, below autoconf's config.status (notes files laid
 * out otherwise bring no others). Returns the problems reported.
 */
int input_add_build_notes(struct input_session *s);

/*
 * After the last input_read of a report: the .gcda files read natively,
 * each unit's summed over every input and solved once (the lines of one
 * run doing the work of all); every .gcno the inputs held that no .gcda was
 * read with is a unit that never ran, added at 0 (as lcov --initial and
 * gcovr count it); the LLVM profiles, merged and exported per program.
 * Returns the problems reported.
 */
int input_finish(struct input_session *s, struct cov_model *m);

#endif
