/* SPDX-License-Identifier: MIT */
/*
 * ucov report | merge: coverage inputs of any kind (pulled trees, .gcda
 * trees, LLVM profiles, lcov tracefiles, ucov JSON) into one model, written
 * as lcov, Cobertura, JSON (and a summary on stdout).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "report/diff.h"
#include "report/exclude.h"
#include "report/formats.h"
#include "report/html.h"
#include "report/inputs.h"
#include "report/model.h"
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

static const char merge_usage[] =
    "usage: ucov merge INPUT... -o FILE\n"
    "\n"
    "Add up coverage INPUTs (as `ucov report` reads them) into one lcov tracefile, or\n"
    "ucov JSON when FILE ends in .json. Merging is associative and commutative:\n"
    "shards merge in any order to the same result.\n"
    "\n"
    "  -o, --output FILE\n"
    "  --lcov-format 1|2    the tracefile's form: lcov 1.x (default) or 2.x records\n"
    "  --binary, --prefix-map, --include, --exclude, --gcov-tool, the exclusions\n"
    "  (--no-markers, --exclude-*-by-pattern, --exclude-*-branches): as for ucov report\n"
    "  -q, --quiet\n"
    "  -h, --help\n";

enum {
  O_LCOV = 256,
  O_COBERTURA,
  O_JSON,
  O_HTML,
  O_TITLE,
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
  O_JSON_SUMMARY,
  O_TEXT,
  O_MARKDOWN,
  O_SONARQUBE,
  O_COVERALLS,
  O_JACOCO,
  O_COBERTURA_SPLIT,
  O_DIFF,
  O_STORE,
  O_TEST,
  O_SHARD,
  O_REVISION,
  O_CONFIG,
  O_BUILD,
  O_SINCE
};

struct outputs {
  const char *lcov, *cobertura, *json, *html, *title;
  const char *json_summary, *markdown, *sonarqube, *coveralls, *jacoco, *cobertura_split, *text;
  char *func_joined; /* the --exclude-function patterns, joined (malloc'd) */
  const char *root, *diff;
  const char *store, *shard, *revision, *config, *build, *since;
  const char **tests;
  int n_tests;
  char **baselines;
  int n_baselines;
  int lcov_format; /* 1 or 2 */
  int summary;
  double fail_under[4]; /* lines, functions, branches, patch: percent (negative: no gate) */
  struct cov_excl excl;
};

static int write_one(const char *path, int (*writer)(const struct cov_model *, FILE *),
                     const struct cov_model *m) {
  FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
  if (!f) {
    UCOV_ERR("%s: %s\n", path, strerror(errno));
    return -1;
  }
  int err = writer(m, f);
  if (f != stdout && fclose(f))
    err = -1;
  else if (f == stdout && fflush(f))
    err = -1;
  if (err)
    UCOV_ERR("%s: write error\n", path);
  return err;
}

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
      fprintf(stderr,
              "ucov report: %s coverage %s%% (%" PRIu64 " of %" PRIu64
              ") is below --fail-under-%s %g\n",
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
  if (s.lines_excluded || s.branches_excluded || s.funcs_excluded)
    printf("excluded:  %" PRIu64 " lines, %" PRIu64 " functions, %" PRIu64 " branches\n",
           s.lines_excluded, s.funcs_excluded, s.branches_excluded);
}

