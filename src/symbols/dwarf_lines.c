/* SPDX-License-Identifier: MIT */
/*
 * The symbolizer's line tables: ucov's own reader of the DWARF line program
 * (.debug_line, versions 2 to 5; libdw's own line tables cost more memory than
 * everything else together), rows into one array sorted by address.
 */
#define _GNU_SOURCE
#include "dwarf_int.h"
#include "base/util.h"

#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_row(const void *a, const void *b) {
  const struct dw_row *x = a, *y = b;
  if (x->addr != y->addr)
    return x->addr < y->addr ? -1 : 1;
  /* At one address an end of sequence comes first (the next sequence starts
   * there); rows at one address keep their order (qsort here is glibc's
   * merge sort, stable; and it runs only when the units' tables interleave). */
  return (x->file != DW_NONE) - (y->file != DW_NONE);
}

static const struct dw_row *run_first;

static int cmp_run(const void *a, const void *b) {
  const struct dw_run *x = a, *y = b;
  return cmp_row(&run_first[x->start], &run_first[y->start]);
}

/*
 * Sort the whole table. Units' tables are sorted each and usually cover
 * disjoint addresses, only not in address order: then putting the units in
 * order is enough (one copy); otherwise a full sort.
 */
int dw_sort_rows(struct dw_module *m, struct dw_run *runs, size_t n_runs) {
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

void dw_find_sections(Elf *elf, struct dw_secs *d) {
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
static int read_form(struct rd *r, const struct dw_secs *d, uint64_t form, int dwarf64,
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
  return dw_intern(m, buf);
}

/* A directory or file table of DWARF 5: the paths (and directory indexes). */
static int v5_table(struct rd *r, const struct dw_secs *d, int dwarf64, const char ***paths,
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

/* A line program's header as the program needs it. */
struct lp_header {
  unsigned version, min_inst, line_range, opcode_base;
  int dwarf64, line_base;
  uint8_t std_len[256];
  const uint8_t *prog; /* the opcodes, up to r.end */
};

/* The header up to its directory and file tables; r->end set to the unit's
 * end. 0 or -1. */
static int lp_header(struct rd *r, struct lp_header *h) {
  memset(h, 0, sizeof(*h));
  uint64_t len = rd_n(r, 4);
  h->dwarf64 = len == 0xffffffff;
  if (h->dwarf64)
    len = rd_n(r, 8);
  if (r->err || len > (uint64_t)(r->end - r->p))
    return -1;
  r->end = r->p + len;
  h->version = (unsigned)rd_n(r, 2);
  if (h->version < 2 || h->version > 5)
    return -1;
  if (h->version >= 5)
    rd_n(r, 2); /* address size, segment selector size */
  uint64_t hlen = rd_n(r, h->dwarf64 ? 8 : 4);
  if (r->err || hlen > (uint64_t)(r->end - r->p))
    return -1;
  h->prog = r->p + hlen;
  h->min_inst = (unsigned)rd_n(r, 1);
  if (h->version >= 4)
    rd_n(r, 1); /* maximum operations per instruction (VLIW) */
  rd_n(r, 1);   /* default_is_stmt */
  h->line_base = (int8_t)rd_n(r, 1);
  h->line_range = (unsigned)rd_n(r, 1);
  h->opcode_base = (unsigned)rd_n(r, 1);
  for (unsigned i = 1; i < h->opcode_base; i++)
    h->std_len[i] = (uint8_t)rd_n(r, 1);
  return r->err || !h->line_range || !h->opcode_base ? -1 : 0;
}

/* Before DWARF 5: directories 1..n after the compilation directory; files
 * 1..n (file 0: none). 0 or -1. */
static int v4_tables(struct rd *r, const char *comp_dir, const char ***dir_paths, uint64_t *n_dirs,
                     const char ***file_paths, uint64_t **file_dir, uint64_t *nf) {
  size_t cap = 0, fcap = 0, fdcap = 0;
  if (UCOV_GROW(*dir_paths, cap, *n_dirs, 16))
    return -1;
  (*dir_paths)[(*n_dirs)++] = comp_dir;
  for (const char *s = rd_str(r); !r->err && s[0]; s = rd_str(r)) {
    if (UCOV_GROW(*dir_paths, cap, *n_dirs, 16))
      return -1;
    (*dir_paths)[(*n_dirs)++] = s;
  }
  if (UCOV_GROW(*file_paths, fcap, *nf, 16) || UCOV_GROW(*file_dir, fdcap, *nf, 16))
    return -1;
  (*file_paths)[(*nf)++] = NULL;
  for (const char *s = rd_str(r); !r->err && s[0]; s = rd_str(r)) {
    if (UCOV_GROW(*file_paths, fcap, *nf, 16) || UCOV_GROW(*file_dir, fdcap, *nf, 16))
      return -1;
    (*file_paths)[*nf] = s;
    (*file_dir)[(*nf)++] = rd_uleb(r);
    rd_uleb(r); /* mtime */
    rd_uleb(r); /* length */
  }
  return r->err ? -1 : 0;
}

/* The unit's file table, as interned paths into *files (nf of them). 0 or -1. */
static int lp_files(struct dw_module *m, struct rd *r, const struct dw_secs *d,
                    const struct lp_header *h, const char *comp_dir, uint32_t **files,
                    uint64_t *nf) {
  const char **dir_paths = NULL, **file_paths = NULL;
  uint64_t *dir_idx = NULL, *file_dir = NULL, n_dirs = 0;
  int ret = -1;
  *nf = 0;
  if (h->version >= 5) {
    if (v5_table(r, d, h->dwarf64, &dir_paths, &file_dir, &n_dirs) ||
        v5_table(r, d, h->dwarf64, &file_paths, &dir_idx, nf))
      goto out;
    free(file_dir);
    file_dir = dir_idx;
    dir_idx = NULL;
  } else if (v4_tables(r, comp_dir, &dir_paths, &n_dirs, &file_paths, &file_dir, nf)) {
    goto out;
  }
  if (!(*files = malloc((*nf + 1) * sizeof(**files))))
    goto out;
  for (uint64_t i = 0; i < *nf; i++) {
    const char *dir = file_dir[i] < n_dirs ? dir_paths[file_dir[i]] : NULL;
    (*files)[i] = file_paths[i] ? join_intern(m, dir, file_paths[i], comp_dir) : DW_NONE;
  }
  ret = 0;
out:
  free(dir_paths);
  free(file_paths);
  free(dir_idx);
  free(file_dir);
  return ret;
}

/* The line-number state machine's registers. */
struct lp_state {
  uint64_t addr, file, line, col;
};

/* One opcode at r: the registers moved; 1 if it emits a row (2: and ends
 * its sequence), 0 if not, -1 if the program is malformed. */
static int lp_step(struct rd *r, const struct lp_header *h, struct lp_state *st) {
  unsigned op = (unsigned)rd_n(r, 1);
  if (op >= h->opcode_base) {
    unsigned adj = op - h->opcode_base;
    st->addr += (adj / h->line_range) * h->min_inst;
    st->line += (uint64_t)(int64_t)(h->line_base + (int)(adj % h->line_range));
    return 1;
  }
  switch (op) {
  case 0: {
    uint64_t n = rd_uleb(r);
    if (r->err || n == 0 || n > (uint64_t)(r->end - r->p))
      return -1;
    const uint8_t *next = r->p + n;
    unsigned sub = (unsigned)rd_n(r, 1);
    if (sub == DW_LNE_set_address)
      st->addr = rd_n(r, (int)(n - 1 > 8 ? 8 : n - 1));
    r->p = next; /* define_file, set_discriminator, vendor ops: skipped */
    return sub == DW_LNE_end_sequence ? 2 : 0;
  }
  case DW_LNS_copy:
    return 1;
  case DW_LNS_advance_pc:
    st->addr += rd_uleb(r) * h->min_inst;
    return 0;
  case DW_LNS_advance_line:
    st->line += (uint64_t)rd_sleb(r);
    return 0;
  case DW_LNS_set_file:
    st->file = rd_uleb(r);
    return 0;
  case DW_LNS_set_column:
    st->col = rd_uleb(r);
    return 0;
  case DW_LNS_const_add_pc:
    st->addr += ((255 - h->opcode_base) / h->line_range) * h->min_inst;
    return 0;
  case DW_LNS_fixed_advance_pc:
    st->addr += rd_n(r, 2);
    return 0;
  default:
    for (unsigned i = 0; i < h->std_len[op]; i++) /* negate_stmt, basic_block, ... */
      rd_uleb(r);
    return 0;
  }
}

int dw_read_lines(struct dw_module *m, const struct dw_secs *d, uint64_t off, const char *comp_dir,
                  uint32_t **files, size_t *n_files, size_t *cap_rows, struct dw_run **runs,
                  size_t *n_runs, size_t *cap_runs) {
  *files = NULL;
  *n_files = 0;
  if (!d->line || off >= d->line_n)
    return -1;
  struct rd r = {d->line + off, d->line + d->line_n, 0};
  struct lp_header h;
  uint64_t nf;
  if (lp_header(&r, &h) || lp_files(m, &r, d, &h, comp_dir, files, &nf))
    return -1;
  *n_files = nf;
  r.p = h.prog;
  struct lp_state st = {0, 1, 1, 0};
  size_t seq_start = m->n_rows;
  int skip_seq = 0, first = 1, ret = -1;
  while (r.p < r.end && !r.err) {
    int emit = lp_step(&r, &h, &st), end_seq = emit == 2;
    if (emit < 0)
      break;
    if (!emit)
      continue;
    if (first) {
      /* Code the linker dropped keeps its rows at address 0 (or -1): skipped. */
      skip_seq = st.addr == 0 || st.addr >= 0xffffffff00000000ull;
      first = 0;
    }
    if (!skip_seq) {
      /* Rows at (or past) the end of their sequence cover no byte: sorted
       * after the end marker they would give the code that follows, which
       * may have no line information, this unit's last line. */
      while (end_seq && m->n_rows > seq_start && m->rows[m->n_rows - 1].addr >= st.addr)
        m->n_rows--;
      if (dw_reserve((void **)&m->rows, cap_rows, m->n_rows, sizeof(*m->rows)))
        goto out;
      uint32_t id = end_seq ? DW_NONE : st.file < nf ? (*files)[st.file] : DW_NONE;
      if (end_seq || id != DW_NONE) /* (a row of no known file is left out) */
        m->rows[m->n_rows++] =
            (struct dw_row){st.addr, id, (uint32_t)(st.line > 0x3fffff ? 0x3fffff : st.line),
                            (uint32_t)(st.col > 1023 ? 1023 : st.col)};
    }
    if (end_seq) {
      if (!skip_seq && m->n_rows > seq_start) {
        if (dw_reserve((void **)runs, cap_runs, *n_runs, sizeof(**runs)))
          goto out;
        (*runs)[(*n_runs)++] = (struct dw_run){seq_start, m->n_rows - seq_start};
      }
      seq_start = m->n_rows;
      st = (struct lp_state){0, 1, 1, 0};
      first = 1;
    }
  }
  ret = r.err ? -1 : 0;
out:
  if (ret) {
    free(*files);
    *files = NULL;
    *n_files = 0;
  }
  return ret;
}
