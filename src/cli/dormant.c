/* SPDX-License-Identifier: MIT */
/*
 * ucov cc --dormant, after the link: find every call and tail jump to a hook
 * in the relocations the linker kept (-Wl,--emit-relocs), put each in its
 * dormant form in the file, and append the table of sites (ucov/dormant.h)
 * as the section .ucov_sites. Nothing is guessed from bytes: a site is a
 * relocation against a hook, and its instruction is only recognised (the
 * bytes before the relocated field), never searched for.
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
#include "report/util.h"
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

/* (Long: the ELF file's steps in order (headers, relocations, each site checked and rewritten,
 * the table written back), sharing the mapped file and its section pointers.) */
int dormant_fixup(const char *path, struct dormant_stats *stats) {
  memset(stats, 0, sizeof(*stats));
  size_t size;
  mode_t mode;
  uint8_t *buf = read_all(path, &size, &mode);
  if (!buf)
    return -1;
  int ret = -1;
  struct ucov_site *sites = NULL;
  uint8_t *out = NULL;
  Elf64_Ehdr eh;
  memcpy(&eh, buf, sizeof(eh));
  if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
    UCOV_ERR("%s: not an ELF file", path);
    goto done;
  }
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64 ||
      eh.e_ident[EI_DATA] != ELFDATA2LSB) {
    stats->unsupported = 1; /* i386 and the others keep their live hooks */
    ret = 0;
    goto done;
  }
  if ((eh.e_type != ET_EXEC && eh.e_type != ET_DYN) || eh.e_shentsize != sizeof(Elf64_Shdr) ||
      eh.e_shnum == 0 || eh.e_shnum >= SHN_LORESERVE || eh.e_shstrndx >= eh.e_shnum ||
      eh.e_shoff > size || (size - eh.e_shoff) / sizeof(Elf64_Shdr) < eh.e_shnum) {
    UCOV_ERR("%s: not a linked x86-64 ELF file with sections", path);
    goto done;
  }
  Elf64_Shdr *sh = calloc(eh.e_shnum, sizeof(*sh));
  if (!sh)
    goto done;
  memcpy(sh, buf + eh.e_shoff, eh.e_shnum * sizeof(*sh));
  for (unsigned i = 0; i < eh.e_shnum; i++)
    if (sh[i].sh_type != SHT_NOBITS &&
        (sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset)) {
      UCOV_ERR("%s: section %u lies past the end of the file", path, i);
      free(sh);
      goto done;
    }
  const Elf64_Shdr *shstr = &sh[eh.e_shstrndx];
  const Elf64_Shdr *symtab = NULL;
  for (unsigned i = 0; i < eh.e_shnum; i++) {
    const char *name =
        sh[i].sh_name < shstr->sh_size ? (const char *)buf + shstr->sh_offset + sh[i].sh_name : "";
    if (!strcmp(name, UCOV_SITES_SECTION)) {
      UCOV_ERR("%s: already has its dormant sites (%s)", path, UCOV_SITES_SECTION);
      free(sh);
      goto done;
    }
    if (sh[i].sh_type == SHT_SYMTAB && sh[i].sh_entsize == sizeof(Elf64_Sym) &&
        sh[i].sh_link < eh.e_shnum)
      symtab = &sh[i];
  }
  if (!symtab) {
    UCOV_ERR("%s: no symbol table (was it stripped at the link?)", path);
    free(sh);
    goto done;
  }
  const Elf64_Sym *syms = (const Elf64_Sym *)(buf + symtab->sh_offset);
  size_t nsyms = symtab->sh_size / sizeof(Elf64_Sym);
  const Elf64_Shdr *strs = &sh[symtab->sh_link];
  const char *strtab = (const char *)buf + strs->sh_offset;
  char *hook = calloc(nsyms ? nsyms : 1, 1); /* symbol index -> is a hook */
  uint64_t ret_addr = 0;
  if (!hook) {
    free(sh);
    goto done;
  }
  for (size_t i = 0; i < nsyms; i++) {
    if (syms[i].st_name >= strs->sh_size ||
        !memchr(strtab + syms[i].st_name, 0, strs->sh_size - syms[i].st_name))
      continue;
    const char *name = strtab + syms[i].st_name;
    hook[i] = (char)is_hook(name);
    if (!strcmp(name, "ucov_dormant_ret") && syms[i].st_shndx != SHN_UNDEF &&
        syms[i].st_shndx < eh.e_shnum) {
      long long off = file_off(&sh[syms[i].st_shndx], syms[i].st_value, 1, size);
      if (off >= 0 && buf[off] == 0xc3)
        ret_addr = syms[i].st_value;
    }
  }
  /* The runtime's own functions (the hooks, ucov_*) are never sites, should
   * one of them reach another hook through a relocation. */
  struct range *own = NULL;
  size_t n_own = 0;
  for (size_t i = 0; i < nsyms; i++) {
    if (ELF64_ST_TYPE(syms[i].st_info) != STT_FUNC || syms[i].st_shndx == SHN_UNDEF ||
        syms[i].st_name >= strs->sh_size ||
        !memchr(strtab + syms[i].st_name, 0, strs->sh_size - syms[i].st_name))
      continue;
    const char *name = strtab + syms[i].st_name;
    if (!is_hook(name) && strncmp(name, "ucov_", 5) && strncmp(name, "__sanitizer_cov_", 16))
      continue;
    struct range *g = realloc(own, (n_own + 1) * sizeof(*own));
    if (!g)
      break;
    own = g;
    own[n_own++] = (struct range){syms[i].st_value, syms[i].st_value + syms[i].st_size};
  }
  size_t cap = 0, count = 0;
  for (unsigned r = 0; r < eh.e_shnum; r++) {
    if (sh[r].sh_type != SHT_RELA || sh[r].sh_entsize != sizeof(Elf64_Rela) ||
        sh[r].sh_info >= eh.e_shnum || (sh[r].sh_flags & SHF_ALLOC))
      continue; /* (a dynamic relocation section is the loader's, not a link's) */
    const Elf64_Shdr *target = &sh[sh[r].sh_info];
    if (!(target->sh_flags & SHF_EXECINSTR) || !(target->sh_flags & SHF_ALLOC))
      continue;
    const Elf64_Rela *rel = (const Elf64_Rela *)(buf + sh[r].sh_offset);
    for (size_t k = 0; k < sh[r].sh_size / sizeof(Elf64_Rela); k++) {
      uint32_t type = ELF64_R_TYPE(rel[k].r_info), si = ELF64_R_SYM(rel[k].r_info);
      if (si >= nsyms || !hook[si] ||
          (type != R_X86_64_PLT32 && type != R_X86_64_PC32 && type != R_X86_64_GOTPCRELX &&
           type != R_X86_64_REX_GOTPCRELX && type != R_X86_64_GOTPCREL))
        continue;
      long long off = file_off(target, rel[k].r_offset, 4, size);
      if (off < 0)
        continue;
      uint64_t before = rel[k].r_offset - target->sh_addr;
      int kind = 0, len = 0, back = classify(buf + off, before < 2 ? before : 2, type, &kind, &len);
      if (!back || rel[k].r_addend != -4) {
        stats->other_refs++; /* the hook's address taken: not a call */
        continue;
      }
      int in_own = 0;
      for (size_t o = 0; o < n_own && !in_own; o++)
        in_own = rel[k].r_offset >= own[o].lo && rel[k].r_offset < own[o].hi;
      if (in_own)
        continue;
      if (count == cap) {
        cap = cap ? cap * 2 : 1024;
        struct ucov_site *g = realloc(sites, cap * sizeof(*sites));
        if (!g) {
          free(hook);
          free(own);
          free(sh);
          UCOV_ERR("out of memory");
          goto done;
        }
        sites = g;
      }
      struct ucov_site *s = &sites[count];
      memset(s, 0, sizeof(*s));
      s->addr = rel[k].r_offset - (uint64_t)back;
      s->kind = (uint8_t)kind;
      s->len = (uint8_t)len;
      memcpy(s->live, buf + off - back, (size_t)len);
      count++;
    }
  }
  free(hook);
  free(own);
  qsort(sites, count, sizeof(*sites), by_addr);
  /* One site per instruction; a JCC without a ret to jump to stays live. */
  size_t kept = 0;
  for (size_t i = 0; i < count; i++) {
    if (kept && sites[kept - 1].addr + sites[kept - 1].len > sites[i].addr)
      continue;
    if (sites[i].kind == UCOV_SITE_JCC && !ret_addr) {
      stats->live_jcc++;
      continue;
    }
    sites[kept++] = sites[i];
  }
  count = kept;
  for (size_t i = 0; i < count; i++) {
    const struct ucov_site *s = &sites[i];
    for (unsigned t = 0; t < eh.e_shnum; t++) {
      long long off = (sh[t].sh_flags & SHF_EXECINSTR) && (sh[t].sh_flags & SHF_ALLOC)
                          ? file_off(&sh[t], s->addr, s->len, size)
                          : -1;
      if (off >= 0) {
        ucov_site_dormant(s, ret_addr, buf + off);
        break;
      }
    }
    stats->sites++;
    stats->calls += s->kind == UCOV_SITE_CALL;
    stats->jumps += s->kind != UCOV_SITE_CALL;
  }
  /* Append: the table, a string table with the new name, the section
   * headers with the new one; the old string table and headers stay as
   * unreferenced bytes. */
  struct ucov_sites_header th = {UCOV_SITES_MAGIC, UCOV_SITES_VERSION, sizeof(struct ucov_site),
                                 count, ret_addr};
  size_t table_off = (size + 7) & ~(size_t)7;
  size_t table_len = sizeof(th) + count * sizeof(*sites);
  size_t str_off = table_off + table_len;
  size_t str_len = shstr->sh_size + sizeof(UCOV_SITES_SECTION);
  size_t sh_off = (str_off + str_len + 7) & ~(size_t)7;
  size_t total = sh_off + (eh.e_shnum + 1u) * sizeof(Elf64_Shdr);
  out = calloc(total, 1);
  if (!out) {
    free(sh);
    UCOV_ERR("out of memory");
    goto done;
  }
  memcpy(out, buf, size);
  memcpy(out + table_off, &th, sizeof(th));
  if (count)
    memcpy(out + table_off + sizeof(th), sites, count * sizeof(*sites));
  memcpy(out + str_off, buf + shstr->sh_offset, shstr->sh_size);
  memcpy(out + str_off + shstr->sh_size, UCOV_SITES_SECTION, sizeof(UCOV_SITES_SECTION));
  Elf64_Shdr added = {0};
  added.sh_name = (uint32_t)shstr->sh_size;
  added.sh_type = SHT_PROGBITS;
  added.sh_offset = table_off;
  added.sh_size = table_len;
  added.sh_addralign = 8;
  sh[eh.e_shstrndx].sh_offset = str_off;
  sh[eh.e_shstrndx].sh_size = str_len;
  memcpy(out + sh_off, sh, eh.e_shnum * sizeof(*sh));
  memcpy(out + sh_off + eh.e_shnum * sizeof(*sh), &added, sizeof(added));
  eh.e_shoff = sh_off;
  eh.e_shnum++;
  memcpy(out, &eh, sizeof(eh));
  free(sh);
  ret = write_all(path, out, total, mode);
done:
  free(out);
  free(sites);
  free(buf);
  return ret;
}
