/* SPDX-License-Identifier: MIT */
/* Call sites of the coverage hooks: the targets, then each architecture's scan (callsites.h). */
#include "callsites.h"
#include "dwarf.h"
#include "elfsym.h"
#include "ucov/dormant.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cs_arch *const arches[] = {&cs_x86_64, &cs_i386};

/* Append one address; 0 or -1 out of memory. */
static int cs_add(struct cs_list *l, uint64_t a) {
  if (UCOV_GROW(l->v, l->cap, l->n, 1024))
    return -1;
  l->v[l->n++] = a;
  return 0;
}

/* The target of a call rel32 (e8), jmp rel32 (e9) or jcc rel32 (0f 80..8f)
 * at b[i] (address addr + i), modulo the address width, and its length; 0
 * if b[i] starts none of them. */
static int branch_at(const uint8_t *b, size_t size, size_t i, uint64_t addr, uint64_t mask,
                     uint64_t *target, int *is_call) {
  size_t op = b[i] == 0x0f ? 2 : 1;
  if (!(b[i] == 0xe8 || b[i] == 0xe9 || (op == 2 && i + 1 < size && (b[i + 1] & 0xf0) == 0x80)) ||
      i + op + 4 > size)
    return 0;
  int32_t rel;
  memcpy(&rel, b + i + op, 4);
  *target = (addr + i + op + 4 + (uint64_t)(int64_t)rel) & mask;
  *is_call = b[i] == 0xe8;
  return (int)(op + 4);
}

/* Append to calls every call rel32 in code b[0..size) at address addr whose
 * target is one of targets[0..n), and to tails every jump to one. 0, or -1
 * out of memory. */
static int scan(const uint8_t *b, size_t size, uint64_t addr, uint64_t mask,
                const uint64_t *targets, int n, struct cs_list *calls, struct cs_list *tails) {
  for (size_t i = 0; i < size; i++) {
    uint64_t target;
    int is_call;
    if (!branch_at(b, size, i, addr, mask, &target, &is_call))
      continue;
    for (int t = 0; t < n; t++)
      if (target == targets[t]) {
        if (cs_add(is_call ? calls : tails, addr + i))
          return -1;
        break;
      }
  }
  return 0;
}

/*
 * A dormant build (ucov cc --dormant) keeps its hook calls as NOPs in the
 * file and their live bytes in the table .ucov_sites (ucov/dormant.h): the
 * sites are the table's entries whose live call or jump goes to a target
 * (or, through the GOT, reads one of the slots got[0..n_got)). 0 or -1.
 */
