/* SPDX-License-Identifier: MIT */
/*
 * Times live pulls: READ of every gcov object of a running target over its
 * control socket, N times; prints the minimum and median of a whole pull in
 * milliseconds and its size.
 * usage: pull_timer PID N [PREFIX]   (objects whose names start with PREFIX, default gcov/)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proto/client.h"
#include "proto/protocol.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  if (argc != 3 && argc != 4)
    return 2;
  const char *prefix = argc == 4 ? argv[3] : "gcov/";
  pid_t pid = (pid_t)atoi(argv[1]);
  int n = atoi(argv[2]);
  struct ucov_ctl c;
  char err[256];
  if (ucov_ctl_open(pid, &c, err, sizeof(err))) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  struct ucov_ctl_reply r;
  if (ucov_ctl_call(&c, UCOV_OP_LIST, NULL, 0, &r, err, sizeof(err)) || r.status) {
    fprintf(stderr, "list failed\n");
    return 1;
  }
  struct ucov_ctl_object *objs;
  long nobj = ucov_ctl_parse_list(&r, &objs);
  ucov_ctl_reply_free(&r);
  double *t = calloc((size_t)n, sizeof(double));
  size_t bytes = 0;
  long units = 0;
  for (int k = 0; k < n; k++) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    bytes = 0;
    units = 0;
    for (long i = 0; i < nobj; i++) {
      if (strncmp(objs[i].name, prefix, strlen(prefix)))
        continue;
      if (ucov_ctl_call(&c, UCOV_OP_READ, objs[i].name, strlen(objs[i].name), &r, err,
                        sizeof(err)) ||
          r.status) {
        fprintf(stderr, "read failed\n");
        return 1;
      }
      bytes += r.len;
      units++;
      ucov_ctl_reply_free(&r);
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    t[k] = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) * 1e-6;
  }
  qsort(t, (size_t)n, sizeof(double), cmp_double);
  printf("pull_min_ms %.3f pull_median_ms %.3f units %ld bytes %zu\n", t[0], t[n / 2], units,
         bytes);
  return 0;
}
