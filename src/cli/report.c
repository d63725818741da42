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
#include <unistd.h>

#include "cli.h"
#include "report/diff.h"
#include "report/formats.h"
#include "report/html.h"
#include "report/inputs.h"
#include "report/model.h"

static const char report_usage[] =
    "usage: ucov report INPUT... [--lcov FILE] [--cobertura FILE] [--json FILE] [--html FILE]\n"
    "\n"
    "Read coverage INPUTs and write reports; with no output option, print a summary.\n"
    "An INPUT is a directory written by `ucov pull` or a build (its .gcda, .profraw,\n"
    ".info, .json and PC dump files), a .gcda, a .profraw or .profdata (with\n"
    "--binary), an lcov tracefile, ucov JSON, or a trace: hex PCs a line (KCOV,\n"
    "syzkaller rawcover) or a KCOV buffer dump (.kcov), with --binary or --modules;\n"
    "kinds mix, and counts of the same lines add up.\n"
    "\n"
    "  --lcov FILE          an lcov tracefile (1.x records)\n"
    "  --lcov-format 1|2    lcov 2.x records instead (FNL/FNA, MCDC, VER, exception\n"
    "                       branches)\n"
    "  --summary            lcov's line, function and branch totals on stderr\n"
    "  --fail-under-line N, --fail-under-function N, --fail-under-branch N\n"
    "                       a gate: exit 4 (lines), 8 (functions), 16 (branches), OR'd,\n"
    "                       when that coverage is below N percent\n"
    "  --cobertura FILE     Cobertura XML (coverage-04.dtd)\n"
    "  --json FILE          ucov JSON (docs/formats.md)\n"
    "  --html FILE          one self-contained HTML page (sortable summary, sources)\n"
    "  --title TEXT         the HTML page's title\n"
    "  --baseline INPUT     differential coverage against an older INPUT (repeatable):\n"
    "                       each line's lcov 2 category (GNC UNC GBC LBC CBC UBC DCB DUB)\n"
    "  --binary PROG        the instrumented program of LLVM profiles and PC dumps\n"
    "                       (repeatable)\n"
    "  --modules MAP        the module map of the traced process, for PC dumps\n"
    "                       (ucov_modules_write; a pulled DIR/modules is used by itself)\n"
    "  --prefix-map OLD=NEW rewrite source paths starting with OLD (repeatable)\n"
    "  --include GLOB       keep only source paths matching GLOB (repeatable)\n"
    "  --exclude GLOB       drop source paths matching GLOB (repeatable)\n"
    "  --gcov-tool TOOL     read .gcda through this gcov (default: ucov reads\n"
    "                       GCC 12-15 notes itself)\n"
    "  -q, --quiet          no summary, no progress line\n"
    "  -h, --help\n"
    "\n"
    "gcov, llvm-cov and llvm-profdata may run UCOV_TOOL_TIMEOUT seconds (300) per call.\n"
    "Exit status: 0, 1 if an input could not be read (the report has the rest), 2 usage,\n"
    "4/8/16 (OR'd) a --fail-under gate missed.\n";

static const char merge_usage[] =
    "usage: ucov merge INPUT... -o FILE\n"
    "\n"
    "Add up coverage INPUTs (as `ucov report` reads them) into one lcov tracefile, or\n"
    "ucov JSON when FILE ends in .json. Merging is associative and commutative:\n"
    "shards merge in any order to the same result.\n"
    "\n"
    "  -o, --output FILE\n"
    "  --lcov-format 1|2    the tracefile's form: lcov 1.x (default) or 2.x records\n"
    "  --binary, --prefix-map, --include, --exclude, --gcov-tool: as for ucov report\n"
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
  O_FAIL_BRANCH
};

struct outputs {
  const char *lcov, *cobertura, *json, *html, *title;
  char **baselines;
  int n_baselines;
  int lcov_format; /* 1 or 2 */
  int summary;
  double fail_under[3]; /* lines, functions, branches: percent (negative: no gate) */
};

static int write_one(const char *path, int (*writer)(const struct cov_model *, FILE *),
                     const struct cov_model *m) {
  FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
  if (!f) {
    fprintf(stderr, "ucov: %s: %s\n", path, strerror(errno));
    return -1;
  }
  int err = writer(m, f);
  if (f != stdout && fclose(f))
    err = -1;
  else if (f == stdout && fflush(f))
    err = -1;
  if (err)
    fprintf(stderr, "ucov: %s: write error\n", path);
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
}

/*
 * The --fail-under gates: each kind below its percentage is said on stderr
 * and sets its bit of the exit status. No data of a kind passes its gate,
 * as gcovr's does.
 */
