/* SPDX-License-Identifier: MIT */
/*
 * The options ucov report, merge and push share, and the table of report
 * formats (report_opts.h).
 */
#define _GNU_SOURCE
#include "report_opts.h"

#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "diffcov/diff.h"
#include "readers/readers.h"

/* path made absolute and lexically normal (cov_absolute), split into its
 * n components in place: malloc'd in one block with its text, or NULL. */
static char **components(const char *path, size_t *n) {
  char *abs = cov_absolute(path);
  size_t len = abs ? strlen(abs) + 1 : 0;
  char **list = abs ? malloc(len * sizeof(char *) + len) : NULL;
  if (list) {
    char *text = memcpy(list + len, abs, len);
    *n = 0;
    for (char *save = NULL, *c = strtok_r(text, "/", &save); c; c = strtok_r(NULL, "/", &save))
      list[(*n)++] = c;
  }
  free(abs);
  return list;
}

char *report_html_url(const struct outputs *out) {
  if (out->html_url)
    return strdup(out->html_url);
  const char *md = out->path[FMT_MARKDOWN], *html = out->path[FMT_HTML];
  char *page = NULL;
  if (!md || ((!html || strcmp(html, "-") == 0) && !out->html_dir))
    return NULL;
  if (html && strcmp(html, "-"))
    page = strdup(html);
  else if (asprintf(&page, "%s/index.html", out->html_dir) < 0)
    page = NULL;
  if (!page || strcmp(md, "-") == 0)
    return page;
  /* the page's path from the Markdown file's directory */
  size_t nm, np;
  char **m = components(md, &nm), **p = components(page, &np), *rel = NULL;
  if (m && p && nm && np) {
    size_t common = 0, len = 1;
    while (common < nm - 1 && common < np - 1 && strcmp(m[common], p[common]) == 0)
      common++;
    for (size_t k = common; k < np; k++)
      len += strlen(p[k]) + 1;
    len += 3 * (nm - 1 - common);
    if ((rel = malloc(len))) {
      char *e = rel;
      for (size_t k = common; k < nm - 1; k++)
        e += sprintf(e, "../");
      for (size_t k = common; k < np; k++)
        e += sprintf(e, "%s%s", p[k], k + 1 < np ? "/" : "");
    }
  }
  free(m);
  free(p);
  free(page);
  return rel;
}

int outputs_any(const struct outputs *out) {
  for (int k = 0; k < REPORT_FORMATS; k++)
    if (out->path[k])
      return 1;
  return out->cobertura_split != NULL || out->html_dir != NULL;
}

int report_write_one(const char *path, const struct report_format *fmt,
                     const struct report_ctx *c) {
  FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
  if (!f) {
    diag_at(DIAG_ERROR, path, 0, "%s", strerror(errno));
    return -1;
  }
  int err = fmt->write(c, f);
  if (f != stdout && fclose(f))
    err = -1;
  else if (f == stdout && fflush(f))
    err = -1;
  if (err)
    diag_at(DIAG_ERROR, path, 0, "write error");
  return err;
}

int grow_list(void **list, int n) {
  void *g = realloc(*list, (size_t)(n + 1) * sizeof(char *));
  if (!g) {
    UCOV_ERR("out of memory\n");
    return 0;
  }
  *list = g;
  return 1;
}

/*
 * The options of report, merge and push, one row each: most store their
 * argument (or a flag, or one more list entry) at a place in struct outputs
 * or struct input_opts; the rest are parsed by a function of their own. A
 * report-only row is refused by ucov merge, which writes one lcov file.
 */
enum act { SET_OUT, SET_IN, ADD_OUT, ADD_IN, FLAG_OUT, CALL };
struct parse {
  struct cov_model *m;
  struct input_opts *in;
  struct outputs *out;
  const char **merge_out;
  int *quiet;
  const char *usage;
};
struct opt_row {
  const char *name;
  int has_arg;
  enum act act;
  size_t at, count_at; /* where in outputs or input_opts (count_at: a list's count) */
  int value;           /* FLAG_OUT's */
  int report_only;
  int (*call)(struct parse *p, const char *arg, int row);
};

static int parse_prefix_map(struct parse *p, const char *arg, int row) {
  (void)row;
  if (cov_add_prefix_map(p->m, arg) == 0)
    return 0;
  UCOV_ERR("--prefix-map wants OLD=NEW, not '%s'\n", arg);
  return -1;
}

