/* SPDX-License-Identifier: MIT */
/*
 * ucov cc --dormant, after the link: find every call and tail jump to a hook
 * in the relocations the linker kept (-Wl,--emit-relocs), put each in its
 * dormant form in the file, and append the table of sites (ucov/dormant.h)
 * as the section .ucov_sites. Nothing is guessed from bytes: a site is a
 * relocation against a hook, and its instruction is only recognised (the
 * bytes before the relocated field), never searched for.
 *
 * A build with ucov's twins plugin (src/plugins) also has the section
 * .ucov_twins: pairs of a plain body, which has no hook and starts with the
 * plugin's patchable entry, and its traced twin. Each plain entry becomes a
 * site of its own (a NOP, live a jump to the twin); the hook calls inside
 * the twins are no sites: a twin runs only once its entry went live, and
 * calls its hooks as a trace build does.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dormant_link.h"
#include "posix/elf_file.h"
#include "base/util.h"
#include "ucov/dormant.h"

/* The hooks whose calls are sites: every per-block or per-comparison hook
 * (not trace_pc_guard_init, which a module calls once). */
static int is_hook(const char *name) {
  if (!strcmp(name, "__cyg_profile_func_enter") || !strcmp(name, "__cyg_profile_func_exit"))
    return 1;
  return !strncmp(name, "__sanitizer_cov_trace_", 22) &&
         strcmp(name, "__sanitizer_cov_trace_pc_guard_init") != 0;
}

struct range {
  uint64_t lo, hi;
};

static int by_lo(const void *a, const void *b) {
  const struct range *x = a, *y = b;
  return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Sort r[0..*n) and merge the ranges that overlap or touch. */
static void ranges_merge(struct range *r, size_t *n) {
  if (!*n)
    return;
  qsort(r, *n, sizeof(*r), by_lo);
  size_t k = 0;
  for (size_t i = 1; i < *n; i++) {
    if (r[i].lo <= r[k].hi) {
      if (r[i].hi > r[k].hi)
        r[k].hi = r[i].hi;
    } else {
      r[++k] = r[i];
    }
  }
  *n = k + 1;
}

/* Is a in one of the merged ranges r[0..n)? */
static int in_ranges(const struct range *r, size_t n, uint64_t a) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (r[mid].hi <= a)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && r[lo].lo <= a && a < r[lo].hi;
}

static int by_addr(const void *a, const void *b) {
  const struct ucov_site *x = a, *y = b;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The file offset of virtual address [addr, addr+len) in the allocated
 * section sh, or -1. */
static long long file_off(const Elf64_Shdr *sh, uint64_t addr, uint64_t len, size_t size) {
  if (sh->sh_type == SHT_NOBITS || addr < sh->sh_addr || addr + len > sh->sh_addr + sh->sh_size)
    return -1;
  uint64_t off = sh->sh_offset + (addr - sh->sh_addr);
  return off + len <= size ? (long long)off : -1;
}

/*
 * Recognise the instruction whose 32-bit field is at p (`before` bytes of
 * its section before p): how far back it starts, its kind and length; 0 if
 * it is not a call or jump (an address taken, a data reference). A PLT32 or
 * PC32 field is a call's, jump's or conditional jump's displacement, whose
 * opcode is the byte before it (e8, e9, or 0f 8x), never a prefix: the byte
 * before a call's opcode may be anything (the end of the instruction before).
 * A GOT field is an indirect call or jump (ff 15, ff 25) or one the linker
 * relaxed into a direct call (67 e8).
 */
static int classify(const uint8_t *p, size_t before, uint32_t type, int *kind, int *len) {
  if (type == R_X86_64_PLT32 || type == R_X86_64_PC32) {
    if (before >= 1 && (p[-1] == 0xe8 || p[-1] == 0xe9)) {
      *kind = p[-1] == 0xe8 ? UCOV_SITE_CALL : UCOV_SITE_JMP, *len = 5;
      return 1;
    }
    if (before >= 2 && p[-2] == 0x0f && (p[-1] & 0xf0) == 0x80) {
      *kind = UCOV_SITE_JCC, *len = 6;
      return 2;
    }
    return 0;
  }
  if (before >= 2 && p[-2] == 0xff && (p[-1] == 0x15 || p[-1] == 0x25)) {
    *kind = p[-1] == 0x15 ? UCOV_SITE_CALL : UCOV_SITE_JMP, *len = 6;
    return 2;
  }
  if (before >= 2 && p[-2] == 0x67 && p[-1] == 0xe8) {
    *kind = UCOV_SITE_CALL, *len = 6;
    return 2;
  }
  return 0;
}

static uint8_t *read_all(const char *path, size_t *size, mode_t *mode) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    UCOV_ERR("%s: %s", path, strerror(errno));
    if (fd >= 0)
      close(fd);
    return NULL;
  }
  if (st.st_size < (off_t)sizeof(Elf64_Ehdr) || st.st_size > (off_t)1 << 32) {
    UCOV_ERR("%s: not an ELF file of a size ucov reads", path);
    close(fd);
    return NULL;
  }
  uint8_t *buf = malloc((size_t)st.st_size);
  size_t got = 0;
  while (buf && got < (size_t)st.st_size) {
    ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
    if (r <= 0)
      break;
    got += (size_t)r;
  }
  close(fd);
  if (!buf || got != (size_t)st.st_size) {
    UCOV_ERR("%s: cannot read it", path);
    free(buf);
    return NULL;
  }
  *size = got;
  *mode = st.st_mode & 07777;
  return buf;
}

