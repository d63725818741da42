/* SPDX-License-Identifier: MIT */
/*
 * The tools a report runs (gcov, llvm-cov, llvm-profdata): each in a child
 * with its output taken, its error text said with temporary paths mapped
 * back to the user's, and killed past UCOV_TOOL_TIMEOUT seconds (300); and
 * the private temporary directories they work in.
 */
#ifndef UCOV_BASE_SUBPROCESS_H
#define UCOV_BASE_SUBPROCESS_H

#include <stddef.h>

/* A temporary path a tool sees, and the user's path it stands for. */
struct path_map {
  const char *from, *to;
};

/* How long a tool may run on one input, in milliseconds. */
int tool_timeout_ms(void);

#define RUN_TIMEOUT (-2)

/*
 * Run argv (in cwd if not NULL) and take its standard output; its standard
 * error is printed once it ends, with temporary paths mapped back to the
 * user's (map). A tool that runs longer than UCOV_TOOL_TIMEOUT seconds (300)
 * is killed: RUN_TIMEOUT. Returns the exit status (127: could not run), -1 on
 * a local failure.
 */
int run_capture(char *const argv[], const char *cwd, char **out, size_t *len,
                const struct path_map *map, size_t n_map);

/* A private temporary directory under $TMPDIR (else /tmp) into buf, or NULL (said why). */
char *temp_dir(char *buf, size_t len, const char *what);

/* Remove a temporary tree (links in it are removed, never followed). */
void rm_tree(const char *dir);

#endif
