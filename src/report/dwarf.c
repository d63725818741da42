/* SPDX-License-Identifier: MIT */
/* The symbolizer's DWARF side: line tables, function and inline tree, call sites (dwarf.h). */
#define _GNU_SOURCE
#include "dwarf.h"
#include "elfsym.h"
#include "util.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NONE UINT32_MAX

/* ---- strings, deduplicated through an open-addressing index ---- */

struct str_index {
  uint32_t *slots; /* string index + 1 */
  size_t n_slots;
  size_t cap;
};

static uint32_t intern(struct dw_module *m, const char *s) {
  if (!s)
    return NONE;
  struct str_index *ix = m->index;
  if (2 * (m->n_strings + 1) > ix->n_slots) {
    size_t n = ix->n_slots ? ix->n_slots * 2 : 1024;
    uint32_t *slots = calloc(n, sizeof(*slots));
    if (!slots)
      return NONE;
    for (size_t i = 0; i < m->n_strings; i++) {
      size_t k = ucov_hash_str(m->strings[i]) & (n - 1);
      while (slots[k])
        k = (k + 1) & (n - 1);
      slots[k] = (uint32_t)i + 1;
    }
    free(ix->slots);
    ix->slots = slots;
    ix->n_slots = n;
  }
  size_t k = ucov_hash_str(s) & (ix->n_slots - 1);
  for (; ix->slots[k]; k = (k + 1) & (ix->n_slots - 1))
    if (strcmp(m->strings[ix->slots[k] - 1], s) == 0)
      return ix->slots[k] - 1;
  if (UCOV_GROW(m->strings, ix->cap, m->n_strings, 256))
    return NONE;
  m->strings[m->n_strings] = strdup(s);
  ix->slots[k] = (uint32_t)m->n_strings + 1;
  return (uint32_t)m->n_strings++;
}

/* Growable arrays start at 1024 elements here. */
static int reserve(void **arr, size_t *cap, size_t n, size_t elem) {
  return ucov_grow(arr, cap, n, elem, 1024);
}

/* ---- functions: a tree of ranges ---- */

struct fn_vec {
  struct dw_fn *v;
  size_t n, cap;
};

static int cmp_fn(const void *a, const void *b) {
  const struct dw_fn *x = a, *y = b;
  return x->low < y->low ? -1 : x->low > y->low;
}

/* The name of a function DIE, following abstract origins and specifications. */
static const char *fn_name(Dwarf_Die *die) {
  Dwarf_Attribute attr;
  const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
  return name;
}

struct cu_ctx {
  struct dw_module *m;
  uint32_t *files; /* the unit's file table, as interned names */
  size_t n_files;
  struct fn_vec all; /* every node, children placed after their parents' lists */
};

static uint32_t cu_file(struct cu_ctx *c, Dwarf_Word idx) {
  return c->files && idx < c->n_files ? c->files[idx] : NONE;
}

/*
 * Collect the range nodes of the functions among die's children (recursing
 * through lexical blocks and other scopes) into out, each with its own
 * children placed in c->all.
 */
static int collect(struct cu_ctx *c, Dwarf_Die *parent, struct fn_vec *out, int depth);