/* Write buf to path through a new file renamed over it. */
static int write_all(const char *path, const uint8_t *buf, size_t size, mode_t mode) {
  char *tmp = NULL;
  if (asprintf(&tmp, "%s.ucov-dormant.XXXXXX", path) < 0)
    return -1;
  int fd = mkstemp(tmp);
  int ok = fd >= 0;
  for (size_t done = 0; ok && done < size;) {
    ssize_t w = write(fd, buf + done, size - done);
    ok = w > 0;
    done += ok ? (size_t)w : 0;
  }
  ok = ok && fchmod(fd, mode) == 0;
  if (fd >= 0 && close(fd) != 0)
    ok = 0;
  ok = ok && rename(tmp, path) == 0;
  if (!ok) {
    UCOV_ERR("%s: cannot write it: %s", path, strerror(errno));
    unlink(tmp);
  }
  free(tmp);
  return ok ? 0 : -1;
}

/* The linked file in memory, as the steps below share it. */
struct fix {
  const char *path;
  uint8_t *buf;
  size_t size;
  struct ucov_elf_file f;
  const Elf64_Shdr *sh; /* f.sh */
  unsigned shnum;
  const Elf64_Sym *syms;
  size_t nsyms;
  const char *strtab;
  size_t strtab_len;
  uint64_t ret_addr; /* ucov_dormant_ret's `ret`, 0: none */
  struct ucov_site *sites;
  size_t count, cap;
};

static int mem_read(void *arg, void *to, size_t n, uint64_t off) {
  const struct fix *x = arg;
  if (off > x->size || n > x->size - off)
    return -1;
  memcpy(to, x->buf + off, n);
  return 0;
}

/* Symbol i's name, or NULL if it has none inside the string table. */
static const char *sym_name(const struct fix *x, size_t i) {
  uint32_t at = x->syms[i].st_name;
  if (at >= x->strtab_len || !memchr(x->strtab + at, 0, x->strtab_len - at))
    return NULL;
  return x->strtab + at;
}

/* The headers read and checked, the symbol table found: 0; 1 not x86-64
 * (left as it is); -1 said. */
static int fix_open(struct fix *x, struct dormant_stats *stats) {
  Elf64_Ehdr eh;
  memcpy(&eh, x->buf, sizeof(eh)); /* (read_all: the file holds one) */
  if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
    UCOV_ERR("%s: not an ELF file", x->path);
    return -1;
  }
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64 ||
      eh.e_ident[EI_DATA] != ELFDATA2LSB) {
    stats->unsupported = 1; /* i386 and the others keep their live hooks */
    return 1;
  }
  x->f = (struct ucov_elf_file){.read = mem_read, .arg = x, .size = x->size};
  const char *why;
  if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
    UCOV_ERR("%s: not a linked x86-64 ELF file", x->path);
    return -1;
  }
  if (ucov_elf_open(&x->f, &why)) {
    UCOV_ERR("%s: %s", x->path, why);
    return -1;
  }
  x->sh = x->f.sh;
  x->shnum = eh.e_shnum;
  if (ucov_elf_section(&x->f, UCOV_SITES_SECTION)) {
    UCOV_ERR("%s: already has its dormant sites (%s)", x->path, UCOV_SITES_SECTION);
    return -1;
  }
  const Elf64_Shdr *symtab = NULL;
  for (unsigned i = 0; i < x->shnum && !symtab; i++)
    if (x->sh[i].sh_type == SHT_SYMTAB && x->sh[i].sh_entsize == sizeof(Elf64_Sym) &&
        x->sh[i].sh_link < x->shnum && x->sh[x->sh[i].sh_link].sh_type != SHT_NOBITS)
      symtab = &x->sh[i];
  if (!symtab) {
    UCOV_ERR("%s: no symbol table (was it stripped at the link?)", x->path);
    return -1;
  }
  x->syms = (const Elf64_Sym *)(x->buf + symtab->sh_offset);
  x->nsyms = symtab->sh_size / sizeof(Elf64_Sym);
  x->strtab = (const char *)x->buf + x->sh[symtab->sh_link].sh_offset;
  x->strtab_len = x->sh[symtab->sh_link].sh_size;
  return 0;
}

