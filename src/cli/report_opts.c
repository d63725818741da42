/* SPDX-License-Identifier: MIT */
/*
 * The options ucov report, merge and push share, and the table of report
 * formats (report_opts.h).
 */
#define _GNU_SOURCE
#include "report_opts.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "diffcov/diff.h"
#include "readers/readers.h"

enum {
  O_TITLE = 256,
  O_BASELINE,
  O_BINARY,
  O_MODULES,
  O_PREFIX,
  O_INCLUDE,
  O_EXCLUDE,
  O_GCOV,
  O_LCOV_FORMAT,
  O_SUMMARY,
  O_FAIL_LINE,
  O_FAIL_FUNCTION,
  O_FAIL_BRANCH,
  O_FAIL_PATCH,
  O_NO_MARKERS,
  O_EXCL_LINES,
  O_EXCL_BRANCHES,
  O_EXCL_UNREACHABLE,
  O_EXCL_THROW,
  O_EXCL_FUNCTION,
  O_LINE_RULE,
  O_ROOT,
  O_COBERTURA_SPLIT,
  O_HTML_DIR,
  O_HTML_URL,
  O_DIFF,
  O_STORE,
  O_TEST,
  O_SHARD,
  O_REVISION,
  O_CONFIG,
  O_BUILD,
  O_SINCE,
  O_FORMAT = 512 /* O_FORMAT + k: report_formats[k]'s option */
};

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
    UCOV_ERR("%s: %s\n", path, strerror(errno));
    return -1;
  }
  int err = fmt->write(c, f);
  if (f != stdout && fclose(f))
    err = -1;
  else if (f == stdout && fflush(f))
    err = -1;
  if (err)
    UCOV_ERR("%s: write error\n", path);
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

/* The long name of option c. */
static const char *opt_name(const struct option *opts, int c) {
  for (; opts->name; opts++)
    if (opts->val == c)
      return opts->name;
  return "?";
}

/* (Long: one case per option, each a line or a few; the checks after them read as the usage
 * says.) */