static int add_fn_die(struct cu_ctx *c, Dwarf_Die *die, int tag, struct fn_vec *out, int depth) {
  struct fn_vec kids = {0};
  if (depth < 64 && collect(c, die, &kids, depth + 1)) {
    free(kids.v);
    return -1;
  }
  uint32_t first = (uint32_t)c->all.n;
  if (kids.n) {
    qsort(kids.v, kids.n, sizeof(*kids.v), cmp_fn);
    for (size_t i = 0; i < kids.n; i++) {
      if (reserve((void **)&c->all.v, &c->all.cap, c->all.n, sizeof(struct dw_fn)))
        return -1;
      c->all.v[c->all.n++] = kids.v[i];
    }
  }
  struct dw_fn node = {.name = intern(c->m, fn_name(die)),
                       .call_file = NONE,
                       .decl_file = NONE,
                       .first_child = first,
                       .n_children = (uint32_t)kids.n};
  Dwarf_Attribute da;
  Dwarf_Word dv;
  if (dwarf_formudata(dwarf_attr_integrate(die, DW_AT_decl_line, &da), &dv) == 0 && dv > 0) {
    node.decl_line = (uint32_t)dv;
    if (dwarf_formudata(dwarf_attr_integrate(die, DW_AT_decl_file, &da), &dv) == 0)
      node.decl_file = cu_file(c, dv);
  }
  free(kids.v);
  if (tag == DW_TAG_inlined_subroutine) {
    Dwarf_Attribute a;
    Dwarf_Word v;
    if (dwarf_attr(die, DW_AT_call_file, &a) && dwarf_formudata(&a, &v) == 0)
      node.call_file = cu_file(c, v);
    if (dwarf_attr(die, DW_AT_call_line, &a) && dwarf_formudata(&a, &v) == 0)
      node.call_line = (uint32_t)v;
    if (dwarf_attr(die, DW_AT_call_column, &a) && dwarf_formudata(&a, &v) == 0)
      node.call_col = (uint32_t)v;
  }
  Dwarf_Addr base, start, end;
  ptrdiff_t off = 0;
  while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
    if (start >= end)
      continue;
    node.low = start;
    node.high = end;
    if (reserve((void **)&out->v, &out->cap, out->n, sizeof(struct dw_fn)))
      return -1;
    out->v[out->n++] = node;
  }
  return 0;
}

static int collect(struct cu_ctx *c, Dwarf_Die *parent, struct fn_vec *out, int depth) {
  Dwarf_Die child;
  if (dwarf_child(parent, &child) != 0)
    return 0;
  do {
    int tag = dwarf_tag(&child);
    if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
      if (add_fn_die(c, &child, tag, out, depth))
        return -1;
    } else if (tag == DW_TAG_lexical_block || tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
               tag == DW_TAG_structure_type || tag == DW_TAG_try_block ||
               tag == DW_TAG_catch_block) {
      if (depth < 64 && collect(c, &child, out, depth + 1))
        return -1;
    }
  } while (dwarf_siblingof(&child, &child) == 0);
  return 0;
}

static int cmp_row(const void *a, const void *b) {
  const struct dw_row *x = a, *y = b;
  if (x->addr != y->addr)
    return x->addr < y->addr ? -1 : 1;
  /* At one address an end of sequence comes first (the next sequence starts
   * there); rows at one address keep their order (qsort here is glibc's
   * merge sort, stable; and it runs only when the units' tables interleave). */
  return (x->file != NONE) - (y->file != NONE);
}

static int dw_load_dwarf(struct dw_module *m, const char *path, char *err, size_t errlen);

/* The rows of one unit: libdw hands them over sorted. */
struct run {
  size_t start, n;
};

static const struct dw_row *run_first;

static int cmp_run(const void *a, const void *b) {
  const struct run *x = a, *y = b;
  return cmp_row(&run_first[x->start], &run_first[y->start]);
}

/*
 * Sort the whole table. Units' tables are sorted each and usually cover
 * disjoint addresses, only not in address order: then putting the units in
 * order is enough (one copy); otherwise a full sort.
 */
static int sort_rows(struct dw_module *m, struct run *runs, size_t n_runs) {
  int sorted_runs = 1;
  for (size_t r = 0; sorted_runs && r < n_runs; r++)
    for (size_t i = runs[r].start + 1; sorted_runs && i < runs[r].start + runs[r].n; i++)
      sorted_runs = cmp_row(&m->rows[i - 1], &m->rows[i]) <= 0;
  if (sorted_runs && n_runs > 1) {
    run_first = m->rows;
    if (n_runs > 1) /* (qsort must not see a NULL array, even empty) */
      qsort(runs, n_runs, sizeof(*runs), cmp_run);
    for (size_t r = 1; sorted_runs && r < n_runs; r++)
      sorted_runs =
          cmp_row(&m->rows[runs[r - 1].start + runs[r - 1].n - 1], &m->rows[runs[r].start]) <= 0;
    if (sorted_runs) {
      struct dw_row *v = malloc(m->n_rows * sizeof(*v));
      if (!v)
        return -1;
      size_t o = 0;
      for (size_t r = 0; r < n_runs; r++) {
        memcpy(v + o, m->rows + runs[r].start, runs[r].n * sizeof(*v));
        o += runs[r].n;
      }
      free(m->rows);
      m->rows = v;
    }
  }
  if (!sorted_runs && m->n_rows > 1)
    qsort(m->rows, m->n_rows, sizeof(*m->rows), cmp_row);
  return 0;
}

