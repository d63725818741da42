/* SPDX-License-Identifier: MIT */
/*
 * POSIX port, x86-64: a dormant module's sites, as the patcher needs them
 * (dormant_sites.h): the table `ucov cc --dormant` appended to its file
 * (read through elf_file.c, checked against the loaded module's build-id and
 * executable segments), and the XRay sleds of its map in memory.
 */
#define _GNU_SOURCE
#include "ucov/port/compiler.h"

#if defined(__x86_64__)
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dormant_sites.h"
#include "elf_file.h"

static UCOV_NOTRACE int psite_order(const void *a, const void *b) {
  const struct psite *x = a, *y = b;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

struct find_arg {
  const void *ehdr;
  struct dl_phdr_info info;
  char name[4096];
  int found;
};

static UCOV_NOTRACE int find_cb(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct find_arg *a = data;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && (uintptr_t)a->ehdr >= start &&
        (uintptr_t)a->ehdr < start + ph->p_memsz) {
      a->info = *info;
      snprintf(a->name, sizeof(a->name), "%s",
               info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe");
      a->found = 1;
      return 1;
    }
  }
  return 0;
}

static UCOV_NOTRACE int pread_at(void *arg, void *buf, size_t n, uint64_t off) {
  return pread(*(int *)arg, buf, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

/* The XRay sleds of m (clang -fxray-instrument), loaded at bias, as sites
 * at *n on in v. */
static UCOV_NOTRACE void xray_sites(const struct dmod *m, uintptr_t bias, size_t nx, uintptr_t lo,
                                    uintptr_t hi, struct psite *v, size_t *n) {
  for (size_t i = 0; i < nx; i++) {
    const uint8_t *e = (const uint8_t *)m->reg.xray_start + i * XRAY_ENTRY;
    uintptr_t sled = xray_sled(e);
    unsigned kind = e[16];
    const void *tramp = kind == 0   ? m->reg.tramp_entry
                        : kind == 1 ? m->reg.tramp_exit
                        : kind == 2 ? m->reg.tramp_tail
                                    : NULL;
    const uint8_t *b = (const uint8_t *)sled;
    if (!tramp || sled < lo || sled + PSITE_MAX > hi ||
        !(kind == 1 ? b[0] == 0xc3 : b[0] == 0xeb && b[1] == 0x09))
      continue; /* (an event sled, or one that is not as clang makes them) */
    struct psite *p = &v[(*n)++];
    p->addr = sled - bias;
    p->idx = (uint32_t)i;
    p->kind = kind == 1 ? K_XEXIT : K_XENTRY;
    p->len = PSITE_MAX;
    memcpy(p->dormant, b, PSITE_MAX);
    int32_t rel = (int32_t)((intptr_t)tramp - (intptr_t)(sled + PSITE_MAX));
    uint8_t live[PSITE_MAX] = {0x41,
                               0xba,
                               (uint8_t)i,
                               (uint8_t)(i >> 8),
                               (uint8_t)(i >> 16),
                               (uint8_t)(i >> 24),
                               kind == 1 ? 0xe9 : 0xe8,
                               (uint8_t)rel,
                               (uint8_t)((uint32_t)rel >> 8),
                               (uint8_t)((uint32_t)rel >> 16),
                               (uint8_t)((uint32_t)rel >> 24)};
    memcpy(p->live, live, PSITE_MAX);
  }
}

/* The loaded module whose ELF header m registered: its file's name into
 * a->name, its load bias, its executable extent [lo, hi) and the build-id
 * its notes carry in memory into t. 0, or -1 (said). */
static UCOV_NOTRACE int loaded_module(const struct dmod *m, struct find_arg *a, struct ptable *t,
                                      const uint8_t **mem_id, size_t *mem_id_len) {
  memset(a, 0, sizeof(*a));
  a->ehdr = m->ehdr;
  dl_iterate_phdr(find_cb, a);
  if (!a->found) {
    ucov_dormant_say("ucov: dormant sites: no loaded module holds %p", m->ehdr);
    return -1;
  }
  t->bias = a->info.dlpi_addr;
  *mem_id = NULL;
  *mem_id_len = 0;
  t->lo = UINTPTR_MAX, t->hi = 0;
  for (int i = 0; i < a->info.dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &a->info.dlpi_phdr[i];
    uintptr_t at = t->bias + ph->p_vaddr;
    if (ph->p_type == PT_NOTE && !*mem_id_len)
      *mem_id_len = ucov_elf_note_build_id((const uint8_t *)at, ph->p_memsz, mem_id);
    if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
      t->lo = t->lo < at ? t->lo : at;
      t->hi = t->hi > at + ph->p_memsz ? t->hi : at + ph->p_memsz;
    }
  }
  return 0;
}

/* The site table of the module's file, which must be the file loaded (the
 * same build-id): 0 with *th and *raw read; 1 if it has none; -1 if it
 * cannot be read or is another file (said); -2 if it is damaged. */
static UCOV_NOTRACE int file_sites(const char *name, const uint8_t *mem_id, size_t mem_id_len,
                                   struct ucov_sites_header *th, struct ucov_site **raw) {
  *raw = NULL;
  int fd = open(name, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    ucov_dormant_say("ucov: dormant sites: %s: %s", name, strerror(errno));
    if (fd >= 0)
      close(fd);
    return -1;
  }
  struct ucov_elf_file f = {.read = pread_at, .arg = &fd, .size = (uint64_t)st.st_size};
  const char *why;
  if (ucov_elf_open(&f, &why)) {
    ucov_dormant_say("ucov: dormant sites: %s: %s: its code is not traced", name, why);
    close(fd);
    return -1;
  }
  uint8_t file_id[64];
  size_t file_id_len = ucov_elf_build_id(&f, file_id, sizeof(file_id));
  int has = ucov_elf_sites(&f, th, raw);
  ucov_elf_close(&f);
  close(fd);
  if (has == 0 && (file_id_len != mem_id_len || file_id_len > sizeof(file_id) ||
                   (mem_id_len && memcmp(file_id, mem_id, mem_id_len)))) {
    ucov_dormant_say(
        "ucov: dormant sites: %s is not the file this process loaded (its build-id differs): "
        "its code is not traced",
        name);
    free(*raw);
    *raw = NULL;
    return -1;
  }
  return has < 0 ? -2 : has;
}

UCOV_NOTRACE int ucov_dormant_table_read(struct dmod *m) {
  struct find_arg a;
  struct ptable where, *t = NULL;
  const uint8_t *mem_id;
  size_t mem_id_len;
  if (loaded_module(m, &a, &where, &mem_id, &mem_id_len))
    return -1;
  uintptr_t lo = where.lo, hi = where.hi;
  struct ucov_sites_header th = {0};
  struct ucov_site *raw = NULL;
  uint8_t *mark = NULL;
  int ret = -1, has = file_sites(a.name, mem_id, mem_id_len, &th, &raw);
  if (has == -1)
    return -1;
  if (has < 0)
    goto bad;
  size_t nraw = has ? 0 : th.count;
  size_t nx =
      m->reg.xray_start && m->reg.xray_stop > m->reg.xray_start
          ? (size_t)((const char *)m->reg.xray_stop - (const char *)m->reg.xray_start) / XRAY_ENTRY
          : 0;
  if (!nraw && !nx) {
    ret = 1; /* nothing to patch in this module */
    goto out;
  }
  t = calloc(1, sizeof(*t) + (nraw + nx) * sizeof(t->sites[0]));
  mark = calloc(nraw + nx, 1);
  if (!t || !mark)
    goto bad;
  *t = where;
  struct psite *sites = t->sites;
  size_t n = 0;
  for (size_t i = 0; i < nraw; i++) {
    const struct ucov_site *e = &raw[i];
    uintptr_t at = t->bias + e->addr;
    if (at < lo || at + e->len > hi)
      goto bad;
    struct psite *p = &sites[n++];
    p->addr = e->addr;
    p->kind = e->kind;
    p->len = e->len;
    memcpy(p->live, e->live, e->len);
    ucov_site_dormant(e, th.ret_addr, p->dormant);
  }
  xray_sites(m, t->bias, nx, lo, hi, sites, &n);
  qsort(sites, n, sizeof(*sites), psite_order);
  for (size_t i = 1; i < n; i++)
    if (sites[i].addr < sites[i - 1].addr + sites[i - 1].len)
      goto bad;
  t->count = n;
  ucov_dormant_table_publish(m, t, mark);
  t = NULL;
  mark = NULL;
  ret = 0;
  goto out;
bad:
  ucov_dormant_say("ucov: dormant sites: %s: its %s table is damaged: its code is not traced",
                   a.name, UCOV_SITES_SECTION);
out:
  free(raw);
  free(t);
  free(mark);
  return ret;
}

#endif
