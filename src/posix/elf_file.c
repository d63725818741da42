/* SPDX-License-Identifier: MIT */
/* An ELF file's sections and a dormant module's site table (elf_file.h). */
#define _GNU_SOURCE
#include "elf_file.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

/* Section names past this are not ucov's business (and a hostile file's). */
#define NAMES_MAX ((size_t)1 << 24)
#define NOTES_MAX ((size_t)4096)

UCOV_NOTRACE int ucov_elf_open(struct ucov_elf_file *f, const char **why) {
  f->sh = NULL;
  f->names = NULL;
  f->names_len = 0;
  ElfW(Ehdr) *eh = &f->eh;
  if (f->size < sizeof(*eh) || f->read(f->arg, eh, sizeof(*eh), 0) ||
      memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
      eh->e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32)) {
    *why = "not an ELF file";
    return -1;
  }
  if (eh->e_shentsize != sizeof(ElfW(Shdr)) || eh->e_shnum == 0 || eh->e_shnum >= SHN_LORESERVE ||
      eh->e_shstrndx >= eh->e_shnum || eh->e_shoff > f->size ||
      (f->size - eh->e_shoff) / sizeof(ElfW(Shdr)) < eh->e_shnum) {
    *why = "not an ELF file with sections";
    return -1;
  }
  *why = "out of memory";
  if (!(f->sh = calloc(eh->e_shnum, sizeof(*f->sh))))
    return -2;
  *why = "its section headers cannot be read";
  if (f->read(f->arg, f->sh, eh->e_shnum * sizeof(*f->sh), eh->e_shoff))
    goto bad;
  for (unsigned i = 0; i < eh->e_shnum; i++) {
    const ElfW(Shdr) *s = &f->sh[i];
    if (s->sh_type != SHT_NOBITS &&
        (s->sh_offset > f->size || s->sh_size > f->size - s->sh_offset)) {
      *why = "a section lies past the end of the file";
      goto bad;
    }
  }
  const ElfW(Shdr) *str = &f->sh[eh->e_shstrndx];
  *why = "its section names cannot be read";
  if (str->sh_type == SHT_NOBITS || str->sh_size > NAMES_MAX ||
      !(f->names = calloc(1, str->sh_size + 1)) ||
      f->read(f->arg, f->names, str->sh_size, str->sh_offset))
    goto bad;
  f->names_len = str->sh_size;
  return 0;
bad:
  ucov_elf_close(f);
  return -2;
}

UCOV_NOTRACE void ucov_elf_close(struct ucov_elf_file *f) {
  free(f->sh);
  free(f->names);
  f->sh = NULL;
  f->names = NULL;
}

UCOV_NOTRACE const char *ucov_elf_section_name(const struct ucov_elf_file *f, unsigned i) {
  return i < f->eh.e_shnum && f->sh[i].sh_name < f->names_len ? f->names + f->sh[i].sh_name : "";
}

UCOV_NOTRACE const ElfW(Shdr) * ucov_elf_section(const struct ucov_elf_file *f, const char *name) {
  for (unsigned i = 0; i < f->eh.e_shnum; i++)
    if (!strcmp(ucov_elf_section_name(f, i), name))
      return &f->sh[i];
  return NULL;
}

UCOV_NOTRACE size_t ucov_elf_note_build_id(const uint8_t *p, size_t len, const uint8_t **id) {
  size_t off = 0;
  while (off + sizeof(ElfW(Nhdr)) <= len) {
    ElfW(Nhdr) nh;
    memcpy(&nh, p + off, sizeof(nh));
    size_t name = (nh.n_namesz + 3) & ~3u, desc = (nh.n_descsz + 3) & ~3u;
    size_t body = off + sizeof(nh);
    if (name > len - body || desc > len - body - name)
      return 0;
    if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && !memcmp(p + body, "GNU", 4)) {
      *id = p + body + name;
      return nh.n_descsz;
    }
    off = body + name + desc;
  }
  return 0;
}

UCOV_NOTRACE size_t ucov_elf_build_id(const struct ucov_elf_file *f, uint8_t *id, size_t cap) {
  uint8_t notes[NOTES_MAX];
  for (unsigned i = 0; i < f->eh.e_shnum; i++) {
    const ElfW(Shdr) *s = &f->sh[i];
    if (s->sh_type != SHT_NOTE || s->sh_size > sizeof(notes) ||
        f->read(f->arg, notes, s->sh_size, s->sh_offset))
      continue;
    const uint8_t *at;
    size_t n = ucov_elf_note_build_id(notes, s->sh_size, &at);
    if (n) {
      memcpy(id, at, n < cap ? n : cap);
      return n;
    }
  }
  return 0;
}

UCOV_NOTRACE int ucov_elf_sites(const struct ucov_elf_file *f, struct ucov_sites_header *th,
                                struct ucov_site **sites) {
  *sites = NULL;
  const ElfW(Shdr) *tab = ucov_elf_section(f, UCOV_SITES_SECTION);
  if (!tab)
    return 1;
  uint8_t head[sizeof(*th)];
  if (tab->sh_type == SHT_NOBITS || tab->sh_size < sizeof(head) ||
      f->read(f->arg, head, sizeof(head), tab->sh_offset) ||
      ucov_sites_table(head, tab->sh_size, th) < 0)
    return -1;
  struct ucov_site *v = malloc(th->count ? th->count * sizeof(*v) : 1);
  if (!v || f->read(f->arg, v, th->count * sizeof(*v), tab->sh_offset + sizeof(head))) {
    free(v);
    return -1;
  }
  for (uint64_t i = 0; i < th->count; i++)
    if (!ucov_site_ok(&v[i], th->ret_addr)) {
      free(v);
      return -1;
    }
  *sites = v;
  return 0;
}