/* ---- the line program (.debug_line, DWARF 2 to 5), read here: libdw's
 * own line tables cost more memory than everything else together ---- */

struct rd {
  const uint8_t *p, *end;
  int err;
};

static uint64_t rd_n(struct rd *r, int n) {
  if (r->end - r->p < n) {
    r->err = 1;
    r->p = r->end;
    return 0;
  }
  uint64_t v = 0;
  for (int i = 0; i < n; i++)
    v |= (uint64_t)r->p[i] << (8 * i);
  r->p += n;
  return v;
}

static uint64_t rd_uleb(struct rd *r) {
  uint64_t v = 0;
  for (int shift = 0; r->p < r->end; shift += 7) {
    uint8_t b = *r->p++;
    if (shift < 64)
      v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80))
      return v;
  }
  r->err = 1;
  return v;
}

static int64_t rd_sleb(struct rd *r) {
  int64_t v = 0;
  int shift = 0;
  uint8_t b = 0x80;
  while (r->p < r->end && (b & 0x80)) {
    b = *r->p++;
    if (shift < 64)
      v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
    shift += 7;
  }
  if (b & 0x80)
    r->err = 1;
  else if (shift < 64 && (b & 0x40))
    v |= -((int64_t)1 << shift);
  return v;
}

static const char *rd_str(struct rd *r) {
  const uint8_t *q = memchr(r->p, 0, (size_t)(r->end - r->p));
  if (!q) {
    r->err = 1;
    r->p = r->end;
    return "";
  }
  const char *s = (const char *)r->p;
  r->p = q + 1;
  return s;
}

struct dbg_secs {
  const uint8_t *line, *line_str, *str;
  size_t line_n, line_str_n, str_n;
};

static void find_sections(Elf *elf, struct dbg_secs *d) {
  size_t shstrndx;
  if (!elf || elf_getshdrstrndx(elf, &shstrndx))
    return;
  for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
      continue;
    const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
    const uint8_t **p = NULL;
    size_t *n = NULL;
    if (name && strcmp(name, ".debug_line") == 0)
      p = &d->line, n = &d->line_n;
    else if (name && strcmp(name, ".debug_line_str") == 0)
      p = &d->line_str, n = &d->line_str_n;
    else if (name && strcmp(name, ".debug_str") == 0)
      p = &d->str, n = &d->str_n;
    if (!p)
      continue;
    if (sh.sh_flags & SHF_COMPRESSED)
      elf_compress(scn, 0, 0);
    Elf_Data *data = elf_getdata(scn, NULL);
    if (data && data->d_buf) {
      *p = data->d_buf;
      *n = data->d_size;
    }
  }
}

static const char *sec_str(const uint8_t *sec, size_t n, uint64_t off) {
  if (!sec || off >= n || !memchr(sec + off, 0, n - off))
    return NULL;
  return (const char *)sec + off;
}

/* One entry field of a DWARF 5 directory or file table. */
static int read_form(struct rd *r, const struct dbg_secs *d, uint64_t form, int dwarf64,
                     const char **str, uint64_t *num) {
  switch (form) {
  case DW_FORM_string:
    *str = rd_str(r);
    return 0;
  case DW_FORM_line_strp:
    *str = sec_str(d->line_str, d->line_str_n, rd_n(r, dwarf64 ? 8 : 4));
    return *str ? 0 : -1;
  case DW_FORM_strp:
    *str = sec_str(d->str, d->str_n, rd_n(r, dwarf64 ? 8 : 4));
    return *str ? 0 : -1;
  case DW_FORM_udata:
    *num = rd_uleb(r);
    return 0;
  case DW_FORM_data1:
    *num = rd_n(r, 1);
    return 0;
  case DW_FORM_data2:
    *num = rd_n(r, 2);
    return 0;
  case DW_FORM_data4:
    *num = rd_n(r, 4);
    return 0;
  case DW_FORM_data8:
    *num = rd_n(r, 8);
    return 0;
  case DW_FORM_data16:
    rd_n(r, 8);
    rd_n(r, 8);
    return 0;
  case DW_FORM_block: {
    uint64_t n = rd_uleb(r);
    if ((uint64_t)(r->end - r->p) < n)
      return -1;
    r->p += n;
    return 0;
  }
  default:
    return -1; /* (string index forms need .debug_str_offsets: not in line tables) */
  }
}