static int parse_include(struct parse *p, const char *arg, int row) {
  (void)row;
  cov_add_include(p->m, arg);
  return 0;
}

static int parse_exclude(struct parse *p, const char *arg, int row) {
  (void)row;
  cov_add_exclude(p->m, arg);
  return 0;
}

static int parse_lcov_format(struct parse *p, const char *arg, int row) {
  (void)row;
  if (strcmp(arg, "1") && strcmp(arg, "2")) {
    UCOV_ERR("--lcov-format is 1 or 2, not '%s'\n", arg);
    return -1;
  }
  p->out->lcov_format = arg[0] - '0';
  return 0;
}

static int parse_fail_under(struct parse *p, const char *arg, int row);

/* gcovr's "/RE/", or RE; several: one alternation */
static int parse_exclude_function(struct parse *p, const char *arg, int row) {
  (void)row;
  size_t n = strlen(arg);
  int slashed = n >= 2 && arg[0] == '/' && arg[n - 1] == '/';
  char *joined = NULL, *prev = p->out->func_joined;
  if (asprintf(&joined, "%s%s(%.*s)", prev ? prev : "", prev ? "|" : "", (int)(slashed ? n - 2 : n),
               arg + slashed) < 0) {
    UCOV_ERR("out of memory\n");
    return -1;
  }
  free(prev);
  p->out->excl.function_pattern = p->out->func_joined = joined;
  return 0;
}

static int parse_line_rule(struct parse *p, const char *arg, int row) {
  (void)row;
  if (strcmp(arg, "lcov") && strcmp(arg, "gcovr")) {
    UCOV_ERR("--line-rule is lcov or gcovr, not '%s'\n", arg);
    return -1;
  }
  p->out->excl.gcovr_lines = !strcmp(arg, "gcovr");
  return 0;
}

static int parse_output(struct parse *p, const char *arg, int row) {
  (void)row;
  if (!p->merge_out) {
    UCOV_ERR("--output is an option of ucov merge\n");
    cli_try_help();
    return -1;
  }
  *p->merge_out = arg;
  return 0;
}

static int parse_quiet(struct parse *p, const char *arg, int row) {
  (void)arg, (void)row;
  *p->quiet = 1;
  return 0;
}

static int parse_help(struct parse *p, const char *arg, int row) {
  (void)arg, (void)row;
  fputs(p->usage, stdout);
  exit(UCOV_EXIT_OK);
}

