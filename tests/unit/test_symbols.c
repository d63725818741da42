/* SPDX-License-Identifier: MIT */
/*
 * The symbols layer alone (ucov_symbols): a known program's function
 * symbols, its DWARF line table and functions (libdw and ucov's own line
 * program reader), its trace-pc call sites, and a module map parsed and
 * searched; a file that is no ELF file refused with a diagnostic.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "base/diag.h"
#include "symbols/dwarf.h"
#include "symbols/elfsym.h"
#include "symbols/modmap.h"

static const char *elf; /* tests/data/elf/trace_pc (see its README) */

static void test_elfsym(void) {
  struct elfsym_table t;
  CHECK_EQ(elfsym_load(&t, elf), 0);
  const struct elfsym *f = elfsym_find(&t, "f"), *start = elfsym_find(&t, "_start");
  CHECK(f && start && f->addr == 0x40100e && start->addr == 0x401036);
  CHECK(f && elfsym_lookup(&t, f->addr + 1) == f);
  CHECK(elfsym_find(&t, "no_such_function") == NULL);
  elfsym_free(&t);
}

static void test_dwarf(void) {
  struct dw_module m;
  CHECK_EQ(dw_load(&m, elf), 0);
  CHECK(m.has_dwarf && m.n_rows > 0);
  struct dw_frame fr[4];
  int n = dw_lookup(&m, 0x40100e, fr, 4); /* f's first instruction: t.c:3 */
  CHECK(n >= 1);
  if (n >= 1) {
    CHECK(fr[0].file && strstr(fr[0].file, "t.c") != NULL);
    CHECK_EQ(fr[0].line, 3);
    CHECK(fr[n - 1].function && strcmp(fr[n - 1].function, "f") == 0);
  }
  CHECK_EQ(dw_lookup(&m, 0x10, fr, 4), 0); /* no code there */
  dw_free(&m);
}

static void test_call_sites(void) {
  uint64_t *v = NULL;
  long n = dw_call_sites(elf, &v);
  CHECK_EQ(n, 5); /* objdump counts 5 calls to __sanitizer_cov_trace_pc */
  for (long i = 1; i < n; i++)
    CHECK(v[i - 1] < v[i]);
  for (long i = 0; i < n; i++)
    CHECK(v[i] >= 0x401000 && v[i] < 0x401100);
  free(v);
}

static void test_modmap(void) {
  static const char text[] = "400000 402000 0 0 r-x - /bin/prog\n"
                             "7f0000001000 7f0000003000 1000 7f0000000000 r-x 0a0b /lib/x.so\n";
  FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");
  struct modmap m;
  CHECK_EQ(modmap_read(&m, f, "map"), 0);
  fclose(f);
  CHECK_EQ(m.count, 2);
  const struct modmap_entry *e = modmap_find(&m, 0x7f0000001234);
  CHECK(e && strcmp(e->path, "/lib/x.so") == 0 && e->bias == 0x7f0000000000);
  CHECK(modmap_find(&m, 0x500000) == NULL);
  modmap_free(&m);
}

/* A sink that counts and keeps the last diagnostic's file. */
struct keep {
  struct diag_sink sink;
  char file[256];
};
static void keep_emit(struct diag_sink *s, const struct diag *d) {
  struct keep *k = (struct keep *)s;
  snprintf(k->file, sizeof(k->file), "%s", d->file ? d->file : "");
}

static void test_not_elf(void) {
  struct keep k = {{keep_emit, {0}}, ""};
  struct diag_sink *old = diag_sink_set(&k.sink);
  struct dw_module m;
  CHECK_EQ(dw_load(&m, "/proc/self/status"), -1);
  diag_sink_set(old);
  CHECK_EQ(k.sink.count[DIAG_ERROR], 1);
  CHECK(strcmp(k.file, "/proc/self/status") == 0); /* the file a field, not text */
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: test_symbols tests/data/elf/trace_pc\n");
    return 2;
  }
  elf = argv[1];
  test_elfsym();
  test_dwarf();
  test_call_sites();
  test_modmap();
  test_not_elf();
  return check_report("test_symbols");
}