static uint32_t join_intern(struct dw_module *m, const char *dir, const char *name,
                            const char *comp_dir) {
  char buf[8192];
  if (name[0] == '/' || !dir || !dir[0])
    snprintf(buf, sizeof(buf), "%s", name);
  else if (dir[0] == '/' || !comp_dir)
    snprintf(buf, sizeof(buf), "%s/%s", dir, name);
  else
    snprintf(buf, sizeof(buf), "%s/%s/%s", comp_dir, dir, name);
  return intern(m, buf);
}

/* A directory or file table of DWARF 5: the paths (and directory indexes). */
static int v5_table(struct rd *r, const struct dbg_secs *d, int dwarf64, const char ***paths,
                    uint64_t **dirs, uint64_t *count) {
  uint8_t nfmt = (uint8_t)rd_n(r, 1);
  uint64_t fmt[32][2];
  if (nfmt > 32)
    return -1;
  for (int i = 0; i < nfmt; i++) {
    fmt[i][0] = rd_uleb(r);
    fmt[i][1] = rd_uleb(r);
  }
  *count = rd_uleb(r);
  if (r->err || *count > (uint64_t)(r->end - r->p))
    return -1;
  *paths = calloc(*count + 1, sizeof(**paths));
  *dirs = calloc(*count + 1, sizeof(**dirs));
  if (!*paths || !*dirs)
    return -1;
  for (uint64_t e = 0; e < *count; e++)
    for (int i = 0; i < nfmt; i++) {
      const char *str = NULL;
      uint64_t num = 0;
      if (read_form(r, d, fmt[i][1], dwarf64, &str, &num) || r->err)
        return -1;
      if (fmt[i][0] == DW_LNCT_path)
        (*paths)[e] = str;
      else if (fmt[i][0] == DW_LNCT_directory_index)
        (*dirs)[e] = num;
    }
  return 0;
}

/*
 * Read the line program at offset off: rows into m (each sequence a run for
 * sort_rows), and the unit's file table as interned names in *files.
 * Returns 0 or -1 (malformed).
 */