static int table_sites(Elf *elf, const uint64_t *targets, int n, const uint64_t *got, int n_got,
                       struct cs_list *calls, struct cs_list *tails) {
  size_t shstrndx;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0)
    return 0;
  for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
    GElf_Shdr sh;
    Elf_Data *d;
    const char *name;
    if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
        strcmp(name, UCOV_SITES_SECTION) || !(d = elf_getdata(scn, NULL)) || !d->d_buf)
      continue;
    struct ucov_sites_header th;
    if (ucov_sites_table(d->d_buf, d->d_size, &th) < 0)
      return 0;
    for (uint64_t i = 0; i < th.count; i++) {
      struct ucov_site e;
      memcpy(&e, (const uint8_t *)d->d_buf + sizeof(th) + i * sizeof(e), sizeof(e));
      if (!ucov_site_ok(&e, th.ret_addr))
        continue;
      const uint8_t *f = e.live + e.len - 4;
      int32_t rel = (int32_t)((uint32_t)f[0] | (uint32_t)f[1] << 8 | (uint32_t)f[2] << 16 |
                              (uint32_t)f[3] << 24);
      uint64_t to = e.addr + e.len + (uint64_t)(int64_t)rel;
      int hit = 0;
      for (int t = 0; t < (e.live[0] == 0xff ? n_got : n) && !hit; t++)
        hit = to == (e.live[0] == 0xff ? got[t] : targets[t]);
      if (hit && cs_add(e.kind == UCOV_SITE_CALL ? calls : tails, e.addr))
        return -1;
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

static int cmp_ret(const void *a, const void *b) {
  const struct dw_tail_return *x = a, *y = b;
  return x->ret < y->ret ? -1 : x->ret > y->ret;
}

/* Calls into the functions (ranges fns[0..n), sorted by start) that hold
 * tail sites: their return addresses into hs->rets. 0 or -1. */
/* The length of an indirect call (ff /2, a REX prefix allowed) at b[i], or 0. */
static size_t indirect_call_at(const uint8_t *b, size_t size, size_t i) {
  size_t p = i + ((b[i] & 0xf0) == 0x40); /* REX */
  if (p + 1 >= size || b[p] != 0xff || ((b[p + 1] >> 3) & 7) != 2)
    return 0;
  unsigned mod = b[p + 1] >> 6, rm = b[p + 1] & 7;
  size_t len = 2;
  if (mod != 3 && rm == 4) { /* SIB */
    if (p + 2 >= size)
      return 0;
    len++;
    if (mod == 0 && (b[p + 2] & 7) == 5)
      len += 4;
  }
  if (mod == 0 && rm == 5)
    len += 4; /* rip-relative */
  else if (mod == 1)
    len += 1;
  else if (mod == 2)
    len += 4;
  return p + len <= size ? p - i + len : 0;
}

static int tail_returns(Elf *elf, const struct cs_arch *arch, const struct dw_tail_return *fns,
                        size_t n, struct dw_hook_sites *hs) {
  size_t cap = 0, cap_ind = 0;
  for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
    GElf_Shdr sh;
    Elf_Data *d;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR) ||
        !(d = elf_getdata(scn, NULL)) || !d->d_buf)
      continue;
    const uint8_t *b = d->d_buf;
    for (size_t i = 0; i < d->d_size; i++) {
      uint64_t target;
      int is_call;
      size_t ind = indirect_call_at(b, d->d_size, i);
      if (ind) {
        if (UCOV_GROW(hs->indirect, cap_ind, hs->n_indirect, 1024))
          return -1;
        hs->indirect[hs->n_indirect++] = sh.sh_addr + i + ind;
      }
      if (!branch_at(b, d->d_size, i, sh.sh_addr, arch->addr_mask, &target, &is_call) || !is_call)
        continue;
      size_t lo = 0, hi = n;
      while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (fns[mid].lo < target)
          lo = mid + 1;
        else
          hi = mid;
      }
      if (lo == n || fns[lo].lo != target)
        continue;
      if (UCOV_GROW(hs->rets, cap, hs->n_rets, 256))
        return -1;
      hs->rets[hs->n_rets++] = (struct dw_tail_return){sh.sh_addr + i + 5, fns[lo].lo, fns[lo].hi};
    }
  }
  if (hs->n_rets > 1)
    qsort(hs->rets, hs->n_rets, sizeof(*hs->rets), cmp_ret);
  if (hs->n_indirect > 1)
    qsort(hs->indirect, hs->n_indirect, sizeof(*hs->indirect), cmp_u64);
  return 0;
}