/* Which symbols are hooks (hook[i]), where ucov_dormant_ret's `ret` is, and
 * the functions whose hook calls are no sites: the runtime's own (the hooks,
 * ucov_*), should one of them reach another hook through a relocation, and
 * the twins (and their split parts, "f.ucov_twin.0.cold"), whose calls stay
 * live. 0 or -1. */
static int fix_symbols(struct fix *x, char *hook, struct range **own, size_t *n_own) {
  for (size_t i = 0; i < x->nsyms; i++) {
    const Elf64_Sym *y = &x->syms[i];
    const char *name = sym_name(x, i);
    if (!name)
      continue;
    hook[i] = (char)is_hook(name);
    if (!strcmp(name, "ucov_dormant_ret") && y->st_shndx != SHN_UNDEF && y->st_shndx < x->shnum) {
      long long off = file_off(&x->sh[y->st_shndx], y->st_value, 1, x->size);
      if (off >= 0 && x->buf[off] == 0xc3)
        x->ret_addr = y->st_value;
    }
    if (ELF64_ST_TYPE(y->st_info) != STT_FUNC || y->st_shndx == SHN_UNDEF ||
        (!hook[i] && strncmp(name, "ucov_", 5) && strncmp(name, "__sanitizer_cov_", 16) &&
         !strstr(name, ".ucov_twin")))
      continue;
    struct range *g = realloc(*own, (*n_own + 1) * sizeof(**own));
    if (!g)
      return -1;
    *own = g;
    g[(*n_own)++] = (struct range){y->st_value, y->st_value + y->st_size};
  }
  return 0;
}

/* A new zeroed entry at the end of x->sites, or NULL (out of memory). */
static struct ucov_site *new_site(struct fix *x) {
  if (x->count == x->cap) {
    size_t cap = x->cap ? x->cap * 2 : 1024;
    struct ucov_site *g = realloc(x->sites, cap * sizeof(*g));
    if (!g)
      return NULL;
    x->sites = g;
    x->cap = cap;
  }
  struct ucov_site *site = &x->sites[x->count++];
  memset(site, 0, sizeof(*site));
  return site;
}

/* The file offset of [addr, addr+len) in an allocated executable section,
 * or -1. */
static long long text_off(const struct fix *x, uint64_t addr, uint64_t len) {
  for (unsigned t = 0; t < x->shnum; t++) {
    const Elf64_Shdr *sh = &x->sh[t];
    long long off = (sh->sh_flags & SHF_EXECINSTR) && (sh->sh_flags & SHF_ALLOC)
                        ? file_off(sh, addr, len, x->size)
                        : -1;
    if (off >= 0)
      return off;
  }
  return -1;
}

/*
 * The entries of the plain bodies that .ucov_twins pairs with a twin, as
 * sites: the plugin's patchable entry (after an endbr64) is five 1-byte NOPs
 * (gcc) or one 5-byte NOP (clang's has a displacement of 8: 0f 1f 44 00 08),
 * which become the NOP of ucov_site_dormant, live a jump to the twin.
 * A pair of which the link kept no body (--gc-sections) is left out; a
 * plain entry that is not the plugin's NOPs is counted (stats->twin_bad):
 * that function would never trace. 0 or -1 (out of memory).
 */
