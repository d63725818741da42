/* SPDX-License-Identifier: MIT */
/*
 * ucov report: coverage inputs of any kind (pulled trees, .gcda trees, LLVM
 * profiles, lcov tracefiles, ucov JSON, a store) into one model, written in
 * the formats asked (report_opts.c's table), or a summary on stdout; the
 * differential categories against a baseline or a diff; the gates.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "diffcov/diff.h"
#include "base/exclude.h"
#include "readers/readers.h"
#include "writers/writers.h"
#include "readers/inputs.h"
#include "base/model.h"
#include "base/subprocess.h"
#include "proto/client.h"
#include "report_opts.h"
#include "report_store.h"
#include "store/store.h"

static const char report_usage[] =
    "usage: ucov report INPUT... [--lcov FILE] [--cobertura FILE] [--json FILE] [--html FILE]\n"
    "\n"
    "Read coverage INPUTs and write reports; with no output option, print a summary.\n"
    "An INPUT is a directory written by `ucov pull` or a build (its raw data: .gcda,\n"
    ".gcno, .profraw, PC dump files and Xen blobs; never .info or .json), a .gcda, a\n"
    ".profraw or .profdata (with --binary), an lcov tracefile, ucov JSON, or a trace:\n"
    "hex PCs a line (KCOV, syzkaller rawcover) or a KCOV buffer dump (.kcov), with\n"
    "--binary or --modules; kinds mix, counts of the same lines add up, and the same\n"
    "file reached twice is read once.\n"
    "\n"
    "  --lcov FILE          an lcov tracefile (1.x records)\n"
    "  --lcov-format 1|2    lcov 2.x records instead (FNL/FNA, MCDC, VER, exception\n"
    "                       branches)\n"
    "  --summary            lcov's line, function and branch totals on stderr\n"
    "  --text FILE          a table: per file lines, functions, branches and the\n"
    "                       lines never run (printed with the totals when no\n"
    "                       output is named); with --diff, the patch's coverage\n"
    "  --fail-under-line N, --fail-under-function N, --fail-under-branch N\n"
    "                       a gate: exit 4 (lines), 8 (functions), 16 (branches), OR'd,\n"
    "                       when that coverage is below N percent\n"
    "  --fail-under-patch N with --diff: exit 32 when the changed lines with code are\n"
    "                       less than N percent covered (none changed: passes)\n"
    "  --cobertura FILE     Cobertura XML (coverage-04.dtd)\n"
    "  --cobertura-split DIR  the same, one document per package: DIR/coverage-N.xml\n"
    "  --json FILE          ucov JSON (docs/formats.md)\n"
    "  --json-summary FILE  totals and per-file totals (gcovr's JSON summary keys)\n"
    "  --markdown FILE      a table for a pull-request comment: totals, the changed\n"
    "                       files (with --baseline), the lowest-covered files\n"
    "  --html FILE          one self-contained HTML page (sortable summary, sources)\n"
    "  --html-dir DIR       the same viewer as DIR/index.html, each file's data in\n"
    "                       DIR/files/N.js (for trees too large for one page)\n"
    "  --html-url URL       where the HTML page will be read: --markdown links each\n"
    "                       file and uncovered line to its view there (default, with\n"
    "                       --html or --html-dir: that page, from the Markdown file)\n"
    "  --sonarqube FILE     SonarQube generic coverage XML\n"
    "  --coveralls FILE     Coveralls job JSON (repo_token, service_name, ... from\n"
    "                       COVERALLS_REPO_TOKEN, COVERALLS_SERVICE_NAME, ... or the CI)\n"
    "  --jacoco FILE        JaCoCo XML\n"
    "  --title TEXT         the HTML page's, Markdown's and JaCoCo report's title\n"
    "  --root DIR           write source paths relative to DIR (the repository root),\n"
    "                       leave out sources outside it; Cobertura's <source> is DIR;\n"
    "                       relative input paths are relative to DIR (else to here)\n"
    "  FILE - is stdout (for one output only).\n"
    "  --baseline INPUT     differential coverage against an older INPUT (repeatable):\n"
    "                       each line's lcov 2 category (GNC UNC GBC LBC CBC UBC DCB DUB)\n"
    "  --diff FILE          a unified diff from the baseline's sources to these\n"
    "                       (git diff -U0 BASE): lines matched through it, moved\n"
    "                       blocks to their old lines; without --baseline, the\n"
    "                       coverage of the lines it inserts (GNC, UNC)\n"
    "  --diff-base REF      the diff from the merge base of REF and HEAD, by git in\n"
    "                       the sources' work tree (--root, else here), committed\n"
    "                       and not: as diff-cover's --compare-branch (no diff file)\n"
    "  --binary PROG        the instrumented program of LLVM profiles and PC dumps\n"
    "                       (repeatable)\n"
    "  --modules MAP        the module map of the traced process, for PC dumps\n"
    "                       (ucov_modules_write; a pulled DIR/modules is used by itself)\n"
    "  --prefix-map OLD=NEW rewrite source paths starting with OLD (repeatable)\n"
    "  --include GLOB       keep only source paths matching GLOB (repeatable; a\n"
    "                       relative GLOB is relative to --root, or to here)\n"
    "  --exclude GLOB       drop source paths matching GLOB (repeatable, the same)\n"
    "  --gcov-tool TOOL     read .gcda through this gcov (default: ucov reads\n"
    "                       GCC 12-15 notes itself)\n"
    "  --no-demangle        C++ function names as the compiler wrote them (default:\n"
    "                       demangled, a constructor's or destructor's variants one\n"
    "                       function)\n"
    "\n"
    "From a coverage store (ucov push; docs/store.md), with or without INPUTs:\n"
    "  --store URL          a store: a SQLite file (sqlite:PATH or a path; default\n"
    "                       $UCOV_STORE, else ./ucov.db) or postgresql://...\n"
    "  --build B            one build: its number, revision (REVISION/CONFIG), or a\n"
    "                       build-id of one of its programs (prefix)\n"
    "  --test NAME          only these tests' counts (repeatable)\n"
    "  --since TIME         only counts from TIME on: seconds since the epoch,\n"
    "                       YYYY-MM-DD[THH:MM[:SS]] (UTC), or Nd / Nh ago\n"
    "\n"
    "Exclusions (lines, branches and functions taken out, and counted as excluded):\n"
    "markers in the sources, LCOV_EXCL_LINE, LCOV_EXCL_START ... LCOV_EXCL_STOP and\n"
    "LCOV_EXCL_BR_LINE, LCOV_EXCL_BR_START ... LCOV_EXCL_BR_STOP (branches only),\n"
    "also spelled GCOVR_EXCL_*, apply to every kind of input.\n"
    "  --no-markers         ignore the markers\n"
    "  --exclude-lines-by-pattern RE      exclude the lines that match RE (gcovr's\n"
    "                       Python syntax: \\d, (?:...), lazy quantifiers, or ERE)\n"
    "  --exclude-branches-by-pattern RE   exclude the branches of lines that match\n"
    "  --exclude-unreachable-branches     no branches on lines of only braces\n"
    "                       and comments\n"
    "  --exclude-throw-branches           no exception branches\n"
    "  --exclude-function RE  leave out the functions whose whole name matches RE\n"
    "                       (or gcovr's /RE/; repeatable), their lines and branches\n"
    "  --exclude-function-lines  the lines functions start on have no code (gcovr's)\n"
    "  --exclude-pattern-prefix RE  the markers' prefix: RE_EXCL_LINE, ... (default\n"
    "                       [GL]COVR?, gcovr's option)\n"
    "  --line-rule lcov|gcovr  which lines have code: lcov's (the default: every\n"
    "                       line gcov counts), or gcovr's (a line never run whose\n"
    "                       code is only a brace, \"else\" or a comment has none)\n"
    "\n"
    "  -q, --quiet          no summary, no progress line\n"
    "  -h, --help\n"
    "\n"
    "gcov, llvm-cov and llvm-profdata may run UCOV_TOOL_TIMEOUT seconds (300) per call.\n"
    "Exit status: 0, 1 if an input could not be read (the report has the rest), 2 usage,\n"
    "4/8/16/32 (OR'd) a --fail-under gate missed.\n";

static void summary_line(const char *what, uint64_t hit, uint64_t found) {
  if (found)
    printf("%-10s %6.2f%% (%" PRIu64 " of %" PRIu64 ")\n", what,
           100.0 * (double)hit / (double)found, hit, found);
  else
    printf("%-10s no data\n", what);
}

/* lcov's "Summary coverage rate" block. */
static void lcov_summary(const struct cov_model *m, FILE *f) {
  struct cov_summary s;
  cov_summary(m, &s);
  const char *what[3] = {"lines......", "functions..", "branches..."},
             *unit[3] = {"lines", "functions", "branches"};
  uint64_t hit[3] = {s.lines_hit, s.funcs_hit, s.branches_hit},
           found[3] = {s.lines_found, s.funcs_found, s.branches_found};
  fprintf(f, "Summary coverage rate:\n");
  for (int k = 0; k < 3; k++)
    if (found[k])
      fprintf(f, "  %s: %.1f%% (%" PRIu64 " of %" PRIu64 " %s)\n", what[k],
              100.0 * (double)hit[k] / (double)found[k], hit[k], found[k], unit[k]);
    else
      fprintf(f, "  %s: no data found\n", what[k]);
  if (s.lines_excluded || s.branches_excluded || s.funcs_excluded)
    fprintf(f, "  excluded...: %" PRIu64 " lines, %" PRIu64 " functions, %" PRIu64 " branches\n",
            s.lines_excluded, s.funcs_excluded, s.branches_excluded);
}

