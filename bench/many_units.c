/* SPDX-License-Identifier: MIT */
/*
 * A live target of N gcov units, for bench/units_run.sh: what a program of
 * N instrumented translation units (one small function each) registers with
 * the runtime, without compiling N files. This file is compiled with gcc's
 * --coverage -fprofile-info-section=many_units_info, so its own unit is not registered by a
 * constructor but listed in that section; it registers N units
 * shaped like its own (the same gcc version word and merge functions), each
 * with its own .gcda path under DIR, one function of 4 arcs and counters of
 * its own, then waits for its standard input to close.
 * Usage: many_units N DIR   (prints "ready" when the units are registered)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ucov/port/gcov_abi.h"

void __gcov_init(struct gcov_info *info);

extern const struct gcov_info *const __start_many_units_info[];
extern const struct gcov_info *const __stop_many_units_info[];

/* Makes this unit's own function records (and so its merge[] entry). */
int many_units_work(int x);
int many_units_work(int x) {
  return x > 0 ? x : -x;
}

#define ARCS 4

int main(int argc, char **argv) {
  if (argc != 3 || __start_many_units_info == __stop_many_units_info) {
    fprintf(
        stderr,
        "usage: many_units N DIR (built with --coverage -fprofile-info-section=many_units_info)\n");
    return 2;
  }
  long n = strtol(argv[1], NULL, 10);
  const struct gcov_info *own = __start_many_units_info[0];
  size_t counters = gcov_counters_of(own->version); /* merge[]'s length */
  size_t head = sizeof(struct gcov_info) + counters * sizeof(gcov_merge_fn);
  size_t size = head + sizeof(struct gcov_info_tail);
  for (long i = 0; i < n; i++) {
    struct gcov_info *info = calloc(1, size);
    struct gcov_fn_info *fn = calloc(1, sizeof(*fn) + sizeof(struct gcov_ctr_info));
    const struct gcov_fn_info **fns = calloc(1, sizeof(*fns));
    gcov_type *values = calloc(ARCS, sizeof(*values));
    char *path = malloc(strlen(argv[2]) + 32);
    if (!info || !fn || !fns || !values || !path) {
      fprintf(stderr, "many_units: out of memory at unit %ld\n", i);
      return 1;
    }
    sprintf(path, "%s/u%07ld.gcda", argv[2], i);
    memcpy(info, own, head); /* version, stamp, checksum, merge[] */
    info->next = NULL;
    info->filename = path;
    for (size_t k = 1; k < counters; k++)
      info->merge[k] = NULL; /* arcs only */
    fn->key = info;
    fn->ident = 1;
    fn->lineno_checksum = 0x1234u + (uint32_t)i;
    fn->cfg_checksum = 0x5678u;
    fn->ctrs[0].num = ARCS;
    fn->ctrs[0].values = values;
    fns[0] = fn;
    struct gcov_info_tail *tail = (struct gcov_info_tail *)((char *)info + head);
    tail->n_functions = 1;
    tail->functions = fns;
    __gcov_init(info);
    for (int k = 0; k < ARCS; k++) /* counts made once it runs (unit i: i % 7 + 0..3) */
      values[k] = (gcov_type)(i % 7 + k);
  }
  printf("ready %d\n", many_units_work(-1));
  fflush(stdout);
  while (getchar() != EOF)
    ;
  return 0;
}