#define OUT(f) offsetof(struct outputs, f)
#define IN(f) offsetof(struct input_opts, f)
static const struct opt_row rows[] = {
    {"title", 1, SET_OUT, OUT(title), 0, 0, 1, NULL},
    {"baseline", 1, ADD_OUT, OUT(baselines), OUT(n_baselines), 0, 1, NULL},
    {"binary", 1, ADD_IN, IN(binaries), IN(n_binaries), 0, 0, NULL},
    {"modules", 1, SET_IN, IN(modules), 0, 0, 0, NULL},
    {"prefix-map", 1, CALL, 0, 0, 0, 0, parse_prefix_map},
    {"include", 1, CALL, 0, 0, 0, 0, parse_include},
    {"exclude", 1, CALL, 0, 0, 0, 0, parse_exclude},
    {"gcov-tool", 1, SET_IN, IN(gcov_tool), 0, 0, 0, NULL},
    {"lcov-format", 1, CALL, 0, 0, 0, 0, parse_lcov_format},
    {"summary", 0, FLAG_OUT, OUT(summary), 0, 1, 0, NULL},
    {"fail-under-line", 1, CALL, 0, 0, 0, 0, parse_fail_under},
    {"fail-under-function", 1, CALL, 0, 0, 1, 0, parse_fail_under},
    {"fail-under-branch", 1, CALL, 0, 0, 2, 0, parse_fail_under},
    {"fail-under-patch", 1, CALL, 0, 0, 3, 0, parse_fail_under},
    {"no-markers", 0, FLAG_OUT, OUT(excl.markers), 0, 0, 0, NULL},
    {"no-demangle", 0, FLAG_OUT, OUT(no_demangle), 0, 1, 0, NULL},
    {"exclude-lines-by-pattern", 1, SET_OUT, OUT(excl.line_pattern), 0, 0, 0, NULL},
    {"exclude-branches-by-pattern", 1, SET_OUT, OUT(excl.branch_pattern), 0, 0, 0, NULL},
    {"exclude-unreachable-branches", 0, FLAG_OUT, OUT(excl.unreachable_branches), 0, 1, 0, NULL},
    {"exclude-throw-branches", 0, FLAG_OUT, OUT(excl.throw_branches), 0, 1, 0, NULL},
    {"exclude-function", 1, CALL, 0, 0, 0, 0, parse_exclude_function},
    {"exclude-function-lines", 0, FLAG_OUT, OUT(excl.function_lines), 0, 1, 0, NULL},
    {"exclude-pattern-prefix", 1, SET_OUT, OUT(excl.marker_prefix), 0, 0, 0, NULL},
    {"line-rule", 1, CALL, 0, 0, 0, 0, parse_line_rule},
    {"root", 1, SET_OUT, OUT(root), 0, 0, 0, NULL},
    {"cobertura-split", 1, SET_OUT, OUT(cobertura_split), 0, 0, 1, NULL},
    {"html-dir", 1, SET_OUT, OUT(html_dir), 0, 0, 1, NULL},
    {"html-url", 1, SET_OUT, OUT(html_url), 0, 0, 1, NULL},
    {"diff", 1, SET_OUT, OUT(diff), 0, 0, 1, NULL},
    {"diff-base", 1, SET_OUT, OUT(diff_base), 0, 0, 1, NULL},
    {"store", 1, SET_OUT, OUT(store), 0, 0, 0, NULL},
    {"test", 1, ADD_OUT, OUT(tests), OUT(n_tests), 0, 0, NULL},
    {"shard", 1, SET_OUT, OUT(shard), 0, 0, 0, NULL},
    {"revision", 1, SET_OUT, OUT(revision), 0, 0, 0, NULL},
    {"config", 1, SET_OUT, OUT(config), 0, 0, 0, NULL},
    {"build", 1, SET_OUT, OUT(build), 0, 0, 0, NULL},
    {"since", 1, SET_OUT, OUT(since), 0, 0, 0, NULL},
    {"output", 1, CALL, 0, 0, 0, 0, parse_output},
    {"quiet", 0, CALL, 0, 0, 0, 0, parse_quiet},
    {"help", 0, CALL, 0, 0, 0, 0, parse_help},
};
#undef OUT
#undef IN
enum { N_ROWS = sizeof(rows) / sizeof(rows[0]), O_ROW = 256, O_FORMAT = 512 };

static int parse_fail_under(struct parse *p, const char *arg, int row) {
  char *end;
  double v = strtod(arg, &end);
  if (p->merge_out || end == arg || *end || !(v >= 0 && v <= 100)) {
    UCOV_ERR("a --fail-under gate is a percentage from 0 to 100, not '%s'\n", arg);
    return -1;
  }
  p->out->fail_under[rows[row].value] = v;
  return 0;
}

static int row_named(const char *name) {
  for (int i = 0; i < N_ROWS; i++)
    if (!strcmp(rows[i].name, name))
      return i;
  return -1;
}

/* One row's option given: 0, or -1 (said). */
static int apply_row(struct parse *p, int row, const char *arg) {
  const struct opt_row *r = &rows[row];
  char *base = r->act == SET_IN || r->act == ADD_IN ? (char *)p->in : (char *)p->out;
  switch (r->act) {
  case SET_OUT:
  case SET_IN:
    *(const char **)(void *)(base + r->at) = arg;
    return 0;
  case ADD_OUT:
  case ADD_IN: {
    const char ***list = (const char ***)(void *)(base + r->at);
    int *n = (int *)(void *)(base + r->count_at);
    if (!grow_list((void **)list, *n))
      return -1;
    (*list)[(*n)++] = arg;
    return 0;
  }
  case FLAG_OUT:
    *(int *)(void *)(base + r->at) = r->value;
    return 0;
  case CALL:
    return r->call(p, arg, row);
  }
  return -1;
}

/* After the options: the inputs there, the patterns compiled, one output on
 * standard output at most, --root a directory, the globs anchored. 0 or -1. */
