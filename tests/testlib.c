/* SPDX-License-Identifier: MIT */
/* Test helpers (not instrumented). */
#define _GNU_SOURCE
#include "testlib.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symbols/elfsym.h"
#include "ucov/ucov.h"

static struct elfsym_table exe_syms;
static uintptr_t exe_bias;
static int loaded;

static int find_exe(const struct ucov_module *m, void *arg) {
  const char *exe = arg;
  if ((m->prot & PROT_EXEC) && strcmp(m->path, exe) == 0) {
    exe_bias = m->bias;
    return 1;
  }
  return 0;
}

static void load(void) {
  if (loaded)
    return;
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  exe[n > 0 ? n : 0] = 0;
  if (elfsym_load(&exe_syms, exe) != 0)
    abort(); /* (said) */
  if (ucov_modules(find_exe, exe) != 1) {
    fprintf(stderr, "testlib: executable not in the module map\n");
    abort();
  }
  loaded = 1;
}

const char *pc_function(uint64_t pc) {
  load();
  const struct elfsym *s = elfsym_lookup(&exe_syms, pc - exe_bias - 1);
  return s ? s->name : "??";
}

int pc_in(uint64_t pc, const char *name) {
  return strcmp(pc_function(pc), name) == 0;
}

uint64_t *map_buffer(int fd, uint64_t size) {
  void *p = mmap(NULL, size * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    abort();
  }
  return p;
}
