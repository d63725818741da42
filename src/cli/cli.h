/* SPDX-License-Identifier: MIT */
/* The ucov command: one function per subcommand, shared helpers. */
#ifndef UCOV_CLI_H
#define UCOV_CLI_H

#include "base/util.h" /* ucov_cmd, UCOV_ERR: messages name the command */

/* Exit statuses of every subcommand. */
#define UCOV_EXIT_OK 0
#define UCOV_EXIT_FAIL 1
#define UCOV_EXIT_USAGE 2
/* ucov report --fail-under-*: a coverage gate missed, one bit per kind (several OR'd). */
#define UCOV_EXIT_GATE_LINE 4
#define UCOV_EXIT_GATE_FUNCTION 8
#define UCOV_EXIT_GATE_BRANCH 16
#define UCOV_EXIT_GATE_PATCH 32 /* --fail-under-patch: the diff's changed lines */

/* A usage error's last line, "Try 'ucov CMD --help' for more information."
 * (the error itself said in one line before it). Returns UCOV_EXIT_USAGE. */
int cli_try_help(void);

struct option;
/* After getopt_long refused an option (its message said): the nearest long
 * option of opts, if one is near ("did you mean --X?"), then cli_try_help. */
int cli_bad_option(int argc, char **argv, const struct option *opts);