/*
 * The --fail-under gates: each kind below its percentage is said on stderr
 * and sets its bit of the exit status. The exact fraction is compared, never
 * a rounded percentage. No data of a kind passes its gate, as gcovr's does.
 */
/* The gates (patch: with a diff, its changed lines with code; none of them
 * passes, as with diff-cover). */
static int gates(const struct cov_model *m, const double *under, const struct cov_diff *d) {
  struct cov_summary s;
  cov_summary(m, &s);
  static const char *const kind[4] = {"lines", "functions", "branches", "patch"},
                           *opt[4] = {"line", "function", "branch", "patch"};
  static const int bit[4] = {UCOV_EXIT_GATE_LINE, UCOV_EXIT_GATE_FUNCTION, UCOV_EXIT_GATE_BRANCH,
                             UCOV_EXIT_GATE_PATCH};
  uint64_t hit[4] = {s.lines_hit, s.funcs_hit, s.branches_hit, d ? d->patch_hit : 0},
           found[4] = {s.lines_found, s.funcs_found, s.branches_found, d ? d->patch_found : 0};
  int status = 0;
  for (int k = 0; k < 4; k++) {
    if (under[k] < 0 || !found[k])
      continue;
    double pct = 100.0 * (double)hit[k] / (double)found[k];
    if (pct < under[k]) {
      /* The exact value is compared: shown with the digits that tell it
       * from the gate (51.106%, not 51.11%, below 51.11). */
      int digits = 2;
      char shown[64];
      for (;; digits++) {
        snprintf(shown, sizeof(shown), "%.*f", digits, pct);
        if (strtod(shown, NULL) < under[k] || digits == 9)
          break;
      }
      UCOV_ERR("%s coverage %s%% (%" PRIu64 " of %" PRIu64 ") is below --fail-under-%s %g\n",
               kind[k], shown, hit[k], found[k], opt[k], under[k]);
      status |= bit[k];
    }
  }
  return status;
}

