/* SPDX-License-Identifier: MIT */
/*
 * ucov merge: coverage inputs added up into one lcov tracefile or ucov JSON
 * (the formats of report_opts.c's table that merge writes).
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
#include "diffcov/diff.h"
#include "base/exclude.h"
#include "readers/readers.h"
#include "readers/inputs.h"
#include "base/model.h"
#include "report_opts.h"
#include "store/store.h"

static const char merge_usage[] =
    "usage: ucov merge INPUT... -o FILE\n"
    "\n"
    "Add up coverage INPUTs (as `ucov report` reads them) into one lcov tracefile, or\n"
    "ucov JSON when FILE ends in .json. Merging is associative and commutative:\n"
    "shards merge in any order to the same result.\n"
    "\n"
    "  -o, --output FILE\n"
    "  --lcov-format 1|2    the tracefile's form: lcov 1.x (default) or 2.x records\n"
    "  --binary, --prefix-map, --include, --exclude, --gcov-tool, --no-demangle, the\n"
    "  exclusions\n"
    "  (--no-markers, --exclude-*-by-pattern, --exclude-*-branches): as for ucov report\n"
    "  -q, --quiet\n"
    "  -h, --help\n";

int cmd_merge(int argc, char **argv) {
  struct cov_model m;
  struct input_opts in = {0};
  struct outputs out = {.excl = {.markers = 1, .cmd = "ucov merge"}};
  const char *dest = NULL;
  int quiet = 0;
  cov_init(&m);
  int first = report_parse(argc, argv, merge_usage, &m, &in, &out, &dest, &quiet);
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
    report_release(&m, &in, &out);
    return UCOV_EXIT_USAGE;
  }
  int bad = report_read_inputs(&m, argc, argv, first, &in, &out.excl, 0);
  size_t n = strlen(dest);
  int json = n > 5 && strcmp(dest + n - 5, ".json") == 0;
  struct report_ctx ctx = {.m = &m, .lcov_format = out.lcov_format};
  int err = report_write_one(dest, &report_formats[json ? FMT_JSON : FMT_LCOV], &ctx);
  report_release(&m, &in, &out);
  return err || bad ? UCOV_EXIT_FAIL : UCOV_EXIT_OK;
}
