/* SPDX-License-Identifier: MIT */
/*
 * lcov's kernel mode reads one build directory for every unit, from the link
 * gcov/kernel/gcov/base.gcno (its target's directory, two levels up), and
 * resolves relative source names against it (geninfo --base-directory). On a
 * kernel that is the object tree, where every unit was compiled. Here units
 * come from the directories they were compiled in: the link names the one
 * where the units with relative source names were compiled (gcc's notes
 * record it; clang's do not, and its relative names are taken from the notes
 * file's directory, as `ucov report` takes them; of several, the one where
 * most such functions were), or "/" when every name is absolute. Units with
 * relative names compiled elsewhere cannot be resolved by lcov against it:
 * they are named in a warning.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "readers/gcovn.h"
#include "base/util.h"

char *lcov_marker_target(const char *const *objects, size_t n, int warn) {
  char **dirs = calloc(n + 1, sizeof(*dirs)), **notes = calloc(n + 1, sizeof(*notes));
  size_t *weight = calloc(n + 1, sizeof(*weight)), *unit_dir = calloc(n + 1, sizeof(*unit_dir));
  size_t nd = 0, best = 0;
  char *target = NULL;
  if (!dirs || !notes || !weight || !unit_dir)
    goto out;
  for (size_t i = 0; i < n; i++) {
    char *d;
    unit_dir[i] = (size_t)-1;
    if (!(notes[i] = objname_notes(objects[i])))
      continue;
    struct diag_context quiet = {.quiet = 1}; /* (a unit it cannot read: not its to say) */
    diag_context_begin(&quiet);
    int w = gcovn_relative_dir(notes[i], &d);
    diag_context_end(&quiet);
    if (w <= 0)
      continue;
    size_t j = 0;
    while (j < nd && strcmp(dirs[j], d) != 0)
      j++;
    if (j == nd)
      dirs[nd++] = d;
    else
      free(d);
    unit_dir[i] = j;
    weight[j] += (size_t)w;
  }
  /* The directory most functions with relative names were compiled in (of
   * as many, the first by name: the same whatever order the units came in). */
  for (size_t j = 1; j < nd; j++)
    if (weight[j] > weight[best] || (weight[j] == weight[best] && strcmp(dirs[j], dirs[best]) < 0))
      best = j;
  const char *base = nd ? dirs[best] : "";
  if (asprintf(&target, "%s%s", strcmp(base, "/") == 0 ? "" : base, UCOV_LCOV_MARKER_TARGET) < 0)
    target = NULL;
  for (size_t i = 0; warn && i < n; i++)
    if (unit_dir[i] != (size_t)-1 && unit_dir[i] != best)
      diag_at(DIAG_ERROR, notes[i], 0,
              "relative source names, compiled in %s: lcov's kernel mode resolves them "
              "against %s (gcov/kernel/gcov/base.gcno), and will not find them; give it "
              "--base-directory, or capture that directory alone",
              dirs[unit_dir[i]], base);
out:
  for (size_t j = 0; dirs && j < nd; j++)
    free(dirs[j]);
  for (size_t i = 0; notes && i < n; i++)
    free(notes[i]);
  free(dirs);
  free(notes);
  free(weight);
  free(unit_dir);
  return target;
}