static int read_lines(struct dw_module *m, const struct dbg_secs *d, uint64_t off,
                      const char *comp_dir, uint32_t **files, size_t *n_files, size_t *cap_rows,
                      struct run **runs, size_t *n_runs, size_t *cap_runs) {
  *files = NULL;
  *n_files = 0;
  if (!d->line || off >= d->line_n)
    return -1;
  struct rd r = {d->line + off, d->line + d->line_n, 0};
  uint64_t len = rd_n(&r, 4);
  int dwarf64 = len == 0xffffffff;
  if (dwarf64)
    len = rd_n(&r, 8);
  if (r.err || len > (uint64_t)(r.end - r.p))
    return -1;
  r.end = r.p + len;
  unsigned version = (unsigned)rd_n(&r, 2);
  if (version < 2 || version > 5)
    return -1;
  if (version >= 5)
    rd_n(&r, 2); /* address size, segment selector size */
  uint64_t hlen = rd_n(&r, dwarf64 ? 8 : 4);
  if (r.err || hlen > (uint64_t)(r.end - r.p))
    return -1;
  const uint8_t *prog = r.p + hlen;
  unsigned min_inst = (unsigned)rd_n(&r, 1);
  if (version >= 4)
    rd_n(&r, 1); /* maximum operations per instruction (VLIW) */
  int default_stmt = (int)rd_n(&r, 1);
  (void)default_stmt;
  int line_base = (int8_t)rd_n(&r, 1);
  unsigned line_range = (unsigned)rd_n(&r, 1);
  unsigned opcode_base = (unsigned)rd_n(&r, 1);
  uint8_t std_len[256] = {0};
  for (unsigned i = 1; i < opcode_base; i++)
    std_len[i] = (uint8_t)rd_n(&r, 1);
  if (r.err || !line_range || !opcode_base)
    return -1;
  const char **dir_paths = NULL, **file_paths = NULL;
  uint64_t *dir_idx = NULL, *file_dir = NULL, n_dirs = 0, nf = 0, unused;
  int ret = -1;
  if (version >= 5) {
    if (v5_table(&r, d, dwarf64, &dir_paths, &file_dir, &n_dirs) ||
        v5_table(&r, d, dwarf64, &file_paths, &dir_idx, &nf))
      goto out;
    free(file_dir);
    file_dir = dir_idx;
    dir_idx = NULL;
  } else {
    /* Directories 1..n after the compilation directory; files 1..n. */
    size_t cap = 0, fcap = 0, fdcap = 0;
    if (UCOV_GROW(dir_paths, cap, n_dirs, 16))
      goto out;
    dir_paths[n_dirs++] = comp_dir;
    for (const char *s = rd_str(&r); !r.err && s[0]; s = rd_str(&r)) {
      if (UCOV_GROW(dir_paths, cap, n_dirs, 16))
        goto out;
      dir_paths[n_dirs++] = s;
    }
    if (UCOV_GROW(file_paths, fcap, nf, 16) || UCOV_GROW(file_dir, fdcap, nf, 16))
      goto out;
    file_paths[nf++] = NULL; /* file 0: none before DWARF 5 */
    for (const char *s = rd_str(&r); !r.err && s[0]; s = rd_str(&r)) {
      if (UCOV_GROW(file_paths, fcap, nf, 16) || UCOV_GROW(file_dir, fdcap, nf, 16))
        goto out;
      file_paths[nf] = s;
      file_dir[nf++] = rd_uleb(&r);
      rd_uleb(&r); /* mtime */
      rd_uleb(&r); /* length */
    }
    if (r.err)
      goto out;
  }
  (void)unused;
  *files = malloc((nf + 1) * sizeof(**files));
  if (!*files)
    goto out;
  for (uint64_t i = 0; i < nf; i++) {
    const char *dir = file_dir[i] < n_dirs ? dir_paths[file_dir[i]] : NULL;
    (*files)[i] = file_paths[i] ? join_intern(m, dir, file_paths[i], comp_dir) : NONE;
  }
  *n_files = nf;
  /* The program. */
  r.p = prog;
  uint64_t addr = 0, file = 1, line = 1, col = 0;
  size_t seq_start = m->n_rows;
  int skip_seq = 0, first = 1;
  while (r.p < r.end && !r.err) {
    unsigned op = (unsigned)rd_n(&r, 1);
    int emit = 0, end_seq = 0;
    if (op >= opcode_base) {
      unsigned adj = op - opcode_base;
      addr += (adj / line_range) * min_inst;
      line += (uint64_t)(int64_t)(line_base + (int)(adj % line_range));
      emit = 1;
    } else if (op == 0) {
      uint64_t n = rd_uleb(&r);
      if (r.err || n == 0 || n > (uint64_t)(r.end - r.p))
        break;
      const uint8_t *next = r.p + n;
      unsigned sub = (unsigned)rd_n(&r, 1);
      if (sub == DW_LNE_end_sequence) {
        emit = end_seq = 1;
      } else if (sub == DW_LNE_set_address) {
        addr = rd_n(&r, (int)(n - 1 > 8 ? 8 : n - 1));
      }
      r.p = next; /* define_file, set_discriminator, vendor ops: skipped */
    } else if (op == DW_LNS_copy) {
      emit = 1;
    } else if (op == DW_LNS_advance_pc) {
      addr += rd_uleb(&r) * min_inst;
    } else if (op == DW_LNS_advance_line) {
      line += (uint64_t)rd_sleb(&r);
    } else if (op == DW_LNS_set_file) {
      file = rd_uleb(&r);
    } else if (op == DW_LNS_set_column) {
      col = rd_uleb(&r);
    } else if (op == DW_LNS_const_add_pc) {
      addr += ((255 - opcode_base) / line_range) * min_inst;
    } else if (op == DW_LNS_fixed_advance_pc) {
      addr += rd_n(&r, 2);
    } else {
      for (unsigned i = 0; i < std_len[op]; i++) /* negate_stmt, basic_block, ... */
        rd_uleb(&r);
    }
    if (!emit)
      continue;
    if (first) {
      /* Code the linker dropped keeps its rows at address 0 (or -1): skipped. */
      skip_seq = addr == 0 || addr >= 0xffffffff00000000ull;
      first = 0;
    }
    if (!skip_seq) {
      if (reserve((void **)&m->rows, cap_rows, m->n_rows, sizeof(*m->rows)))
        goto out;
      uint32_t id = end_seq ? NONE : file < nf ? (*files)[file] : NONE;
      if (end_seq || id != NONE) /* (a row of no known file is left out) */
        m->rows[m->n_rows++] =
            (struct dw_row){addr, id, (uint32_t)(line > 0x3fffff ? 0x3fffff : line),
                            (uint32_t)(col > 1023 ? 1023 : col)};
    }
    if (end_seq) {
      if (!skip_seq && m->n_rows > seq_start) {
        if (reserve((void **)runs, cap_runs, *n_runs, sizeof(**runs)))
          goto out;
        (*runs)[(*n_runs)++] = (struct run){seq_start, m->n_rows - seq_start};
      }
      seq_start = m->n_rows;
      addr = 0;
      file = 1;
      line = 1;
      col = 0;
      first = 1;
    }
  }
  ret = r.err ? -1 : 0;
out:
  free(dir_paths);
  free(file_paths);
  free(dir_idx);
  free(file_dir);
  if (ret) {
    free(*files);
    *files = NULL;
    *n_files = 0;
  }
  return ret;
}