static int fix_twins(struct fix *x, struct dormant_stats *stats) {
  const Elf64_Shdr *tw = ucov_elf_section(&x->f, ".ucov_twins");
  if (!tw || tw->sh_type == SHT_NOBITS || tw->sh_offset > x->size ||
      tw->sh_size > x->size - tw->sh_offset)
    return 0;
  static const uint8_t nops[5] = {0x90, 0x90, 0x90, 0x90, 0x90};
  static const uint8_t nop5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
  static const uint8_t endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
  for (uint64_t i = 0; i + 16 <= tw->sh_size; i += 16) {
    uint64_t plain, twin;
    memcpy(&plain, x->buf + tw->sh_offset + i, 8);
    memcpy(&twin, x->buf + tw->sh_offset + i + 8, 8);
    long long at = text_off(x, plain, 9);
    if (!plain || !twin || at < 0 || text_off(x, twin, 1) < 0)
      continue; /* (a body the link dropped) */
    uint64_t entry = plain;
    if (!memcmp(x->buf + at, endbr64, 4))
      entry += 4, at += 4;
    if (memcmp(x->buf + at, nops, 5) && memcmp(x->buf + at, nop5, 4)) {
      stats->twin_bad++;
      continue;
    }
    int64_t rel = (int64_t)(twin - (entry + 5));
    if (rel != (int32_t)rel) {
      stats->twin_bad++;
      continue;
    }
    struct ucov_site *site = new_site(x);
    if (!site)
      return -1;
    uint32_t r = (uint32_t)(int32_t)rel;
    site->addr = entry;
    site->kind = UCOV_SITE_TWIN;
    site->len = 5;
    site->live[0] = 0xe9;
    for (int b = 0; b < 4; b++)
      site->live[1 + b] = (uint8_t)(r >> (8 * b));
  }
  return 0;
}

/* The sites of one relocation section's entries that call or jump to a
 * hook: added to x->sites. 0 or -1 (out of memory). */
static int fix_relocs(struct fix *x, const Elf64_Shdr *rs, const char *hook,
                      const struct range *own, size_t n_own, struct dormant_stats *stats) {
  const Elf64_Shdr *target = &x->sh[rs->sh_info];
  const Elf64_Rela *rel = (const Elf64_Rela *)(x->buf + rs->sh_offset);
  for (size_t k = 0; k < rs->sh_size / sizeof(Elf64_Rela); k++) {
    uint32_t type = ELF64_R_TYPE(rel[k].r_info), si = ELF64_R_SYM(rel[k].r_info);
    if (si >= x->nsyms || !hook[si] ||
        (type != R_X86_64_PLT32 && type != R_X86_64_PC32 && type != R_X86_64_GOTPCRELX &&
         type != R_X86_64_REX_GOTPCRELX && type != R_X86_64_GOTPCREL))
      continue;
    long long off = file_off(target, rel[k].r_offset, 4, x->size);
    if (off < 0)
      continue;
    uint64_t before = rel[k].r_offset - target->sh_addr;
    int kind = 0, len = 0,
        back = classify(x->buf + off, before < 2 ? before : 2, type, &kind, &len);
    if (!back || rel[k].r_addend != -4) {
      stats->other_refs++; /* the hook's address taken: not a call */
      continue;
    }
    if (in_ranges(own, n_own, rel[k].r_offset))
      continue;
    struct ucov_site *site = new_site(x);
    if (!site)
      return -1;
    site->addr = rel[k].r_offset - (uint64_t)back;
    site->kind = (uint8_t)kind;
    site->len = (uint8_t)len;
    memcpy(site->live, x->buf + off - back, (size_t)len);
  }
  return 0;
}

/* Every site found in the kept relocations: 0 or -1 (out of memory). */
static int fix_find(struct fix *x, struct dormant_stats *stats) {
  char *hook = calloc(x->nsyms ? x->nsyms : 1, 1); /* symbol index -> is a hook */
  struct range *own = NULL;
  size_t n_own = 0;
  int r = hook ? fix_symbols(x, hook, &own, &n_own) : -1;
  if (!r) {
    ranges_merge(own, &n_own);
    r = fix_twins(x, stats);
  }
  for (unsigned i = 0; !r && i < x->shnum; i++) {
    const Elf64_Shdr *rs = &x->sh[i];
    if (rs->sh_type != SHT_RELA || rs->sh_entsize != sizeof(Elf64_Rela) ||
        rs->sh_info >= x->shnum || (rs->sh_flags & SHF_ALLOC))
      continue; /* (a dynamic relocation section is the loader's, not a link's) */
    const Elf64_Shdr *target = &x->sh[rs->sh_info];
    if ((target->sh_flags & SHF_EXECINSTR) && (target->sh_flags & SHF_ALLOC))
      r = fix_relocs(x, rs, hook, own, n_own, stats);
  }
  free(hook);
  free(own);
  return r;
}