/* Options both commands share; the rest by `extra`. Returns optind or -1. */
/* Room for one more pointer in a list of n; 0 (with a message) if there is none. */
static int grow_list(void **list, int n) {
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

static int parse(int argc, char **argv, const char *usage, struct cov_model *m,
                 struct input_opts *in, struct outputs *out, const char **merge_out, int *quiet) {
  static const struct option opts[] = {
      {"lcov", required_argument, 0, O_LCOV},
      {"cobertura", required_argument, 0, O_COBERTURA},
      {"json", required_argument, 0, O_JSON},
      {"html", required_argument, 0, O_HTML},
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
      {"text", required_argument, 0, O_TEXT},
      {"no-markers", no_argument, 0, O_NO_MARKERS},
      {"exclude-lines-by-pattern", required_argument, 0, O_EXCL_LINES},
      {"exclude-branches-by-pattern", required_argument, 0, O_EXCL_BRANCHES},
      {"exclude-unreachable-branches", no_argument, 0, O_EXCL_UNREACHABLE},
      {"exclude-throw-branches", no_argument, 0, O_EXCL_THROW},
      {"exclude-function", required_argument, 0, O_EXCL_FUNCTION},
      {"line-rule", required_argument, 0, O_LINE_RULE},
      {"root", required_argument, 0, O_ROOT},
      {"json-summary", required_argument, 0, O_JSON_SUMMARY},
      {"markdown", required_argument, 0, O_MARKDOWN},
      {"sonarqube", required_argument, 0, O_SONARQUBE},
      {"coveralls", required_argument, 0, O_COVERALLS},
      {"jacoco", required_argument, 0, O_JACOCO},
      {"cobertura-split", required_argument, 0, O_COBERTURA_SPLIT},
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
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, merge_out ? "o:qh" : "qh", opts, NULL)) != -1) {
    switch (c) {
    case O_LCOV:
    case O_COBERTURA:
    case O_JSON:
    case O_HTML:
    case O_TITLE:
    case O_JSON_SUMMARY:
    case O_TEXT:
    case O_MARKDOWN:
    case O_SONARQUBE:
    case O_COVERALLS:
    case O_JACOCO:
    case O_COBERTURA_SPLIT:
      if (merge_out) {
        UCOV_ERR("--%s is an option of ucov report\n", opt_name(opts, c));
        cli_try_help();
        return -1;
      }
      *(c == O_LCOV              ? &out->lcov
        : c == O_JSON            ? &out->json
        : c == O_HTML            ? &out->html
        : c == O_TITLE           ? &out->title
        : c == O_JSON_SUMMARY    ? &out->json_summary
        : c == O_TEXT            ? &out->text
        : c == O_MARKDOWN        ? &out->markdown
        : c == O_SONARQUBE       ? &out->sonarqube
        : c == O_COVERALLS       ? &out->coveralls
        : c == O_JACOCO          ? &out->jacoco
        : c == O_COBERTURA_SPLIT ? &out->cobertura_split
                                 : &out->cobertura) = optarg;
      break;
    case O_ROOT:
      out->root = optarg;
      break;
    case O_STORE:
    case O_SHARD:
    case O_REVISION:
    case O_CONFIG:
    case O_BUILD:
    case O_SINCE:
      *(c == O_STORE      ? &out->store
        : c == O_SHARD    ? &out->shard
        : c == O_REVISION ? &out->revision
        : c == O_CONFIG   ? &out->config
        : c == O_BUILD    ? &out->build
                          : &out->since) = optarg;
      break;
    case O_TEST:
      if (!grow_list((void **)&out->tests, out->n_tests))
        return -1;
      out->tests[out->n_tests++] = optarg;
      break;
    case O_DIFF:
      if (merge_out) {
        UCOV_ERR("--%s is an option of ucov report\n", opt_name(opts, c));
        cli_try_help();
        return -1;
      }
      out->diff = optarg;
      break;
    case O_BASELINE:
      if (merge_out) {
        UCOV_ERR("--%s is an option of ucov report\n", opt_name(opts, c));
        cli_try_help();
        return -1;
      }
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
  char msg[256];
  if (cov_excl_compile(&out->excl, msg, sizeof(msg))) {
    UCOV_ERR("%s\n", msg);
    return -1;
  }
  /* Standard output takes one of them. */
  const char *const outs[] = {out->lcov,
                              out->cobertura,
                              out->json,
                              out->html,
                              out->json_summary,
                              out->markdown,
                              out->sonarqube,
                              out->coveralls,
                              out->jacoco,
                              out->text,
                              merge_out ? *merge_out : NULL};
  int to_stdout = 0;
  for (size_t i = 0; i < sizeof(outs) / sizeof(outs[0]); i++)
    to_stdout += outs[i] && !strcmp(outs[i], "-");
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

/* (push: with the units of the build trees that no run reached, at zero) */
static int read_inputs(struct cov_model *m, int argc, char **argv, int first,
                       const struct input_opts *in, const struct cov_excl *x, int push) {
  struct input_session *s = input_session_new(in);
  if (!s) {
    fprintf(stderr, "%s: out of memory\n", x->cmd);
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
    fprintf(stderr, "%s: out of memory\n", x->cmd);
    bad++;
  }
  return bad;
}

static const struct cov_diff *the_diff;

/* A baseline source's text: the current one with the diff undone. */
struct old_text {
  const struct udiff *u;
  const char *root;
};

static char *baseline_text(void *arg, const char *path, size_t *len) {
  const struct old_text *ot = arg;
  return ot->root ? udiff_old_text(ot->u, path, ot->root, len) : NULL;
}

static int write_json(const struct cov_model *m, FILE *f) {
  return ucov_json_write(m, f, the_diff);
}

static const char *the_title;

static int write_html(const struct cov_model *m, FILE *f) {
  return html_write(m, f, the_title, the_diff);
}

static int write_markdown(const struct cov_model *m, FILE *f) {
  return markdown_write(m, f, the_title, the_diff, 10);
}

static int write_jacoco(const struct cov_model *m, FILE *f) {
  return jacoco_write(m, f, the_title);
}

static int write_json_summary(const struct cov_model *m, FILE *f) {
  return json_summary_write(m, f, the_diff);
}

static int write_text(const struct cov_model *m, FILE *f) {
  return text_write(m, f, the_diff);
}

static int write_json_plain(const struct cov_model *m, FILE *f) {
  return ucov_json_write(m, f, NULL);
}

static void print_diff(const struct cov_diff *d) {
  printf("against the baseline:");
  for (int cat = 1; cat < COV_DIFF_CATEGORIES; cat++)
    printf(" %s %" PRIu64, cov_category_name[cat], d->totals[cat]);
  printf("\n");
}

/* What a command's parse and reading left to free. */
static void release(struct cov_model *m, struct input_opts *in, struct outputs *out) {
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

/* Options that belong to other commands: a usage error naming the first. */
static int only_for(const char *what, const char *opt, const void *given) {
  if (!given)
    return 0;
  UCOV_ERR("--%s is an option of %s\n", opt, what);
  cli_try_help();
  return -1;
}

int cmd_report(int argc, char **argv) {
  struct cov_model m, base;
  struct input_opts in = {0};
  struct outputs out = {.fail_under = {-1, -1, -1, -1},
                        .excl = {.markers = 1, .cmd = "ucov report"}};
  int quiet = 0;
  cov_init(&m);
  cov_init(&base);
  int first = parse(argc, argv, report_usage, &m, &in, &out, NULL, &quiet);
  if (first < 0) {
    release(&m, &in, &out);
    return UCOV_EXIT_USAGE;
  }
  int64_t since = 0;
  if (out.fail_under[3] >= 0 && !out.diff) {
    UCOV_ERR("--fail-under-patch needs --diff: the patch is the diff's changed lines\n");
    cli_try_help();
    release(&m, &in, &out);
    return UCOV_EXIT_USAGE;
  }
  if (only_for("ucov push", "shard", out.shard) ||
      only_for("ucov push", "revision", out.revision) ||
      only_for("ucov push", "config", out.config) ||
      (!out.store && (only_for("ucov report --store", "build", out.build) ||
                      only_for("ucov report --store", "test", out.tests) ||
                      only_for("ucov report --store", "since", out.since)))) {
    release(&m, &in, &out);
    return UCOV_EXIT_USAGE;
  }
  if (out.since && parse_since(out.since, &since)) {
    UCOV_ERR("--since wants seconds since the epoch, YYYY-MM-DD[THH:MM[:SS]] or Nd/Nh/Nm, not "
             "'%s'\n",
             out.since);
    cli_try_help();
    release(&m, &in, &out);
    return UCOV_EXIT_USAGE;
  }
  int bad = 0;
  if (out.store) {
    char msg[512];
    struct store *st = store_open_existing(out.store, msg, sizeof(msg));
    struct store_filter sf = {out.build, out.tests, out.n_tests, since};
    if (!st || store_read(st, &sf, &m, msg, sizeof(msg))) {
      UCOV_ERR("%s\n", msg);
      bad++;
    }
    store_close(st);
  }
  bad += read_inputs(&m, argc, argv, first, &in, &out.excl, 0);
  struct cov_diff diff = {0};
  int have_diff = 0;
  struct udiff *ud = NULL;
  if (out.diff) {
    char msg[512];
    if (udiff_read(out.diff, &ud, msg, sizeof(msg))) {
      fprintf(stderr, "ucov report: %s (no differential categories)\n", msg);
      bad++;
    }
  }
  if (out.n_baselines) {
    /* The baseline goes through the same path rules. */
    base.maps = m.maps;
    base.n_maps = m.n_maps;
    base.include = m.include;
    base.n_include = m.n_include;
    base.exclude = m.exclude;
    base.n_exclude = m.n_exclude;
    base.root = m.root;
    /* Its exclusions (markers, patterns, the line rule) by its own text:
     * with a diff, the current sources with the diff undone. */
    struct cov_excl bx = out.excl;
    char *cwd = m.root ? NULL : getcwd(NULL, 0);
    struct old_text ot = {ud, m.root ? m.root : cwd};
    if (ud) {
      bx.source = baseline_text;
      bx.source_arg = &ot;
    }
    bad += read_inputs(&base, out.n_baselines, out.baselines, 0, &in, &bx, 0);
    free(cwd);
    base.maps = NULL;
    base.n_maps = base.n_include = base.n_exclude = 0;
    base.include = base.exclude = NULL;
    base.root = NULL;
  }
  if (out.n_baselines || ud) {
    if (cov_diff_compute(&diff, &m, out.n_baselines ? &base : NULL, ud, m.root)) {
      UCOV_ERR("out of memory\n");
      bad++;
    } else {
      have_diff = 1;
      the_diff = &diff;
    }
  }
  udiff_free(ud);
  the_title = out.title ? out.title : "ucov coverage report";
  int err = 0;
  if (out.lcov)
    err |= write_one(out.lcov, out.lcov_format == 2 ? lcov_write2 : lcov_write, &m);
  if (out.cobertura)
    err |= write_one(out.cobertura, cobertura_write, &m);
  if (out.json)
    err |= write_one(out.json, write_json, &m);
  if (out.html)
    err |= write_one(out.html, write_html, &m);
  if (out.json_summary)
    err |= write_one(out.json_summary, write_json_summary, &m);
  if (out.text)
    err |= write_one(out.text, write_text, &m);
  if (out.markdown)
    err |= write_one(out.markdown, write_markdown, &m);
  if (out.sonarqube)
    err |= write_one(out.sonarqube, sonarqube_write, &m);
  if (out.coveralls)
    err |= write_one(out.coveralls, coveralls_write, &m);
  if (out.jacoco)
    err |= write_one(out.jacoco, write_jacoco, &m);
  if (out.cobertura_split) {
    char msg[512];
    if (cobertura_write_split(&m, out.cobertura_split, msg, sizeof(msg))) {
      fprintf(stderr, "ucov report: %s\n", msg);
      err = -1;
    }
  }
  int any_output = out.lcov || out.cobertura || out.json || out.html || out.json_summary ||
                   out.markdown || out.sonarqube || out.coveralls || out.jacoco ||
                   out.cobertura_split || out.text;
  if (!quiet && !any_output) { /* the table, then the totals */
    if (m.n_files)
      err |= write_one("-", write_text, &m);
    print_summary(&m);
    if (have_diff)
      print_diff(&diff);
  }
  if (out.summary)
    lcov_summary(&m, stderr);
  int gate = gates(&m, out.fail_under, have_diff && diff.have_patch ? &diff : NULL);
  if (have_diff)
    cov_diff_free(&diff);
  the_diff = NULL;
  cov_free(&base);
  release(&m, &in, &out);
  /* (an input not read: the figures are not the build's, no gate is judged on them) */
  return err || bad ? UCOV_EXIT_FAIL : gate ? gate : UCOV_EXIT_OK;
}

int cmd_merge(int argc, char **argv) {
  struct cov_model m;
  struct input_opts in = {0};
  struct outputs out = {.excl = {.markers = 1, .cmd = "ucov merge"}};
  const char *dest = NULL;
  int quiet = 0;
  cov_init(&m);
  int first = parse(argc, argv, merge_usage, &m, &in, &out, &dest, &quiet);
  if (first >= 0 && !dest) {
    UCOV_ERR("needs -o FILE\n");
    cli_try_help();
    first = -1;
  }
  if (first >= 0 && (only_for("ucov report and ucov push", "store", out.store) ||
                     only_for("ucov push", "shard", out.shard) ||
                     only_for("ucov push", "revision", out.revision) ||
                     only_for("ucov push", "config", out.config) ||
                     only_for("ucov report --store", "build", out.build) ||
                     only_for("ucov report and ucov push", "test", out.tests) ||
                     only_for("ucov report --store", "since", out.since)))
    first = -1;
  if (first < 0) {
    release(&m, &in, &out);
    return UCOV_EXIT_USAGE;
  }
  int bad = read_inputs(&m, argc, argv, first, &in, &out.excl, 0);
  size_t n = strlen(dest);
  int json = n > 5 && strcmp(dest + n - 5, ".json") == 0;
  int err = write_one(dest,
                      json                   ? write_json_plain
                      : out.lcov_format == 2 ? lcov_write2
                                             : lcov_write,
                      &m);
  release(&m, &in, &out);
  return err || bad ? UCOV_EXIT_FAIL : UCOV_EXIT_OK;
}

static const char push_usage[] =
    "usage: ucov push INPUT... [--store URL] [--test NAME] [--shard S] [--revision R]\n"
    "                 [--config C]\n"
    "\n"
    "Add coverage INPUTs (anything `ucov report` reads) to a coverage store, under\n"
    "a build (--revision and --config: every program pushed for them, a test\n"
    "program each, is one build) and a context (--test, --shard, this host, the\n"
    "hour). The notes files (.gcno) of the build tree that no run reached are\n"
    "pushed at zero. Counts add up; the same push again counts once. An\n"
    "input that cannot be read (a .gcda whose stamp does not match its notes, a\n"
    "corrupt file) refuses the whole push: nothing is stored.\n"
    "\n"
    "  --store URL          a SQLite file (sqlite:PATH or a path; default $UCOV_STORE,\n"
    "                       else ./ucov.db) or postgresql://... (libpq)\n"
    "  --test NAME          the test these counts are from\n"
    "  --shard S            the shard, machine or job they are from\n"
    "  --revision R         the sources' revision (a commit)\n"
    "  --config C           the build's configuration (debug, asan, ...), if several\n"
    "  --binary, --modules, --prefix-map, --include, --exclude, --gcov-tool: as for\n"
    "  ucov report\n"
    "  -q, --quiet\n"
    "  -h, --help\n";

/* A push's progress on a terminal: rows staged, then the merge. */
static void push_progress(void *arg, uint64_t done, uint64_t total) {
  (void)arg;
  fprintf(stderr, "\r%s: %" PRIu64 " of %" PRIu64 " rows staged%s", ucov_cmd, done, total,
          done == total ? ", merging...\n" : "");
}

/* One push, said on stderr. An exit status. */
static int push_one(struct store *st, const struct cov_model *m, const struct store_push *p,
                    int quiet) {
  char msg[512];
  int r = store_push(st, m, p, msg, sizeof(msg));
  if (r < 0) {
    UCOV_ERR("%s: nothing pushed\n", msg);
    return UCOV_EXIT_FAIL;
  }
  if (!quiet) {
    struct cov_summary sum;
    cov_summary(m, &sum);
    const char *t = p->test && *p->test ? p->test : NULL;
    if (r == 1)
      UCOV_ERR("%s%s%salready in the store (the same push): counted once\n", t ? "test " : "",
               t ? t : "", t ? ": " : "");
    else
      UCOV_ERR("pushed %s%s%s%zu files, %" PRIu64 " lines, %" PRIu64 " functions, %" PRIu64
               " branches into %s\n",
               t ? "test " : "", t ? t : "", t ? ": " : "", m->n_files, sum.lines_found,
               sum.funcs_found, sum.branches_found, store_engine(st));
  }
  return UCOV_EXIT_OK;
}

int cmd_push(int argc, char **argv) {
  struct cov_model m;
  struct input_opts in = {0};
  struct outputs out = {.excl = {.markers = 0, .cmd = "ucov push"}};
  int quiet = 0;
  cov_init(&m);
  int first = parse(argc, argv, push_usage, &m, &in, &out, NULL, &quiet);
  if (first >= 0 && optind >= argc) {
    UCOV_ERR("no INPUT\n");
    cli_try_help();
    first = -1;
  }
  if (first >= 0 && (only_for("ucov report --store", "build", out.build) ||
                     only_for("ucov report --store", "since", out.since))) {
    first = -1;
  }
  if (first >= 0 && out.n_tests > 1) {
    UCOV_ERR("one --test per push\n");
    cli_try_help();
    first = -1;
  }
  int any_output = out.lcov || out.cobertura || out.json || out.html || out.json_summary ||
                   out.markdown || out.sonarqube || out.coveralls || out.jacoco ||
                   out.cobertura_split || out.n_baselines || out.diff || out.text;
  if (first >= 0 && any_output) {
    UCOV_ERR("push writes no report: the outputs are ucov report's\n");
    cli_try_help();
    first = -1;
  }
  if (first < 0) {
    release(&m, &in, &out);
    return UCOV_EXIT_USAGE;
  }
  /* An lcov tracefile's test names (TN:) are contexts of their own, unless
   * --test names one for everything. */
  char **names = NULL;
  size_t n_names = 0;
  int *is_lcov = calloc((size_t)(argc - first) + 1, sizeof(*is_lcov));
  for (int i = first; !out.n_tests && is_lcov && i < argc; i++) {
    char **t;
    size_t nt;
    struct stat sb;
    size_t l = strlen(argv[i]);
    if (stat(argv[i], &sb) || !S_ISREG(sb.st_mode) || l < 5 || strcmp(argv[i] + l - 5, ".info") ||
        lcov_tests(argv[i], &t, &nt))
      continue;
    is_lcov[i - first] = 1;
    for (size_t k = 0; k < nt; k++) {
      size_t j = 0;
      while (j < n_names && strcmp(names[j], t[k]))
        j++;
      if (j < n_names || !*t[k] || !grow_list((void **)&names, (int)n_names)) {
        free(t[k]);
        continue;
      }
      names[n_names++] = t[k];
    }
    free(t);
  }
  int bad = 0;
  /* the gcov units read natively: their counters are stored with the lines */
  struct store_units units = {0};
  in.unit = store_units_add, in.unit_arg = &units;
  m.path_seen = store_units_path, m.path_seen_arg = &units;
  if (!n_names) {
    bad = read_inputs(&m, argc, argv, first, &in, &out.excl, 1);
  } else {
    /* the other inputs, and the tracefiles' records without a name */
    struct input_session *s = input_session_new(&in);
    for (int i = first; s && i < argc; i++)
      bad += is_lcov[i - first] ? lcov_read_test(&m, argv[i], "") : input_read(s, &m, argv[i]);
    if (s) {
      bad += input_add_build_notes(s);
      bad += input_finish(s, &m);
      input_session_free(s);
    } else {
      UCOV_ERR("out of memory\n");
      bad++;
    }
    cov_finish(&m);
  }
  int status = UCOV_EXIT_OK;
  char msg[512], *ids = NULL;
  struct store *st = NULL;
  if (bad) {
    UCOV_ERR("%d input%s could not be read: nothing pushed\n", bad, bad == 1 ? "" : "s");
    status = UCOV_EXIT_FAIL;
  } else if (!(st = store_open(out.store, msg, sizeof(msg))) ||
             store_build_ids(in.binaries, in.n_binaries, argv + first, argc - first, &ids, msg,
                             sizeof(msg))) {
    UCOV_ERR("%s: nothing pushed\n", msg);
    status = UCOV_EXIT_FAIL;
  }
  struct store_push p = {.test = out.n_tests ? out.tests[0] : NULL,
                         .shard = out.shard,
                         .revision = out.revision,
                         .config = out.config,
                         .build_ids = ids,
                         .root = m.root,
                         .units = &units,
                         .progress = !quiet && isatty(2) ? push_progress : NULL};
  if (status == UCOV_EXIT_OK && (m.n_files || !n_names))
    status = push_one(st, &m, &p, quiet);
  p.units = NULL;
  /* then each test name's records, a push each */
  for (size_t k = 0; status == UCOV_EXIT_OK && k < n_names; k++) {
    struct cov_model t;
    cov_init(&t);
    t.maps = m.maps, t.n_maps = m.n_maps, t.include = m.include, t.n_include = m.n_include;
    t.exclude = m.exclude, t.n_exclude = m.n_exclude;
    for (int i = first; i < argc; i++)
      if (is_lcov[i - first])
        bad += lcov_read_test(&t, argv[i], names[k]);
    cov_finish(&t);
    p.test = names[k];
    status = bad ? UCOV_EXIT_FAIL : push_one(st, &t, &p, quiet);
    t.maps = NULL, t.n_maps = t.n_include = t.n_exclude = 0, t.include = t.exclude = NULL;
    cov_free(&t);
  }
  for (size_t k = 0; k < n_names; k++)
    free(names[k]);
  free(names);
  free(is_lcov);
  free(ids);
  store_close(st);
  store_units_free(&units);
  release(&m, &in, &out);
  return status;
}
