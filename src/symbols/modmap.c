/* SPDX-License-Identifier: MIT */
/* Reader for the text module map of docs/formats.md. */
#include "modmap.h"
#include "base/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

int modmap_read(struct modmap *m, FILE *f, const char *name) {
  memset(m, 0, sizeof(*m));
  char line[8192];
  size_t cap = 0;
  unsigned lineno = 0;
  while (fgets(line, sizeof(line), f)) {
    lineno++;
    size_t len = strlen(line);
    if (len && line[len - 1] == '\n')
      line[--len] = 0;
    if (len == 0 || line[0] == '#')
      continue;
    struct modmap_entry e = {0};
    char id[160];
    int pathpos = 0;
    if (sscanf(line, "%" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64 " %3s %159s %n", &e.start,
               &e.end, &e.offset, &e.bias, e.perms, id, &pathpos) != 6 ||
        pathpos == 0 || line[pathpos] == 0 || e.end < e.start) {
      diag_at(DIAG_ERROR, name, lineno, "not a module map line: %.80s", line);
      modmap_free(m);
      return -1;
    }
    if (UCOV_GROW(m->entries, cap, m->count, 16)) {
      diag_at(DIAG_ERROR, name, 0, "out of memory");
      modmap_free(m);
      return -1;
    }
    e.build_id = strdup(id);
    e.path = strdup(line + pathpos);
    m->entries[m->count++] = e;
  }
  if (ferror(f)) { /* a read error is not the end of the map */
    diag_at(DIAG_ERROR, name, 0, "%s", strerror(errno));
    modmap_free(m);
    return -1;
  }
  return 0;
}

const struct modmap_entry *modmap_find(const struct modmap *m, uint64_t pc) {
  for (size_t i = 0; i < m->count; i++) {
    const struct modmap_entry *e = &m->entries[i];
    if (e->perms[2] == 'x' && pc >= e->start && pc < e->end)
      return e;
  }
  return NULL;
}

void modmap_free(struct modmap *m) {
  for (size_t i = 0; i < m->count; i++) {
    free(m->entries[i].build_id);
    free(m->entries[i].path);
  }
  free(m->entries);
  memset(m, 0, sizeof(*m));
}