/* One site per instruction, each put in its dormant form in the file; a JCC
 * without a ret to jump to stays live. */
static void fix_patch(struct fix *x, struct dormant_stats *stats) {
  qsort(x->sites, x->count, sizeof(*x->sites), by_addr);
  size_t kept = 0;
  for (size_t i = 0; i < x->count; i++) {
    if (kept && x->sites[kept - 1].addr + x->sites[kept - 1].len > x->sites[i].addr)
      continue;
    if (x->sites[i].kind == UCOV_SITE_JCC && !x->ret_addr) {
      stats->live_jcc++;
      continue;
    }
    x->sites[kept++] = x->sites[i];
  }
  x->count = kept;
  for (size_t i = 0; i < x->count; i++) {
    const struct ucov_site *site = &x->sites[i];
    long long off = text_off(x, site->addr, site->len);
    if (off >= 0)
      ucov_site_dormant(site, x->ret_addr, x->buf + off);
    stats->sites++;
    stats->calls += site->kind == UCOV_SITE_CALL;
    stats->twins += site->kind == UCOV_SITE_TWIN;
    stats->jumps += site->kind == UCOV_SITE_JMP || site->kind == UCOV_SITE_JCC;
  }
}

/* The file written back with, appended: the table, a string table with the
 * new name, the section headers with the new one; the old string table and
 * headers stay as unreferenced bytes. 0 or -1 (said). */
static int fix_write(struct fix *x, mode_t mode) {
  Elf64_Ehdr eh = x->f.eh;
  const Elf64_Shdr *shstr = &x->sh[eh.e_shstrndx];
  struct ucov_sites_header th = {UCOV_SITES_MAGIC, UCOV_SITES_VERSION, sizeof(struct ucov_site),
                                 x->count, x->ret_addr};
  size_t table_off = (x->size + 7) & ~(size_t)7;
  size_t table_len = sizeof(th) + x->count * sizeof(*x->sites);
  size_t str_off = table_off + table_len;
  size_t str_len = shstr->sh_size + sizeof(UCOV_SITES_SECTION);
  size_t sh_off = (str_off + str_len + 7) & ~(size_t)7;
  size_t total = sh_off + (eh.e_shnum + 1u) * sizeof(Elf64_Shdr);
  uint8_t *out = calloc(total, 1);
  if (!out) {
    UCOV_ERR("out of memory");
    return -1;
  }
  memcpy(out, x->buf, x->size);
  memcpy(out + table_off, &th, sizeof(th));
  if (x->count)
    memcpy(out + table_off + sizeof(th), x->sites, x->count * sizeof(*x->sites));
  memcpy(out + str_off, x->buf + shstr->sh_offset, shstr->sh_size);
  memcpy(out + str_off + shstr->sh_size, UCOV_SITES_SECTION, sizeof(UCOV_SITES_SECTION));
  Elf64_Shdr added = {0};
  added.sh_name = (uint32_t)shstr->sh_size;
  added.sh_type = SHT_PROGBITS;
  added.sh_offset = table_off;
  added.sh_size = table_len;
  added.sh_addralign = 8;
  Elf64_Shdr names = *shstr;
  names.sh_offset = str_off;
  names.sh_size = str_len;
  memcpy(out + sh_off, x->sh, eh.e_shnum * sizeof(Elf64_Shdr));
  memcpy(out + sh_off + eh.e_shstrndx * sizeof(Elf64_Shdr), &names, sizeof(names));
  memcpy(out + sh_off + eh.e_shnum * sizeof(Elf64_Shdr), &added, sizeof(added));
  eh.e_shoff = sh_off;
  eh.e_shnum++;
  memcpy(out, &eh, sizeof(eh));
  int r = write_all(x->path, out, total, mode);
  free(out);
  return r;
}

int dormant_fixup(const char *path, struct dormant_stats *stats) {
  memset(stats, 0, sizeof(*stats));
  mode_t mode;
  struct fix x = {.path = path};
  if (!(x.buf = read_all(path, &x.size, &mode)))
    return -1;
  int r = fix_open(&x, stats);
  if (r == 0 && fix_find(&x, stats)) {
    UCOV_ERR("out of memory");
    r = -1;
  }
  if (r == 0) {
    fix_patch(&x, stats);
    r = fix_write(&x, mode);
  }
  ucov_elf_close(&x.f);
  free(x.sites);
  free(x.buf);
  return r < 0 ? -1 : 0;
}
