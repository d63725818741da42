/* SPDX-License-Identifier: MIT */
/* ELF function symbols: read the file once, sort, binary search. */
#include "elfsym.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
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

/* Is [off, off+len) inside a file of size fsize? */
static int in_file(uint64_t off, uint64_t len, uint64_t fsize) {
  return off <= fsize && len <= fsize - off;
}

static int load_symtab(struct elfsym_table *t, const uint8_t *base, uint64_t fsize,
                       const Elf64_Shdr *sh, const Elf64_Shdr *strsh) {
  if (sh->sh_entsize != sizeof(Elf64_Sym) || !in_file(sh->sh_offset, sh->sh_size, fsize) ||
      !in_file(strsh->sh_offset, strsh->sh_size, fsize) || strsh->sh_size == 0)
    return -1;
  size_t n = sh->sh_size / sizeof(Elf64_Sym);
  const Elf64_Sym *syms = (const Elf64_Sym *)(base + sh->sh_offset);
  t->strings = malloc(strsh->sh_size + 1);
  t->syms = calloc(n ? n : 1, sizeof(*t->syms));
  if (!t->strings || !t->syms)
    return -1;
  memcpy(t->strings, base + strsh->sh_offset, strsh->sh_size);
  t->strings[strsh->sh_size] = 0;
  t->count = 0;
  for (size_t i = 0; i < n; i++) {
    if (ELF64_ST_TYPE(syms[i].st_info) != STT_FUNC &&
        ELF64_ST_TYPE(syms[i].st_info) != STT_GNU_IFUNC)
      continue;
    if (syms[i].st_shndx == SHN_UNDEF || syms[i].st_name >= strsh->sh_size)
      continue;
    t->syms[t->count].addr = syms[i].st_value;
    t->syms[t->count].size = syms[i].st_size;
    t->syms[t->count].name = t->strings + syms[i].st_name;
    t->count++;
  }
  qsort(t->syms, t->count, sizeof(*t->syms), cmp_sym);
  return 0;
}

int elfsym_load(struct elfsym_table *t, const char *path, char *err, size_t errlen) {
  memset(t, 0, sizeof(*t));
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
    snprintf(err, errlen, "%s: not an ELF file (too short)", path);
    close(fd);
    return -1;
  }
  uint64_t fsize = (uint64_t)st.st_size;
  const uint8_t *base = mmap(NULL, fsize, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (base == MAP_FAILED) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return -1;
  }
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
  int ret = -1;
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64) {
    snprintf(err, errlen, "%s: not a 64-bit ELF file", path);
    goto out;
  }
  if (eh->e_shentsize != sizeof(Elf64_Shdr) ||
      !in_file(eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr), fsize)) {
    snprintf(err, errlen, "%s: corrupt section header table", path);
    goto out;
  }
  const Elf64_Shdr *shdrs = (const Elf64_Shdr *)(base + eh->e_shoff);
  const Elf64_Shdr *symtab = NULL, *dynsym = NULL;
  for (unsigned i = 0; i < eh->e_shnum; i++) {
    if (shdrs[i].sh_type == SHT_SYMTAB)
      symtab = &shdrs[i];
    else if (shdrs[i].sh_type == SHT_DYNSYM)
      dynsym = &shdrs[i];
  }
  const Elf64_Shdr *use = symtab ? symtab : dynsym;
  if (!use || use->sh_link >= eh->e_shnum) {
    snprintf(err, errlen, "%s: no symbol table (stripped?)", path);
    goto out;
  }
  if (load_symtab(t, base, fsize, use, &shdrs[use->sh_link]) != 0) {
    snprintf(err, errlen, "%s: corrupt symbol table", path);
    elfsym_free(t);
    goto out;
  }
  ret = 0;
out:
  munmap((void *)base, fsize);
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
