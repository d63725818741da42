/* SPDX-License-Identifier: MIT */
/* The symbolizer's DWARF side: loading a module, its function and inline tree, lookups
 * (dwarf.h); the line program is dwarf_lines.c's. */
#define _GNU_SOURCE
#include "dwarf.h"
#include "dwarf_int.h"
#include "elfsym.h"
#include "base/util.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- strings, deduplicated through an open-addressing index ---- */

uint32_t dw_intern(struct dw_module *m, const char *s) {
  if (!s)
    return DW_NONE;
  struct str_index *ix = m->index;
  if (2 * (m->n_strings + 1) > ix->n_slots) {
    size_t n = ix->n_slots ? ix->n_slots * 2 : 1024;
    uint32_t *slots = calloc(n, sizeof(*slots));
    if (!slots)
      return DW_NONE;
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
    return DW_NONE;
  m->strings[m->n_strings] = strdup(s);
  ix->slots[k] = (uint32_t)m->n_strings + 1;
  return (uint32_t)m->n_strings++;
}

/* Growable arrays start at 1024 elements here. */
int dw_reserve(void **arr, size_t *cap, size_t n, size_t elem) {
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
  return c->files && idx < c->n_files ? c->files[idx] : DW_NONE;
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
      if (dw_reserve((void **)&c->all.v, &c->all.cap, c->all.n, sizeof(struct dw_fn)))
        return -1;
      c->all.v[c->all.n++] = kids.v[i];
    }
  }
  struct dw_fn node = {.name = dw_intern(c->m, fn_name(die)),
                       .call_file = DW_NONE,
                       .decl_file = DW_NONE,
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
    if (dw_reserve((void **)&out->v, &out->cap, out->n, sizeof(struct dw_fn)))
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

/* The functions into m: the top-level ranges first, sorted, then their
 * children (each child index moved past them). 0 or -1. */
static int place_functions(struct dw_module *m, struct fn_vec *top, const struct fn_vec *all) {
  if (top->n > 1)
    qsort(top->v, top->n, sizeof(*top->v), cmp_fn);
  size_t shift = top->n;
  m->fns = malloc((top->n + all->n + 1) * sizeof(*m->fns));
  if (!m->fns)
    return -1;
  if (top->n) /* (memcpy must not see a NULL array, even empty) */
    memcpy(m->fns, top->v, top->n * sizeof(*m->fns));
  if (all->n)
    memcpy(m->fns + top->n, all->v, all->n * sizeof(*m->fns));
  m->n_top = top->n;
  m->n_fns = top->n + all->n;
  for (size_t i = 0; i < m->n_fns; i++)
    m->fns[i].first_child += (uint32_t)shift;
  return 0;
}

/* The ELF file at path opened for libdw: 0 with *fd and *dw; 1 if it is
 * ELF without DWARF (closed); -1 if it is no ELF file (said). */
static int open_dwarf(const char *path, int *fd, Dwarf **dw) {
  *fd = open(path, O_RDONLY | O_CLOEXEC);
  if (*fd < 0) {
    diag_at(DIAG_ERROR, path, 0, "%s", strerror(errno));
    return -1;
  }
  elf_version(EV_CURRENT);
  if ((*dw = dwarf_begin(*fd, DWARF_C_READ)))
    return 0;
  Elf *elf = elf_begin(*fd, ELF_C_READ, NULL);
  int is_elf = elf && elf_kind(elf) == ELF_K_ELF;
  if (elf)
    elf_end(elf);
  close(*fd);
  if (is_elf)
    return 1;
  diag_at(DIAG_ERROR, path, 0, "not an ELF file");
  return -1;
}

static int dw_load_dwarf(struct dw_module *m, const char *path);

int dw_load(struct dw_module *m, const char *path) {
  int ret = dw_load_dwarf(m, path);
  if (ret == 0) {
    struct diag_context quiet = {.quiet = 1}; /* (symbols are extra: DWARF was read) */
    diag_context_begin(&quiet);
    m->has_syms = elfsym_load(&m->syms, path) == 0;
    diag_context_end(&quiet);
  }
  return ret;
}

static int dw_load_dwarf(struct dw_module *m, const char *path) {
  memset(m, 0, sizeof(*m));
  struct str_index ix = {0};
  m->index = &ix;
  int fd;
  Dwarf *dw;
  int opened = open_dwarf(path, &fd, &dw);
  if (opened) {
    m->index = NULL;
    return opened < 0 ? -1 : 0; /* (an ELF file without DWARF: no lines) */
  }
  size_t cap_rows = 0, skeletons = 0, n_runs = 0, cap_runs = 0, bad_lines = 0;
  struct dw_run *runs = NULL;
  struct dw_secs secs = {0};
  dw_find_sections(dwarf_getelf(dw), &secs);
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
        dw_read_lines(m, &secs, stmt, comp_dir, &c.files, &c.n_files, &cap_rows, &runs, &n_runs,
                      &cap_runs))
      bad_lines++;
    if (!ret && collect(&c, &cudie, &top, 0))
      ret = -1;
  }
  if (ret) {
    diag_at(DIAG_ERROR, path, 0, "out of memory reading DWARF");
  } else if (skeletons && !m->has_dwarf) {
    diag_at(DIAG_ERROR, path, 0,
            "split DWARF (-gsplit-dwarf) whose .dwo files are not found: build with -g "
            "without -gsplit-dwarf, or keep the .dwo files beside the objects");
    ret = -1;
  }
  /* All top-level ranges first, sorted; their children follow. */
  if (!ret && (place_functions(m, &top, &c.all) || dw_sort_rows(m, runs, n_runs)))
    ret = -1;
  if (!ret && bad_lines)
    diag_at(DIAG_ERROR, path, 0, "%zu line tables not read (malformed or of an unknown form)",
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
  if (lo > 0 && m->rows[lo - 1].file != DW_NONE) {
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
      .function = inner && inner->name != DW_NONE ? m->strings[inner->name]
                  : sym                           ? sym->name
                                                  : NULL,
      .file = file,
      .line = line,
      .col = col,
      .fn_file = inner && inner->decl_file != DW_NONE ? m->strings[inner->decl_file] : NULL,
      .fn_line = inner ? inner->decl_line : 0};
  for (int d = depth - 1; d > 0 && n < max; d--) {
    const struct dw_fn *in = chain[d], *out = chain[d - 1];
    if (in->call_file == DW_NONE && !in->call_line)
      break; /* a nested subprogram, not an inline */
    frames[n++] =
        (struct dw_frame){.function = out->name != DW_NONE ? m->strings[out->name] : NULL,
                          .file = in->call_file != DW_NONE ? m->strings[in->call_file] : NULL,
                          .line = in->call_line,
                          .col = in->call_col,
                          .fn_file = out->decl_file != DW_NONE ? m->strings[out->decl_file] : NULL,
                          .fn_line = out->decl_line};
  }
  return n;
}
