/* SPDX-License-Identifier: MIT */
/* The module map: segments, bias, paths and build-ids of the loaded modules. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../check.h"
#include "base/diag.h"
#include "symbols/elfsym.h"
#include "symbols/modmap.h"
#include "ucov/ucov.h"

static char exe[PATH_MAX];

/* The last diagnostic said. */
struct said {
  struct diag_sink sink;
  char file[64], message[256];
  unsigned long line;
};

static void keep(struct diag_sink *s, const struct diag *d) {
  struct said *k = (struct said *)s;
  snprintf(k->file, sizeof(k->file), "%s", d->file ? d->file : "");
  snprintf(k->message, sizeof(k->message), "%s", d->message);
  k->line = d->line;
}

int main(void);

struct seen {
  int exe_exec, libc, count;
  uintptr_t bias;
  char build_id[130];
};

static int collect(const struct ucov_module *m, void *arg) {
  struct seen *s = arg;
  s->count++;
  CHECK(m->start < m->end);
  CHECK(m->path != NULL);
  if (strcmp(m->path, exe) == 0 && (m->prot & PROT_EXEC)) {
    s->exe_exec++;
    s->bias = m->bias;
    uintptr_t pc = (uintptr_t)&main;
    CHECK(pc >= m->start && pc < m->end);
    for (size_t i = 0; i < m->build_id_size && i < 64; i++)
      sprintf(s->build_id + 2 * i, "%02x", m->build_id[i]);
  }
  if (strstr(m->path, "libc.so"))
    s->libc++;
  return 0;
}

static int stop_at_second(const struct ucov_module *m, void *arg) {
  (void)m;
  return ++*(int *)arg == 2 ? 7 : 0;
}

int main(void) {
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  exe[n > 0 ? n : 0] = 0;
  struct seen s = {0};
  CHECK_EQ(ucov_modules(collect, &s), 0);
  CHECK_EQ(s.exe_exec, 1);
  CHECK(s.libc >= 1);

  /* The build-id matches the one binutils reads from the file. */
  char cmd[PATH_MAX + 64], line[512], want[130] = "";
  snprintf(cmd, sizeof(cmd), "readelf -n '%s'", exe);
  FILE *p = popen(cmd, "r");
  while (p && fgets(line, sizeof(line), p))
    if (strstr(line, "Build ID: "))
      sscanf(strstr(line, "Build ID: ") + 10, "%129s", want);
  if (p)
    pclose(p);
  CHECK(want[0] != 0);
  CHECK(strcmp(s.build_id, want) == 0);

  /* PIE: address - bias is the symbol's ELF address. */
  struct elfsym_table t;
  CHECK_OK(elfsym_load(&t, exe));
  const struct elfsym *m = elfsym_find(&t, "main");
  CHECK(m != NULL);
  if (m)
    CHECK_EQ((uintptr_t)&main - s.bias, m->addr);

  /* The callback's non-zero return stops the walk and is returned. */
  int calls = 0;
  CHECK_EQ(ucov_modules(stop_at_second, &calls), 7);
  CHECK_EQ(calls, 2);

  /* The text form reads back, line for line. */
  FILE *f = tmpfile();
  CHECK_OK(ucov_modules_write(fileno(f)));
  rewind(f);
  struct modmap mm;
  CHECK_OK(modmap_read(&mm, f, "tmp"));
  CHECK_EQ(mm.count, (size_t)s.count);
  const struct modmap_entry *e = modmap_find(&mm, (uintptr_t)&main);
  CHECK(e && strcmp(e->path, exe) == 0 && e->bias == s.bias && strcmp(e->build_id, want) == 0);
  modmap_free(&mm);
  fclose(f);

  /* A bad line is an error naming it. */
  f = tmpfile();
  fputs("0x1000 0x2000 0x0 0x0 r-x - /bin/x\nnot a line\n", f);
  rewind(f);
  struct said k = {.sink = {.emit = keep}};
  struct diag_sink *was = diag_sink_set(&k.sink);
  CHECK(modmap_read(&mm, f, "bad") == -1);
  diag_sink_set(was);
  CHECK(k.sink.count[DIAG_ERROR] == 1 && !strcmp(k.file, "bad") && k.line == 2);
  CHECK(strstr(k.message, "not a module map line: not a line") != NULL);
  fclose(f);
  CHECK_ERRNO(ucov_modules_write(-1), EBADF);
  elfsym_free(&t);
  return check_report("test_modules");
}