int report_parse(int argc, char **argv, const char *usage, struct cov_model *m,
                 struct input_opts *in, struct outputs *out, const char **merge_out, int *quiet) {
  static const struct option base_opts[] = {
      {"title", required_argument, 0, O_TITLE},
      {"baseline", required_argument, 0, O_BASELINE},
      {"binary", required_argument, 0, O_BINARY},
      {"modules", required_argument, 0, O_MODULES},
      {"prefix-map", required_argument, 0, O_PREFIX},
      {"include", required_argument, 0, O_INCLUDE},
      {"exclude", required_argument, 0, O_EXCLUDE},
      {"gcov-tool", required_argument, 0, O_GCOV},
      {"lcov-format", required_argument, 0, O_LCOV_FORMAT},
      {"summary", no_argument, 0, O_SUMMARY},
      {"fail-under-line", required_argument, 0, O_FAIL_LINE},
      {"fail-under-function", required_argument, 0, O_FAIL_FUNCTION},
      {"fail-under-branch", required_argument, 0, O_FAIL_BRANCH},
      {"fail-under-patch", required_argument, 0, O_FAIL_PATCH},
      {"no-markers", no_argument, 0, O_NO_MARKERS},
      {"exclude-lines-by-pattern", required_argument, 0, O_EXCL_LINES},
      {"exclude-branches-by-pattern", required_argument, 0, O_EXCL_BRANCHES},
      {"exclude-unreachable-branches", no_argument, 0, O_EXCL_UNREACHABLE},
      {"exclude-throw-branches", no_argument, 0, O_EXCL_THROW},
      {"exclude-function", required_argument, 0, O_EXCL_FUNCTION},
      {"line-rule", required_argument, 0, O_LINE_RULE},
      {"root", required_argument, 0, O_ROOT},
      {"cobertura-split", required_argument, 0, O_COBERTURA_SPLIT},
      {"html-dir", required_argument, 0, O_HTML_DIR},
      {"html-url", required_argument, 0, O_HTML_URL},
      {"diff", required_argument, 0, O_DIFF},
      {"store", required_argument, 0, O_STORE},
      {"test", required_argument, 0, O_TEST},
      {"shard", required_argument, 0, O_SHARD},
      {"revision", required_argument, 0, O_REVISION},
      {"config", required_argument, 0, O_CONFIG},
      {"build", required_argument, 0, O_BUILD},
      {"since", required_argument, 0, O_SINCE},
      {"output", required_argument, 0, 'o'},
      {"quiet", no_argument, 0, 'q'},
      {"help", no_argument, 0, 'h'},
      {0, 0, 0, 0}};
  /* the options, then one --OPTION FILE per report format */
  enum { N_BASE = sizeof(base_opts) / sizeof(base_opts[0]) - 1 };
  struct option opts[N_BASE + REPORT_FORMATS + 1];
  memcpy(opts, base_opts, sizeof(base_opts));
  for (int k = 0; k < REPORT_FORMATS; k++)
    opts[N_BASE + k] =
        (struct option){report_formats[k].option, required_argument, 0, O_FORMAT + k};
  opts[N_BASE + REPORT_FORMATS] = (struct option){0, 0, 0, 0};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, merge_out ? "o:qh" : "qh", opts, NULL)) != -1) {
    int format = c >= O_FORMAT && c < O_FORMAT + REPORT_FORMATS;
    if (merge_out &&
        (format || c == O_TITLE || c == O_COBERTURA_SPLIT || c == O_HTML_DIR || c == O_HTML_URL ||
         c == O_DIFF || c == O_BASELINE)) { /* (the report's outputs: merge writes one lcov file) */
      UCOV_ERR("--%s is an option of ucov report\n", opt_name(opts, c));
      cli_try_help();
      return -1;
    }
    if (format) {
      out->path[c - O_FORMAT] = optarg;
      continue;
    }
    switch (c) {
    case O_TITLE:
      out->title = optarg;
      break;
    case O_COBERTURA_SPLIT:
      out->cobertura_split = optarg;
      break;
    case O_HTML_DIR:
      out->html_dir = optarg;
      break;
    case O_HTML_URL:
      out->html_url = optarg;
      break;
    case O_ROOT:
      out->root = optarg;
      break;
    case O_STORE:
      out->store = optarg;
      break;
    case O_SHARD:
      out->shard = optarg;
      break;
    case O_REVISION:
      out->revision = optarg;
      break;
    case O_CONFIG:
      out->config = optarg;
      break;
    case O_BUILD:
      out->build = optarg;
      break;
    case O_SINCE:
      out->since = optarg;
      break;
    case O_TEST:
      if (!grow_list((void **)&out->tests, out->n_tests))
        return -1;
      out->tests[out->n_tests++] = optarg;
      break;
    case O_DIFF:
      out->diff = optarg;
      break;
    case O_BASELINE:
      if (!grow_list((void **)&out->baselines, out->n_baselines))
        return -1;
      out->baselines[out->n_baselines++] = optarg;
      break;
    case O_BINARY:
      if (!grow_list((void **)&in->binaries, in->n_binaries))
        return -1;
      in->binaries[in->n_binaries++] = optarg;
      break;
    case O_MODULES:
      in->modules = optarg;
      break;
    case O_PREFIX:
      if (cov_add_prefix_map(m, optarg)) {
        UCOV_ERR("--prefix-map wants OLD=NEW, not '%s'\n", optarg);
        return -1;
      }
      break;
    case O_INCLUDE:
      cov_add_include(m, optarg);
      break;
    case O_EXCLUDE:
      cov_add_exclude(m, optarg);
      break;
    case O_GCOV:
      in->gcov_tool = optarg;
      break;
    case O_LCOV_FORMAT:
      if (strcmp(optarg, "1") && strcmp(optarg, "2")) {
        UCOV_ERR("--lcov-format is 1 or 2, not '%s'\n", optarg);
        return -1;
      }
      out->lcov_format = optarg[0] - '0';
      break;
    case O_SUMMARY:
      out->summary = 1;
      break;
    case O_FAIL_LINE:
    case O_FAIL_FUNCTION:
    case O_FAIL_BRANCH:
    case O_FAIL_PATCH: {
      char *end;
      double v = strtod(optarg, &end);
      if (merge_out || end == optarg || *end || !(v >= 0 && v <= 100)) {
        UCOV_ERR("a --fail-under gate is a percentage from 0 to 100, not '%s'\n", optarg);
        return -1;
      }
      out->fail_under[c - O_FAIL_LINE] = v;
      break;
    }
    case O_NO_MARKERS:
      out->excl.markers = 0;
      break;
    case O_EXCL_LINES:
      out->excl.line_pattern = optarg;
      break;
    case O_EXCL_BRANCHES:
      out->excl.branch_pattern = optarg;
      break;
    case O_EXCL_UNREACHABLE:
      out->excl.unreachable_branches = 1;
      break;
    case O_EXCL_THROW:
      out->excl.throw_branches = 1;
      break;
    case O_EXCL_FUNCTION: {
      /* gcovr's "/RE/", or RE; several: one alternation */
      size_t n = strlen(optarg);
      int slashed = n >= 2 && optarg[0] == '/' && optarg[n - 1] == '/';
      char *joined = NULL, *prev = out->func_joined;
      if (asprintf(&joined, "%s%s(%.*s)", prev ? prev : "", prev ? "|" : "",
                   (int)(slashed ? n - 2 : n), optarg + slashed) < 0) {
        UCOV_ERR("out of memory\n");
        return -1;
      }
      free(prev);
      out->excl.function_pattern = out->func_joined = joined;
      break;
    }
    case O_LINE_RULE:
      if (strcmp(optarg, "lcov") && strcmp(optarg, "gcovr")) {
        UCOV_ERR("--line-rule is lcov or gcovr, not '%s'\n", optarg);
        return -1;
      }
      out->excl.gcovr_lines = !strcmp(optarg, "gcovr");
      break;
    case 'o':
      *merge_out = optarg;
      break;
    case 'q':
      *quiet = 1;
      break;
    case 'h':
      fputs(usage, stdout);
      exit(UCOV_EXIT_OK);
    default:
      cli_bad_option(argc, argv, opts);
      return -1;
    }
  }
  if (optind >= argc && !out->store) {
    UCOV_ERR("no INPUT\n");
    cli_try_help();
    return -1;
  }
  if (cov_excl_compile(&out->excl))
    return -1;
  /* Standard output takes one of them. */
  int to_stdout = merge_out && *merge_out && !strcmp(*merge_out, "-");
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
  if (out->root && cov_set_root(m, out->root)) {
    UCOV_ERR("out of memory\n");
    return -1;
  }
  char *cwd = m->root ? NULL : getcwd(NULL, 0);
  int bad = cov_anchor_globs(m, m->root ? m->root : cwd ? cwd : ".");
  free(cwd);
  if (bad) {
    UCOV_ERR("out of memory\n");
    return -1;
  }
  out->excl.root = m->root;
  in->progress = !*quiet && isatty(2);
  return optind;
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