int dw_load(struct dw_module *m, const char *path, char *err, size_t errlen) {
  int ret = dw_load_dwarf(m, path, err, errlen);
  if (ret == 0) {
    char ignored[256];
    m->has_syms = elfsym_load(&m->syms, path, ignored, sizeof(ignored)) == 0;
  }
  return ret;
}

static int dw_load_dwarf(struct dw_module *m, const char *path, char *err, size_t errlen) {
  memset(m, 0, sizeof(*m));
  struct str_index ix = {0};
  m->index = &ix;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return -1;
  }
  elf_version(EV_CURRENT);
  Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);
  if (!dw) {
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    int is_elf = elf && elf_kind(elf) == ELF_K_ELF;
    if (elf)
      elf_end(elf);
    close(fd);
    if (!is_elf) {
      snprintf(err, errlen, "%s: not an ELF file", path);
      return -1;
    }
    m->index = NULL;
    return 0; /* ELF without DWARF: no lines */
  }
  size_t cap_rows = 0, skeletons = 0, n_runs = 0, cap_runs = 0, bad_lines = 0;
  struct run *runs = NULL;
  struct dbg_secs secs = {0};
  find_sections(dwarf_getelf(dw), &secs);
  struct fn_vec top = {0};
  struct cu_ctx c = {m, NULL, 0, {0}};
  Dwarf_CU *cu = NULL;
  Dwarf_Die cudie, subdie;
  uint8_t unit_type;
  Dwarf_Half version;
  int ret = 0;
  while (!ret && dwarf_get_units(dw, cu, &cu, &version, &unit_type, &cudie, &subdie) == 0) {
    Dwarf_Die skel = cudie;
    if (unit_type == DW_UT_skeleton) {
      /* Split DWARF: the functions live in .dwo files. */
      if (dwarf_tag(&subdie) != DW_TAG_compile_unit) {
        skeletons++;
        continue;
      }
      cudie = subdie;
    } else if (unit_type != DW_UT_compile && unit_type != DW_UT_partial) {
      continue;
    }
    m->has_dwarf = 1;
    /* The line program of the unit (a split unit's is its skeleton's). */
    Dwarf_Die *linedie = unit_type == DW_UT_skeleton ? &skel : &cudie;
    Dwarf_Attribute a;
    Dwarf_Word stmt;
    const char *comp_dir = dwarf_formstring(dwarf_attr(linedie, DW_AT_comp_dir, &a));
    free(c.files);
    c.files = NULL;
    c.n_files = 0;
    if (dwarf_formudata(dwarf_attr(linedie, DW_AT_stmt_list, &a), &stmt) == 0 &&
        read_lines(m, &secs, stmt, comp_dir, &c.files, &c.n_files, &cap_rows, &runs, &n_runs,
                   &cap_runs))
      bad_lines++;
    if (!ret && collect(&c, &cudie, &top, 0))
      ret = -1;
  }
  if (ret) {
    snprintf(err, errlen, "%s: out of memory reading DWARF", path);
  } else if (skeletons && !m->has_dwarf) {
    snprintf(err, errlen,
             "%s: split DWARF (-gsplit-dwarf) whose .dwo files are not found: build with -g "
             "without -gsplit-dwarf, or keep the .dwo files beside the objects",
             path);
    ret = -1;
  }
  /* All top-level ranges first, sorted; their children follow. */
  if (!ret) {
    if (top.n > 1)
      qsort(top.v, top.n, sizeof(*top.v), cmp_fn);
    size_t shift = top.n;
    m->fns = malloc((top.n + c.all.n + 1) * sizeof(*m->fns));
    if (!m->fns) {
      ret = -1;
    } else {
      if (top.n) /* (memcpy must not see a NULL array, even empty) */
        memcpy(m->fns, top.v, top.n * sizeof(*m->fns));
      if (c.all.n)
        memcpy(m->fns + top.n, c.all.v, c.all.n * sizeof(*m->fns));
      m->n_top = top.n;
      m->n_fns = top.n + c.all.n;
      for (size_t i = 0; i < m->n_fns; i++)
        m->fns[i].first_child += (uint32_t)shift;
    }
    if (sort_rows(m, runs, n_runs))
      ret = -1;
  }
  if (!ret && bad_lines)
    fprintf(stderr, "ucov: %s: %zu line tables not read (malformed or of an unknown form)\n", path,
            bad_lines);
  free(top.v);
  free(c.all.v);
  free(c.files);
  free(runs);
  free(ix.slots);
  m->index = NULL;
  dwarf_end(dw);
  close(fd);
  if (ret)
    dw_free(m);
  return ret;
}

