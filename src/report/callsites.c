/* SPDX-License-Identifier: MIT */
/* Call sites of the coverage hooks: the targets, then each architecture's scan (callsites.h). */
#include "callsites.h"
#include "dwarf.h"
#include "elfsym.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cs_arch *const arches[] = {&cs_x86_64, &cs_i386};

int cs_add(struct cs_list *l, uint64_t a) {
  if (UCOV_GROW(l->v, l->cap, l->n, 1024))
    return -1;
  l->v[l->n++] = a;
  return 0;
}

/* Append to out every call rel32 (e8) in code b[0..size) at address addr
 * whose target, modulo the address width, is one of targets[0..n). 0, or -1
 * out of memory. */
static int scan(const uint8_t *b, size_t size, uint64_t addr, uint64_t mask,
                const uint64_t *targets, int n, struct cs_list *out) {
  for (size_t i = 0; i + 5 <= size; i++) {
    if (b[i] != 0xe8)
      continue;
    int32_t rel;
    memcpy(&rel, b + i + 1, 4);
    uint64_t target = (addr + i + 5 + (uint64_t)(int64_t)rel) & mask;
    for (int t = 0; t < n; t++)
      if (target == targets[t]) {
        if (cs_add(out, addr + i))
          return -1;
        break;
      }
  }
  return 0;
}

static int is_hook(const char *name) {
  return name && (strcmp(name, "__sanitizer_cov_trace_pc") == 0 ||
                  strcmp(name, "__sanitizer_cov_trace_pc_guard") == 0);
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

long dw_call_sites(const char *path, uint64_t **sites, char *err, size_t errlen) {
  *sites = NULL;
  int fd;
  GElf_Ehdr eh;
  Elf *elf = elf_file_open(path, &fd, &eh, err, errlen);
  if (!elf)
    return -1;
  const struct cs_arch *arch = NULL;
  for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
    if (arches[i]->machine == eh.e_machine)
      arch = arches[i];
  if (!arch) {
    snprintf(err, errlen, "%s: call sites are found in x86-64 and i386 code only", path);
    elf_file_close(elf, fd);
    return -1;
  }
  /* Targets: the hooks' addresses, and the PLT entries jumping through their GOT slots. */
  uint64_t targets[16];
  int n_targets = 0;
  uint64_t got[8];
  int n_got = 0;
  Elf_Scn *scn = NULL;
  while ((scn = elf_nextscn(elf, scn))) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh))
      continue;
    Elf_Data *d = elf_getdata(scn, NULL);
    if (!d)
      continue;
    if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) {
      for (size_t i = 0; i < sh.sh_size / (sh.sh_entsize ? sh.sh_entsize : 1); i++) {
        GElf_Sym sym;
        if (!gelf_getsym(d, (int)i, &sym) || !sym.st_value || sym.st_shndx == SHN_UNDEF)
          continue;
        if (is_hook(elf_strptr(elf, sh.sh_link, sym.st_name)) && n_targets < 16)
          targets[n_targets++] = sym.st_value;
      }
    } else if (sh.sh_type == SHT_RELA) {
      /* .rela.plt: GOT slots of the hooks, when they come from a shared library. */
      Elf_Scn *symscn = elf_getscn(elf, sh.sh_link);
      GElf_Shdr symsh;
      Elf_Data *symd = symscn ? elf_getdata(symscn, NULL) : NULL;
      if (!symd || !gelf_getshdr(symscn, &symsh))
        continue;
      for (size_t i = 0; i < sh.sh_size / (sh.sh_entsize ? sh.sh_entsize : 1); i++) {
        GElf_Rela r;
        GElf_Sym sym;
        if (!gelf_getrela(d, (int)i, &r) || !gelf_getsym(symd, (int)GELF_R_SYM(r.r_info), &sym))
          continue;
        if (is_hook(elf_strptr(elf, symsh.sh_link, sym.st_name)) && n_got < 8)
          got[n_got++] = r.r_offset;
      }
    }
  }
  if (n_got && arch->plt_targets)
    arch->plt_targets(elf, got, n_got, targets, &n_targets, 16);
  struct cs_list out = {0};
  for (scn = NULL; n_targets && (scn = elf_nextscn(elf, scn));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR))
      continue;
    Elf_Data *d = elf_getdata(scn, NULL);
    if (d && d->d_buf &&
        scan(d->d_buf, d->d_size, sh.sh_addr, arch->addr_mask, targets, n_targets, &out)) {
      free(out.v);
      elf_file_close(elf, fd);
      snprintf(err, errlen, "out of memory");
      return -1;
    }
  }
  elf_file_close(elf, fd);
  if (!n_targets) {
    snprintf(err, errlen,
             "%s: no __sanitizer_cov_trace_pc or _guard: not built with ucov cc --trace", path);
    free(out.v);
    return -2;
  }
  if (out.n > 1)
    qsort(out.v, out.n, sizeof(*out.v), cmp_u64);
  *sites = out.v;
  return (long)out.n;
}
