/* SPDX-License-Identifier: MIT */
/* ELF function symbols: read the file once, sort, binary search. */
#include "elfsym.h"
#include "base/diag.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp_sym(const void *a, const void *b) {
  const struct elfsym *x = a, *y = b;
  if (x->addr != y->addr)
    return x->addr < y->addr ? -1 : 1;
  /* Prefer the sized, then the global-looking (shorter) name first. */
  if (x->size != y->size)
    return x->size > y->size ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* The function symbols of one symbol table section (ELF32 or ELF64, through
 * libelf); only those of section `only` if it is not 0 (a relocatable
 * object's: each section's symbols count from the section's start). */
static int load_symtab(struct elfsym_table *t, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
                       size_t only) {
  Elf_Data *d = elf_getdata(scn, NULL);
  if (!d || !sh->sh_entsize)
    return -1;
  size_t n = sh->sh_size / sh->sh_entsize, strings = 0, cap = 4096;
  t->syms = calloc(n ? n : 1, sizeof(*t->syms));
  t->strings = malloc(cap);
  if (!t->syms || !t->strings)
    return -1;
  size_t *offs = calloc(n ? n : 1, sizeof(size_t));
  if (!offs)
    return -1;
  t->count = 0;
  for (size_t i = 0; i < n; i++) {
    GElf_Sym sym;
    if (!gelf_getsym(d, (int)i, &sym))
      continue;
    int type = GELF_ST_TYPE(sym.st_info);
    if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
        (only && sym.st_shndx != only))
      continue;
    const char *name = elf_strptr(elf, sh->sh_link, sym.st_name);
    if (!name)
      continue;
    size_t len = strlen(name) + 1;
    if (strings + len > cap) {
      while (strings + len > cap)
        cap *= 2;
      char *grown = realloc(t->strings, cap);
      if (!grown) {
        free(offs);
        return -1;
      }
      t->strings = grown;
    }
    memcpy(t->strings + strings, name, len);
    offs[t->count] = strings;
    strings += len;
    t->syms[t->count].addr = sym.st_value;
    t->syms[t->count].size = sym.st_size;
    t->count++;
  }
  for (size_t i = 0; i < t->count; i++) /* (names point into strings once it stops moving) */
    t->syms[i].name = t->strings + offs[i];
  free(offs);
  if (t->count > 1) /* a table with no symbol has no array: qsort must not see NULL */
    qsort(t->syms, t->count, sizeof(*t->syms), cmp_sym);
  return 0;
}

Elf *elf_file_open(const char *path, int *fd, GElf_Ehdr *eh) {
  *fd = open(path, O_RDONLY | O_CLOEXEC);
  if (*fd < 0) {
    diag_at(DIAG_ERROR, path, 0, "%s", strerror(errno));
    return NULL;
  }
  elf_version(EV_CURRENT);
  Elf *elf = elf_begin(*fd, ELF_C_READ, NULL);
  if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, eh)) {
    diag_at(DIAG_ERROR, path, 0, "not an ELF file");
    elf_file_close(elf, *fd);
    *fd = -1;
    return NULL;
  }
  return elf;
}

void elf_file_close(Elf *elf, int fd) {
  if (elf)
    elf_end(elf);
  if (fd >= 0)
    close(fd);
}

/* "FILE#N": section N of the relocatable object FILE (a Linux module's
 * section, as ucov.ko's module map names it). *n, and FILE in file; 0 if
 * path is not so named or FILE is not there. */
static int section_path(const char *path, char *file, size_t len, size_t *n) {
  const char *hash = strrchr(path, '#');
  char *end;
  if (!hash || !hash[1] || (size_t)(hash - path) >= len)
    return 0;
  unsigned long v = strtoul(hash + 1, &end, 10);
  if (*end || !v || v > 0xfffff)
    return 0;
  memcpy(file, path, (size_t)(hash - path));
  file[hash - path] = 0;
  *n = v;
  return access(path, F_OK) != 0 && access(file, F_OK) == 0;
}

int elfsym_load(struct elfsym_table *t, const char *path) {
  memset(t, 0, sizeof(*t));
  int fd, ret = -1;
  GElf_Ehdr eh;
  char file[4096];
  size_t only = 0, text = 0;
  if (!section_path(path, file, sizeof(file), &only))
    snprintf(file, sizeof(file), "%s", path);
  Elf *elf = elf_file_open(file, &fd, &eh);
  if (!elf)
    return -1;
  if (only && eh.e_type != ET_REL) {
    diag_at(DIAG_ERROR, path, 0, "a section is named, but %s is not a relocatable object", file);
    goto out;
  }
  size_t shstrndx = 0;
  if (eh.e_type == ET_REL && elf_getshdrstrndx(elf, &shstrndx) != 0) {
    diag_at(DIAG_ERROR, path, 0, "corrupt section header table");
    goto out;
  }
  Elf_Scn *symtab = NULL, *dynsym = NULL;
  GElf_Shdr symtab_sh, dynsym_sh, sh;
  for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
    if (!gelf_getshdr(scn, &sh)) {
      diag_at(DIAG_ERROR, path, 0, "corrupt section header table");
      goto out;
    }
    /* A relocatable object's addresses count from each section's start:
     * without a section named, its .text's (as addr2line -j .text). */
    const char *name = eh.e_type == ET_REL ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
    if (name && strcmp(name, ".text") == 0)
      text = elf_ndxscn(scn);
    if (sh.sh_type == SHT_SYMTAB) {
      symtab = scn;
      symtab_sh = sh;
    } else if (sh.sh_type == SHT_DYNSYM) {
      dynsym = scn;
      dynsym_sh = sh;
    }
  }
  if (!symtab && !dynsym) {
    diag_at(DIAG_ERROR, path, 0, "no symbol table (stripped?)");
    goto out;
  }
  if (eh.e_type == ET_REL && !only)
    only = text ? text : (size_t)-1;
  if (load_symtab(t, elf, symtab ? symtab : dynsym, symtab ? &symtab_sh : &dynsym_sh, only) != 0) {
    diag_at(DIAG_ERROR, path, 0, "corrupt symbol table");
    elfsym_free(t);
    goto out;
  }
  ret = 0;
out:
  elf_file_close(elf, fd);
  return ret;
}

const struct elfsym *elfsym_lookup(const struct elfsym_table *t, uint64_t addr) {
  /* Last symbol with sym.addr <= addr. */
  size_t lo = 0, hi = t->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (t->syms[mid].addr <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0)
    return NULL;
  /* Among symbols at the same address, the sorted order put the preferred first. */
  size_t i = lo - 1;
  while (i > 0 && t->syms[i - 1].addr == t->syms[i].addr)
    i--;
  const struct elfsym *s = &t->syms[i];
  if (s->size ? addr - s->addr < s->size : addr == s->addr)
    return s;
  return NULL;
}

const struct elfsym *elfsym_find(const struct elfsym_table *t, const char *name) {
  for (size_t i = 0; i < t->count; i++)
    if (strcmp(t->syms[i].name, name) == 0)
      return &t->syms[i];
  return NULL;
}

void elfsym_free(struct elfsym_table *t) {
  free(t->syms);
  free(t->strings);
  memset(t, 0, sizeof(*t));
}