static int parse_finish(struct parse *p, int argc) {
  struct outputs *out = p->out;
  struct cov_model *m = p->m;
  if (optind >= argc && !out->store) {
    UCOV_ERR("no INPUT\n");
    cli_try_help();
    return -1;
  }
  if (cov_excl_compile(&out->excl))
    return -1;
  int to_stdout = p->merge_out && *p->merge_out && !strcmp(*p->merge_out, "-");
  for (int k = 0; k < REPORT_FORMATS; k++)
    to_stdout += out->path[k] && !strcmp(out->path[k], "-");
  if (to_stdout > 1) {
    UCOV_ERR("%d outputs to standard output (-): one at most\n", to_stdout);
    return -1;
  }
  struct stat rst;
  int rerr = !out->root ? 0 : stat(out->root, &rst) ? errno : !S_ISDIR(rst.st_mode) ? ENOTDIR : 0;
  if (rerr) { /* the outputs' paths would be relative to nothing */
    UCOV_ERR("--root %s: %s\n", out->root, strerror(rerr));
    return -1;
  }
  char *cwd = NULL;
  int bad = out->root && cov_set_root(m, out->root);
  if (!bad && !m->root)
    cwd = getcwd(NULL, 0);
  bad = bad || cov_anchor_globs(m, m->root ? m->root : cwd ? cwd : ".");
  free(cwd);
  if (bad) {
    UCOV_ERR("out of memory\n");
    return -1;
  }
  out->excl.root = m->root;
  m->no_demangle = out->no_demangle;
  m->unit_blocks = out->lcov_format == 2;
  p->in->progress = !*p->quiet && isatty(2);
  return 0;
}

int report_parse(int argc, char **argv, const char *usage, struct cov_model *m,
                 struct input_opts *in, struct outputs *out, const char **merge_out, int *quiet) {
  struct parse p = {m, in, out, merge_out, quiet, usage};
  /* the rows, then one --OPTION FILE per report format */
  struct option opts[N_ROWS + REPORT_FORMATS + 1];
  for (int i = 0; i < N_ROWS; i++)
    opts[i] = (struct option){rows[i].name, rows[i].has_arg ? required_argument : no_argument, 0,
                              O_ROW + i};
  for (int k = 0; k < REPORT_FORMATS; k++)
    opts[N_ROWS + k] =
        (struct option){report_formats[k].option, required_argument, 0, O_FORMAT + k};
  opts[N_ROWS + REPORT_FORMATS] = (struct option){0, 0, 0, 0};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, merge_out ? "o:qh" : "qh", opts, NULL)) != -1) {
    int row = c == 'o'   ? row_named("output")
              : c == 'q' ? row_named("quiet")
              : c == 'h' ? row_named("help")
                         : c - O_ROW;
    int format = c >= O_FORMAT && c < O_FORMAT + REPORT_FORMATS;
    if (!format && (row < 0 || row >= N_ROWS)) {
      cli_bad_option(argc, argv, opts);
      return -1;
    }
    if (merge_out && (format || rows[row].report_only)) {
      UCOV_ERR("--%s is an option of ucov report\n",
               format ? report_formats[c - O_FORMAT].option : rows[row].name);
      cli_try_help();
      return -1;
    }
    if (format)
      out->path[c - O_FORMAT] = optarg;
    else if (apply_row(&p, row, optarg))
      return -1;
  }
  return parse_finish(&p, argc) ? -1 : optind;
}

int report_read_inputs(struct cov_model *m, int argc, char **argv, int first,
                       const struct input_opts *in, const struct cov_excl *x, int push) {
  struct input_session *s = input_session_new(in);
  if (!s) {
    UCOV_ERR("out of memory\n");
    return 1;
  }
  int bad = 0;
  for (int i = first; i < argc; i++)
    bad += input_read(s, m, argv[i]);
  if (push)
    bad += input_add_build_notes(s);
  bad += input_finish(s, m);
  input_session_free(s);
  cov_finish(m);
  if (cov_exclude(m, x)) {
    UCOV_ERR("out of memory\n");
    bad++;
  }
  return bad;
}

void report_release(struct cov_model *m, struct input_opts *in, struct outputs *out) {
  cov_free(m);
  free(in->binaries);
  free(out->baselines);
  free(out->tests);
  cov_excl_free(&out->excl);
  free(out->func_joined);
  out->func_joined = NULL;
  in->binaries = NULL;
  out->baselines = NULL;
  out->tests = NULL;
}

int only_for(const char *what, const char *opt, const void *given) {
  if (!given)
    return 0;
  UCOV_ERR("--%s is an option of %s\n", opt, what);
  cli_try_help();
  return -1;
}