int cmd_cc(int argc, char **argv);
int cmd_cxx(int argc, char **argv); /* ucov c++ */
int cmd_symbolize(int argc, char **argv);
int cmd_ls(int argc, char **argv);
int cmd_pull(int argc, char **argv);
int cmd_reset(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_mount(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_exec(int argc, char **argv);
int cmd_relay(int argc, char **argv);
int cmd_push(int argc, char **argv);
int cmd_collect(int argc, char **argv);
int cmd_store(int argc, char **argv);
int cmd_who(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_tests_for(int argc, char **argv);

#include <stddef.h>
#include <sys/types.h>

/* Pull objects (all, or names) of process pid into dir; reset: in two phases
 * (SNAPSHOT, then COMMIT once the files are durable). Returns an exit status. */
int pull_objects(pid_t pid, const char *serial, const char *dir, int reset, char **names,
                 int nnames, int quiet);

/*
 * lcov's kernel mode finds the build directory from a link at
 * gcov/<sys base>/kernel/gcov/base.gcno to <build>/kernel/gcov/base.gcno. A
 * ucov tree (mount or pull) mirrors absolute paths under gcov/, so the
 * build directory is where the units' relative source names were compiled,
 * or "/" if there are none: this link says so, and `lcov --capture` needs no
 * -b.
 */
#define UCOV_LCOV_MARKER "gcov/kernel/gcov/base.gcno"
#define UCOV_LCOV_MARKER_TARGET "/kernel/gcov/base.gcno"

/*
 * The marker's target for the gcov units among objects[0..n) (names as `ucov
 * ls` shows them; gcov/<path>.gcda has its notes file at <path>.gcno): the
 * directory their relative source names were compiled in (the one where
 * most of their functions were; with warn, the others are named on stderr),
 * or "/" when every name is absolute, followed by UCOV_LCOV_MARKER_TARGET
 * (malloc'ed; NULL: no memory). lcov_base.c.
 */
char *lcov_marker_target(const char *const *objects, size_t n, int warn);

/* Finish the interrupted pulls of target pid (or serial) in dir, as `ucov
 * pull --recover`, also when the target is gone. UCOV_EXIT_OK when every one
 * is settled (published, dropped or kept aside). */
int pull_recover(pid_t pid, const char *serial, const char *dir, int quiet);

/* A pulled tree (or any input) read and pushed into a store (opened at
 * *st from url the first time). 0, or -1 (said: nothing pushed). */
struct store;
struct store_push;
struct input_opts;
int cli_push_tree(struct store **st, const char *url, const char *dir,
                  const struct store_push *meta, const struct input_opts *in, int quiet);

/*
 * The run stamp of inputs (files, directories walked without following a
 * link): the MD5 of each data file's path, device, inode, change time and
 * size, sorted (notes files, which runs do not write, left out). A run that
 * wrote its files anew stamps differently from another with the same counts;
 * the same files unchanged stamp the same. 0, or -1 (said).
 */
int cli_run_stamp(char *const *paths, int n, char out[33]);

/* Beside dir/gcov/<path>.gcda, a .gcno link to /<path>.gcno when that exists
 * (made after the objects: none is ever written through one; a .gcno that is
 * not a link is left alone). */
void link_notes(const char *dir, const char *name);

struct timespec;
/* Write dir/name atomically, creating directories, beneath dir with no link
 * followed (posix/beneath.h); with unless_newer, keep a file modified after
 * that time instead. Returns 0 or -1 (message printed). */
int write_object_file(const char *dir, const char *name, const void *data, size_t len,
                      const struct timespec *unless_newer);

#include <stdio.h>
/* Print s with control characters and backslashes escaped (\n, \t, \xNN, \\):
 * names from a target never reach a terminal raw. */
void print_escaped(FILE *f, const char *s);
/* n bytes of a target's text output (a kernel command's answer): control
 * characters escaped as above, but newlines and tabs, which lay it out. */
void print_text(FILE *f, const void *s, size_t n);
/* s escaped as print_escaped prints it (malloc'ed; NULL: no memory). */
char *cli_escaped(const char *s);
/* "ucov CMD: what: text\n" through the diagnostics sink, the target's text
 * escaped. */
void err_target(const char *what, const char *text);

/*
 * The target of a command: a process (--pid N), or a kernel's serial line
 * or frame device (--serial PATH, --dev PATH). target.c: one parser for
 * every command that has a target. A command's getopt_long table holds
 * CLI_TARGET_OPTIONS (short options p, s, d); each option it does not know
 * itself goes to cli_target_option first.
 */
struct cli_target {
  pid_t pid;          /* 0: none */
  const char *serial; /* --serial or --dev PATH; NULL: none */
};
#define CLI_TARGET_PID 1u
#define CLI_TARGET_SERIAL 2u
#define CLI_TARGET_ANY (CLI_TARGET_PID | CLI_TARGET_SERIAL)
#define CLI_TARGET_OPTIONS                                                                         \
  {"pid", required_argument, 0, 'p'}, {"serial", required_argument, 0, 's'}, {                     \
    "dev", required_argument, 0, 'd'                                                               \
  }
/* Option ch (getopt's) with its argument: 1 taken into t, 0 not a target
 * option, -1 refused (said: a bad pid, a kind of target not allowed). */
int cli_target_option(struct cli_target *t, int ch, const char *arg, unsigned allowed);
/* After the options: 0, or -1 (said) for --pid with --serial, or for no
 * target when one is required (optional 0). */
int cli_target_check(const struct cli_target *t, int optional);
struct ucov_ctl;
struct ucov_ctl_object;
/* Connect to the target: 0, or -1 (said). */
int cli_target_open(const struct cli_target *t, struct ucov_ctl *c);
/* LIST, decoded: the count, or -1 (said unless quiet). */
long cli_list_objects(struct ucov_ctl *c, struct ucov_ctl_object **objs, int quiet);

/*
 * Object names and the paths they stand for (objnames.c), as pull writes
 * them and mount shows them: "gcov/<path>.gcda" and "pgo/<module>.profraw";
 * a .gcda's notes file "/<path>.gcno" and the link "gcov/<path>.gcno" beside
 * it (malloc'ed; NULL for another object or no memory); and which of the
 * kernel docs' names a set of objects brings: OBJNAMES_GCOV (gcov/reset,
 * lcov's marker), OBJNAMES_PGO (pgo/reset, pgo/profraw).
 */
int objname_is_gcda(const char *name);
int objname_is_profraw(const char *name);
char *objname_notes(const char *name);
char *objname_notes_link(const char *name);
#define OBJNAMES_GCOV 1u
#define OBJNAMES_PGO 2u
unsigned objnames_debugfs(const char *const *names, long n);

/* Is an object name a safe relative path (no "..", ".", empty or absolute parts)? */
int object_name_is_safe(const char *name);

/* The directory holding the running ucov executable (no trailing slash). */
const char *cli_self_dir(void);

/* ucov who of FILE: 0 if a source the store knows is FILE or ends with
 * "/FILE"; else 1, said with the known paths nearest to it (who_paths.c);
 * -1 if the store cannot be read. */
struct store;
int cli_who_unknown(struct store *s, const char *file);

#endif