static int gates(const struct cov_model *m, const double *under) {
  struct cov_summary s;
  cov_summary(m, &s);
  static const char *const kind[3] = {"lines", "functions", "branches"},
                           *opt[3] = {"line", "function", "branch"};
  static const int bit[3] = {UCOV_EXIT_GATE_LINE, UCOV_EXIT_GATE_FUNCTION, UCOV_EXIT_GATE_BRANCH};
  uint64_t hit[3] = {s.lines_hit, s.funcs_hit, s.branches_hit},
           found[3] = {s.lines_found, s.funcs_found, s.branches_found};
  int status = 0;
  for (int k = 0; k < 3; k++) {
    if (under[k] < 0 || !found[k])
      continue;
    double pct = 100.0 * (double)hit[k] / (double)found[k];
    if (pct < under[k]) {
      fprintf(stderr, "ucov report: %s coverage %.2f%% is below --fail-under-%s %g\n", kind[k], pct,
              opt[k], under[k]);
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
}

/* Options both commands share; the rest by `extra`. Returns optind or -1. */
/* Room for one more pointer in a list of n; 0 (with a message) if there is none. */
static int grow_list(void **list, int n) {
  void *g = realloc(*list, (size_t)(n + 1) * sizeof(char *));
  if (!g) {
    fprintf(stderr, "ucov: out of memory\n");
    return 0;
  }
  *list = g;
  return 1;
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
      if (merge_out) {
        fputs(usage, stderr);
        return -1;
      }
      *(c == O_LCOV    ? &out->lcov
        : c == O_JSON  ? &out->json
        : c == O_HTML  ? &out->html
        : c == O_TITLE ? &out->title
                       : &out->cobertura) = optarg;
      break;
    case O_BASELINE:
      if (merge_out) {
        fputs(usage, stderr);
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
        fprintf(stderr, "ucov: --prefix-map wants OLD=NEW, not '%s'\n", optarg);
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
        fprintf(stderr, "ucov: --lcov-format is 1 or 2, not '%s'\n", optarg);
        return -1;
      }
      out->lcov_format = optarg[0] - '0';
      break;
    case O_SUMMARY:
      out->summary = 1;
      break;
    case O_FAIL_LINE:
    case O_FAIL_FUNCTION:
    case O_FAIL_BRANCH: {
      char *end;
      double v = strtod(optarg, &end);
      if (merge_out || end == optarg || *end || !(v >= 0 && v <= 100)) {
        fprintf(stderr, "ucov: a --fail-under gate is a percentage from 0 to 100, not '%s'\n",
                optarg);
        return -1;
      }
      out->fail_under[c - O_FAIL_LINE] = v;
      break;
    }
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
      fputs(usage, stderr);
      return -1;
    }
  }
  if (optind >= argc) {
    fprintf(stderr, "ucov: no INPUT\n%s", usage);
    return -1;
  }
  in->progress = !*quiet && isatty(2);
  return optind;
}

static int read_inputs(struct cov_model *m, int argc, char **argv, int first,
                       const struct input_opts *in) {
  int bad = 0;
  for (int i = first; i < argc; i++)
    bad += input_read(m, argv[i], in);
  bad += input_finish(m, in);
  cov_finish(m);
  return bad;
}

static const struct cov_diff *the_diff;

static int write_json(const struct cov_model *m, FILE *f) {
  return ucov_json_write(m, f, the_diff);
}

static const char *the_title;

static int write_html(const struct cov_model *m, FILE *f) {
  return html_write(m, f, the_title, the_diff);
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

int cmd_report(int argc, char **argv) {
  struct cov_model m, base;
  struct input_opts in = {0};
  struct outputs out = {.fail_under = {-1, -1, -1}};
  int quiet = 0;
  cov_init(&m);
  cov_init(&base);
  int first = parse(argc, argv, report_usage, &m, &in, &out, NULL, &quiet);
  if (first < 0) {
    cov_free(&m);
    free(in.binaries);
    free(out.baselines);
    return UCOV_EXIT_USAGE;
  }
  int bad = read_inputs(&m, argc, argv, first, &in);
  struct cov_diff diff = {0};
  int have_diff = 0;
  if (out.n_baselines) {
    /* The baseline goes through the same path rules. */
    base.maps = m.maps;
    base.n_maps = m.n_maps;
    base.include = m.include;
    base.n_include = m.n_include;
    base.exclude = m.exclude;
    base.n_exclude = m.n_exclude;
    bad += read_inputs(&base, out.n_baselines, out.baselines, 0, &in);
    base.maps = NULL;
    base.n_maps = base.n_include = base.n_exclude = 0;
    base.include = base.exclude = NULL;
    if (cov_diff_compute(&diff, &m, &base)) {
      fprintf(stderr, "ucov: out of memory\n");
      bad++;
    } else {
      have_diff = 1;
      the_diff = &diff;
    }
  }
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
  if (!quiet && !out.lcov && !out.cobertura && !out.json && !out.html) {
    print_summary(&m);
    if (have_diff)
      print_diff(&diff);
  }
  if (out.summary)
    lcov_summary(&m, stderr);
  int gate = gates(&m, out.fail_under);
  if (have_diff)
    cov_diff_free(&diff);
  the_diff = NULL;
  cov_free(&m);
  cov_free(&base);
  free(in.binaries);
  free(out.baselines);
  /* (an input not read: the figures are not the build's, no gate is judged on them) */
  return err || bad ? UCOV_EXIT_FAIL : gate ? gate : UCOV_EXIT_OK;
}

int cmd_merge(int argc, char **argv) {
  struct cov_model m;
  struct input_opts in = {0};
  struct outputs out = {0};
  const char *dest = NULL;
  int quiet = 0;
  cov_init(&m);
  int first = parse(argc, argv, merge_usage, &m, &in, &out, &dest, &quiet);
  if (first >= 0 && !dest) {
    fprintf(stderr, "ucov: merge needs -o FILE\n%s", merge_usage);
    first = -1;
  }
  if (first < 0) {
    cov_free(&m);
    free(in.binaries);
    return UCOV_EXIT_USAGE;
  }
  int bad = read_inputs(&m, argc, argv, first, &in);
  size_t n = strlen(dest);
  int json = n > 5 && strcmp(dest + n - 5, ".json") == 0;
  int err = write_one(dest,
                      json                   ? write_json_plain
                      : out.lcov_format == 2 ? lcov_write2
                                             : lcov_write,
                      &m);
  cov_free(&m);
  free(in.binaries);
  return err || bad ? UCOV_EXIT_FAIL : UCOV_EXIT_OK;
}
