/* SPDX-License-Identifier: MIT */
/*
 * Object names and the paths they stand for, one set of rules for the tree
 * `ucov pull` writes (objfile.c), the view `ucov mount` shows (mount.c)
 * and lcov's marker (lcov_base.c): gcov/<path>.gcda with its notes file at
 * /<path>.gcno and a link gcov/<path>.gcno beside it; pgo/<module>.profraw;
 * the kernel docs' names a set of objects brings with it.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int objname_is_gcda(const char *name) {
  return strncmp(name, "gcov/", 5) == 0 && strlen(name) > 10 && ucov_ends_with(name, ".gcda");
}

int objname_is_profraw(const char *name) {
  return strncmp(name, "pgo/", 4) == 0 && strlen(name) > 12 && ucov_ends_with(name, ".profraw");
}

char *objname_notes(const char *name) {
  char *p = NULL;
  if (!objname_is_gcda(name) || asprintf(&p, "/%.*s.gcno", (int)(strlen(name) - 10), name + 5) < 0)
    return NULL;
  return p;
}

char *objname_notes_link(const char *name) {
  char *p = NULL;
  if (!objname_is_gcda(name) || asprintf(&p, "%.*s.gcno", (int)(strlen(name) - 5), name) < 0)
    return NULL;
  return p;
}

unsigned objnames_debugfs(const char *const *names, long n) {
  unsigned has = 0;
  for (long i = 0; i < n; i++)
    has |= (objname_is_gcda(names[i]) ? OBJNAMES_GCOV : 0u) |
           (objname_is_profraw(names[i]) ? OBJNAMES_PGO : 0u);
  return has;
}