static void print_summary(const struct cov_model *m) {
  struct cov_summary s;
  cov_summary(m, &s);
  printf("%zu files\n", m->n_files);
  summary_line("lines:", s.lines_hit, s.lines_found);
  summary_line("functions:", s.funcs_hit, s.funcs_found);
  summary_line("branches:", s.branches_hit, s.branches_found);
  if (s.mcdc_found)
    summary_line("MC/DC:", s.mcdc_hit, s.mcdc_found);
  if (s.regions_found)
    summary_line("regions:", s.regions_hit, s.regions_found);
  if (s.lines_excluded || s.branches_excluded || s.funcs_excluded)
    printf("excluded:  %" PRIu64 " lines, %" PRIu64 " functions, %" PRIu64 " branches\n",
           s.lines_excluded, s.funcs_excluded, s.branches_excluded);
}

/* A baseline source's text: the current one with the diff undone. */
struct old_text {
  const struct udiff *u;
  const char *root;
};

static char *baseline_text(void *arg, const char *path, size_t *len) {
  const struct old_text *ot = arg;
  return ot->root ? udiff_old_text(ot->u, path, ot->root, len) : NULL;
}

static void print_diff(const struct cov_diff *d) {
  printf("against the baseline:");
  for (int cat = 1; cat < COV_DIFF_CATEGORIES; cat++)
    printf(" %s %" PRIu64, cov_category_name[cat], d->totals[cat]);
  printf("\n");
}

/* --since: seconds since the epoch, an ISO date/time (UTC), or "Nd"/"Nh"/"Nm" ago. */
static int parse_since(const char *v, int64_t *out) {
  char *end;
  long long n = strtoll(v, &end, 10);
  if (end != v && !*end && n >= 0) {
    *out = n;
    return 0;
  }
  if (end != v && n >= 0 && end[1] == 0 && strchr("dhm", *end)) {
    int64_t unit = *end == 'd' ? 86400 : *end == 'h' ? 3600 : 60;
    *out = (int64_t)time(NULL) - (int64_t)n * unit;
    return 0;
  }
  struct tm tm = {0};
  const char *fmts[] = {"%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M:%S",
                        "%Y-%m-%d %H:%M", "%Y-%m-%d"};
  for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
    memset(&tm, 0, sizeof(tm));
    const char *e = strptime(v, fmts[i], &tm);
    if (e && (!*e || !strcmp(e, "Z"))) {
      *out = (int64_t)timegm(&tm);
      return 0;
    }
  }
  return -1;
}