void dw_free(struct dw_module *m) {
  if (m->has_syms)
    elfsym_free(&m->syms);
  for (size_t i = 0; i < m->n_strings; i++)
    free(m->strings[i]);
  free(m->strings);
  free(m->rows);
  free(m->fns);
  memset(m, 0, sizeof(*m));
}

/* The last range in fns[lo, hi) (sorted by low) that contains addr, or NULL. */
static const struct dw_fn *find_range(const struct dw_fn *fns, size_t n, uint64_t addr) {
  size_t lo = 0, hi = n;
  while (lo < hi) { /* first range with low > addr */
    size_t mid = (lo + hi) / 2;
    if (fns[mid].low <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  /* Ranges may overlap (a function's pieces): look back a little. */
  for (size_t i = lo; i > 0 && lo - i < 16; i--)
    if (fns[i - 1].low <= addr && addr < fns[i - 1].high)
      return &fns[i - 1];
  return NULL;
}

int dw_lookup(const struct dw_module *m, uint64_t addr, struct dw_frame *frames, int max) {
  if (max <= 0)
    return 0;
  /* The line row: the last one at or before addr, unless it ends a sequence. */
  const char *file = NULL;
  uint32_t line = 0, col = 0;
  size_t lo = 0, hi = m->n_rows;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (m->rows[mid].addr <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo > 0 && m->rows[lo - 1].file != NONE) {
    const struct dw_row *r = &m->rows[lo - 1];
    file = m->strings[r->file];
    line = r->line;
    col = r->col;
  }
  /* The function chain: outermost subprogram down to the innermost inline. */
  const struct dw_fn *chain[64];
  int depth = 0;
  const struct dw_fn *f = find_range(m->fns, m->n_top, addr);
  while (f && depth < 64) {
    chain[depth++] = f;
    f = f->n_children ? find_range(m->fns + f->first_child, f->n_children, addr) : NULL;
  }
  /* Code DWARF does not describe (compiler-made constructors): the symbol table's name. */
  const struct elfsym *sym = !depth && m->has_syms ? elfsym_lookup(&m->syms, addr) : NULL;
  if (!depth && !file && !sym)
    return 0;
  /* Innermost first: its location is the line row's; each outer frame's is
   * where the frame inside it was inlined. */
  int n = 0;
  const struct dw_fn *inner = depth ? chain[depth - 1] : NULL;
  frames[n++] = (struct dw_frame){
      .function = inner && inner->name != NONE ? m->strings[inner->name]
                  : sym                        ? sym->name
                                               : NULL,
      .file = file,
      .line = line,
      .col = col,
      .fn_file = inner && inner->decl_file != NONE ? m->strings[inner->decl_file] : NULL,
      .fn_line = inner ? inner->decl_line : 0};
  for (int d = depth - 1; d > 0 && n < max; d--) {
    const struct dw_fn *in = chain[d], *out = chain[d - 1];
    if (in->call_file == NONE && !in->call_line)
      break; /* a nested subprogram, not an inline */
    frames[n++] =
        (struct dw_frame){.function = out->name != NONE ? m->strings[out->name] : NULL,
                          .file = in->call_file != NONE ? m->strings[in->call_file] : NULL,
                          .line = in->call_line,
                          .col = in->call_col,
                          .fn_file = out->decl_file != NONE ? m->strings[out->decl_file] : NULL,
                          .fn_line = out->decl_line};
  }
  return n;
}

/* ---- call sites of the coverage hooks ---- */

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
  /* x86-64, and i386 (a kernel's: direct calls only, no PLT). Both call rel32 (e8). */
  int is32 = eh.e_machine == EM_386;
  if (eh.e_machine != EM_X86_64 && !is32) {
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
  /* PLT entries (16 bytes each) whose jmp *slot(%rip) reads one of those slots. */
  size_t shstrndx;
  elf_getshdrstrndx(elf, &shstrndx);
  for (scn = NULL; n_got && !is32 && (scn = elf_nextscn(elf, scn));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh))
      continue;
    const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
    if (!name || strncmp(name, ".plt", 4) != 0 || sh.sh_type != SHT_PROGBITS)
      continue;
    Elf_Data *d = elf_getdata(scn, NULL);
    const uint8_t *b = d ? d->d_buf : NULL;
    for (size_t i = 0; b && i + 6 <= d->d_size; i++) {
      if (b[i] != 0xff || b[i + 1] != 0x25)
        continue;
      int32_t rel;
      memcpy(&rel, b + i + 2, 4);
      uint64_t slot = sh.sh_addr + i + 6 + (uint64_t)(int64_t)rel;
      for (int g = 0; g < n_got; g++)
        if (slot == got[g] && n_targets < 16)
          targets[n_targets++] = sh.sh_addr + (i & ~(size_t)15);
    }
  }
  size_t n = 0, cap = 0;
  uint64_t *out = NULL;
  for (scn = NULL; n_targets && (scn = elf_nextscn(elf, scn));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR))
      continue;
    Elf_Data *d = elf_getdata(scn, NULL);
    const uint8_t *b = d ? d->d_buf : NULL;
    for (size_t i = 0; b && i + 5 <= d->d_size; i++) {
      if (b[i] != 0xe8)
        continue;
      int32_t rel;
      memcpy(&rel, b + i + 1, 4);
      uint64_t target = sh.sh_addr + i + 5 + (uint64_t)(int64_t)rel;
      if (is32)
        target &= 0xffffffffu;
      for (int t = 0; t < n_targets; t++) {
        if (target != targets[t])
          continue;
        if (reserve((void **)&out, &cap, n, sizeof(*out))) {
          free(out);
          elf_file_close(elf, fd);
          snprintf(err, errlen, "out of memory");
          return -1;
        }
        out[n++] = sh.sh_addr + i;
        break;
      }
    }
  }
  elf_file_close(elf, fd);
  if (!n_targets) {
    snprintf(err, errlen,
             "%s: no __sanitizer_cov_trace_pc or _guard: not built with ucov cc --trace", path);
    free(out);
    return -2;
  }
  if (n > 1)
    qsort(out, n, sizeof(*out), cmp_u64);
  *sites = out;
  return (long)n;
}