static int cmp_range(const void *a, const void *b) {
  const struct dw_tail_return *x = a, *y = b;
  return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The sites, calls and tail jumps merged in address order; the functions
 * of the tail jumps (from the symbol table) and the calls into them. */
static int collect(Elf *elf, const char *path, const struct cs_arch *arch, struct cs_list *calls,
                   struct cs_list *tails, struct dw_hook_sites *hs) {
  size_t n = calls->n + tails->n;
  hs->at = malloc((n + 1) * sizeof(*hs->at));
  hs->tail = malloc(n + 1);
  if (!hs->at || !hs->tail)
    return -1;
  if (calls->n > 1)
    qsort(calls->v, calls->n, sizeof(*calls->v), cmp_u64);
  if (tails->n > 1)
    qsort(tails->v, tails->n, sizeof(*tails->v), cmp_u64);
  for (size_t i = 0, j = 0; i < calls->n || j < tails->n;) {
    int take_tail = j < tails->n && (i == calls->n || tails->v[j] < calls->v[i]);
    hs->tail[hs->n] = (uint8_t)take_tail;
    hs->at[hs->n++] = take_tail ? tails->v[j++] : calls->v[i++];
  }
  if (!tails->n)
    return 0;
  struct elfsym_table syms;
  struct diag_context quiet = {.quiet = 1};
  diag_context_begin(&quiet);
  int no_syms = elfsym_load(&syms, path) != 0;
  diag_context_end(&quiet);
  if (no_syms)
    return 0; /* no symbols: tail jumps count only where traced PCs match nothing else */
  struct dw_tail_return *fns = malloc(tails->n * sizeof(*fns));
  size_t nf = 0;
  for (size_t j = 0; fns && j < tails->n; j++) {
    const struct elfsym *f = elfsym_lookup(&syms, tails->v[j]);
    if (f && (!nf || fns[nf - 1].lo != f->addr))
      fns[nf++] = (struct dw_tail_return){0, f->addr, f->addr + (f->size ? f->size : 1)};
  }
  elfsym_free(&syms);
  if (!fns)
    return -1;
  if (nf > 1)
    qsort(fns, nf, sizeof(*fns), cmp_range);
  int ret = tail_returns(elf, arch, fns, nf, hs);
  hs->tail_fns = fns;
  hs->n_tail_fns = nf;
  return ret;
}

void dw_hook_sites_free(struct dw_hook_sites *hs) {
  free(hs->at);
  free(hs->tail);
  free(hs->rets);
  free(hs->tail_fns);
  free(hs->indirect);
  memset(hs, 0, sizeof(*hs));
}

/* (Long: the ELF file's sections, then one pass over its code for the hook's calls and tail
 * jumps.) */
int dw_hook_sites(const char *path, struct dw_hook_sites *hs) {
  memset(hs, 0, sizeof(*hs));
  int fd;
  GElf_Ehdr eh;
  Elf *elf = elf_file_open(path, &fd, &eh);
  if (!elf)
    return -1;
  const struct cs_arch *arch = NULL;
  for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
    if (arches[i]->machine == eh.e_machine)
      arch = arches[i];
  if (!arch) {
    diag_at(DIAG_ERROR, path, 0, "call sites are found in x86-64 and i386 code only");
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
    } else if (sh.sh_type == SHT_RELA && (sh.sh_flags & SHF_ALLOC)) {
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
  struct cs_list calls = {0}, tails = {0};
  int failed = 0;
  for (scn = NULL; n_targets && !failed && (scn = elf_nextscn(elf, scn));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR))
      continue;
    Elf_Data *d = elf_getdata(scn, NULL);
    failed =
        d && d->d_buf &&
        scan(d->d_buf, d->d_size, sh.sh_addr, arch->addr_mask, targets, n_targets, &calls, &tails);
  }
  if (!failed && n_targets)
    failed = table_sites(elf, targets, n_targets, got, n_got, &calls, &tails);
  if (!failed && n_targets)
    failed = collect(elf, path, arch, &calls, &tails, hs);
  elf_file_close(elf, fd);
  free(calls.v);
  free(tails.v);
  if (failed) {
    dw_hook_sites_free(hs);
    UCOV_ERR("out of memory");
    return -1;
  }
  return n_targets ? 0 : -2;
}

void dw_say_no_hook(const char *path) {
  diag_at(DIAG_ERROR, path, 0,
          "no __sanitizer_cov_trace_pc or _guard: not built with ucov cc --trace");
}

long dw_call_sites(const char *path, uint64_t **sites) {
  struct dw_hook_sites hs;
  *sites = NULL;
  int ret = dw_hook_sites(path, &hs);
  if (ret)
    return ret;
  *sites = hs.at;
  hs.at = NULL;
  long n = (long)hs.n;
  dw_hook_sites_free(&hs);
  return n;
}