/*
 * --diff-base REF: the diff of the sources (the work tree at dir: --root,
 * else here) from their merge base with REF, as diff-cover's
 * --compare-branch takes it, committed and not (git merge-base REF HEAD,
 * then git diff -U0 --relative BASE), into a temporary file whose path goes
 * to out. 0, or -1 (said: not a git work tree, no such REF).
 */
static int git_diff_base(const char *ref, const char *dir, char *out, size_t len) {
  const char *where = dir ? dir : ".";
  char *top[] = {"git", "-C", (char *)where, "rev-parse", "--is-inside-work-tree", NULL};
  char *text = NULL, *base = NULL;
  size_t n = 0;
  int st = run_capture(top, NULL, &text, &n, NULL, 0);
  int in_tree = st == 0 && text && !strncmp(text, "true", 4);
  free(text);
  if (!in_tree) {
    UCOV_ERR("--diff-base %s: %s is not in a git work tree\n", ref, where);
    return -1;
  }
  char *mb[] = {"git", "-C", (char *)where, "merge-base", (char *)ref, "HEAD", NULL};
  if (run_capture(mb, NULL, &base, &n, NULL, 0) != 0 || !base || !n) {
    UCOV_ERR("--diff-base %s: no merge base of %s and HEAD in %s\n", ref, ref, where);
    free(base);
    return -1;
  }
  base[strcspn(base, "\n")] = 0;
  char *diff[] = {"git",           "-C",         (char *)where, "diff", "-U0", "--no-color",
                  "--no-ext-diff", "--relative", base,          NULL};
  text = NULL;
  st = run_capture(diff, NULL, &text, &n, NULL, 0);
  free(base);
  int fd = -1, r = -1;
  if (st != 0) {
    UCOV_ERR("--diff-base %s: git diff failed (exit %d)\n", ref, st);
  } else if (snprintf(out, len, "%s/ucov-diff-base.XXXXXX",
                      getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp") >= (int)len ||
             (fd = mkstemp(out)) < 0) {
    UCOV_ERR("--diff-base: a temporary file: %s\n", strerror(errno));
    out[0] = 0;
  } else {
    r = n && ucov_write_full(fd, text, n) ? -1 : 0;
    if (close(fd) || r) {
      UCOV_ERR("%s: %s\n", out, strerror(errno));
      r = -1;
    }
  }
  free(text);
  return r;
}

/* The checks of report's options after report_parse; --since read into
 * *since. 0, or -1 (said). */
static int report_checks(const struct outputs *out, int64_t *since) {
  if (out->diff && out->diff_base) {
    UCOV_ERR("--diff and --diff-base: one of them\n");
    cli_try_help();
    return -1;
  }
  if (out->fail_under[3] >= 0 && !out->diff && !out->diff_base) {
    UCOV_ERR("--fail-under-patch needs --diff: the patch is the diff's changed lines\n");
    cli_try_help();
    return -1;
  }
  if (only_for("ucov push", "shard", out->shard) ||
      only_for("ucov push", "revision", out->revision) ||
      only_for("ucov push", "config", out->config) ||
      (!out->store && (only_for("ucov report --store", "build", out->build) ||
                       only_for("ucov report --store", "test", out->tests) ||
                       only_for("ucov report --store", "since", out->since))))
    return -1;
  if (out->since && parse_since(out->since, since)) {
    UCOV_ERR("--since wants seconds since the epoch, YYYY-MM-DD[THH:MM[:SS]] or Nd/Nh/Nm, not "
             "'%s'\n",
             out->since);
    cli_try_help();
    return -1;
  }
  return 0;
}

/* The baseline's inputs into base, through m's path rules; its exclusions
 * (markers, patterns, the line rule) by its own text: with a diff, the
 * current sources with the diff undone. The problems reported. */
static int report_baseline(struct cov_model *base, const struct cov_model *m,
                           const struct outputs *out, const struct input_opts *in,
                           const struct udiff *ud) {
  base->maps = m->maps;
  base->n_maps = m->n_maps;
  base->include = m->include;
  base->n_include = m->n_include;
  base->exclude = m->exclude;
  base->n_exclude = m->n_exclude;
  base->root = m->root;
  base->no_demangle = m->no_demangle;
  struct cov_excl bx = out->excl;
  char *cwd = m->root ? NULL : getcwd(NULL, 0);
  struct old_text ot = {ud, m->root ? m->root : cwd};
  if (ud) {
    bx.source = baseline_text;
    bx.source_arg = &ot;
  }
  int bad = report_read_inputs(base, out->n_baselines, out->baselines, 0, in, &bx, 0);
  free(cwd);
  base->maps = NULL;
  base->n_maps = base->n_include = base->n_exclude = 0;
  base->include = base->exclude = NULL;
  base->root = NULL;
  return bad;
}

/* Every output asked for (or the table and totals on standard output). 0 or -1. */
static int report_outputs(const struct cov_model *m, const struct outputs *out,
                          const struct report_ctx *ctx, int quiet) {
  int err = 0;
  for (int k = 0; k < REPORT_FORMATS; k++)
    if (out->path[k])
      err |= report_write_one(out->path[k], &report_formats[k], ctx);
  if (out->cobertura_split && cobertura_write_split(m, out->cobertura_split))
    err = -1;
  if (out->html_dir && html_write_dir(m, out->html_dir, ctx->title, ctx->diff, ctx->html))
    err = -1;
  if (!quiet && !outputs_any(out)) { /* the table, then the totals */
    if (m->n_files)
      err |= report_write_one("-", &report_formats[FMT_TEXT], ctx);
    print_summary(m);
    if (ctx->diff)
      print_diff(ctx->diff);
  }
  if (out->summary)
    lcov_summary(m, stderr);
  return err;
}

int cmd_report(int argc, char **argv) {
  struct cov_model m, base;
  struct input_opts in = {0};
  struct outputs out = {.fail_under = {-1, -1, -1, -1},
                        .excl = {.markers = 1, .cmd = "ucov report"}};
  int quiet = 0;
  int64_t since = 0;
  cov_init(&m);
  cov_init(&base);
  int first = report_parse(argc, argv, report_usage, &m, &in, &out, NULL, &quiet);
  if (first < 0 || report_checks(&out, &since)) {
    report_release(&m, &in, &out);
    return UCOV_EXIT_USAGE;
  }
  int bad = 0;
  struct store_filter sf = {out.build, out.tests, out.n_tests, since};
  if (out.store) {
    struct store *st = store_open_existing(out.store);
    if (!st || store_read(st, &sf, &m))
      bad++;
    if (store_close(st))
      bad++;
  }
  bad += report_read_inputs(&m, argc, argv, first, &in, &out.excl, 0);
  struct cov_diff diff = {0};
  int have_diff = 0;
  struct udiff *ud = NULL;
  char diff_tmp[PATH_MAX] = "";
  if (out.diff_base && git_diff_base(out.diff_base, m.root, diff_tmp, sizeof(diff_tmp)))
    bad++;
  else if (out.diff_base)
    out.diff = diff_tmp;
  if (out.diff) {
    struct diag_context then = {.after = " (no differential categories)"};
    diag_context_begin(&then);
    bad += udiff_read(out.diff, &ud) != 0;
    diag_context_end(&then);
  }
  if (diff_tmp[0])
    unlink(diff_tmp);
  if (out.n_baselines)
    bad += report_baseline(&base, &m, &out, &in, ud);
  if (out.n_baselines || ud) {
    if (cov_diff_compute(&diff, &m, out.n_baselines ? &base : NULL, ud, m.root)) {
      UCOV_ERR("out of memory\n");
      bad++;
    } else {
      have_diff = 1;
    }
  }
  udiff_free(ud);
  /* the page shows what the store knows beyond the counts */
  struct html_extra extra = {0};
  if (out.store && (out.path[FMT_HTML] || out.html_dir) && !bad)
    bad += report_store_html(out.store, &sf, &m, &extra) != 0;
  char *html_url = report_html_url(&out);
  struct report_ctx ctx = {.m = &m,
                           .diff = have_diff ? &diff : NULL,
                           .title = out.title ? out.title : "ucov coverage report",
                           .lcov_format = out.lcov_format,
                           .html = out.store ? &extra : NULL,
                           .html_url = html_url};
  int err = report_outputs(&m, &out, &ctx, quiet);
  int gate = gates(&m, out.fail_under, have_diff && diff.have_patch ? &diff : NULL);
  if (have_diff)
    cov_diff_free(&diff);
  report_store_html_free(&extra);
  free(html_url);
  cov_free(&base);
  report_release(&m, &in, &out);
  /* (an input not read: the figures are not the build's, no gate is judged on them) */
  return err || bad ? UCOV_EXIT_FAIL : gate ? gate : UCOV_EXIT_OK;
}
