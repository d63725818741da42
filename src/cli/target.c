/* SPDX-License-Identifier: MIT */
/*
 * The target a command talks to (--pid, --serial, --dev), one parser for
 * every command that has one (ls, pull, reset, collect, exec, trace,
 * mount); and a target's text said on a terminal, escaped.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "proto/client.h"
#include "proto/protocol.h"

int cli_target_option(struct cli_target *t, int ch, const char *arg, unsigned allowed) {
  if (ch != 'p' && ch != 's' && ch != 'd')
    return 0;
  if (ch == 'p' && !(allowed & CLI_TARGET_PID)) {
    UCOV_ERR("--pid: this command's target is a kernel's serial line or device\n");
    return -1;
  }
  if (ch != 'p' && !(allowed & CLI_TARGET_SERIAL)) {
    UCOV_ERR("--%s: this command's target is a process (--pid N)\n", ch == 's' ? "serial" : "dev");
    return -1;
  }
  if (ch == 'p' && ucov_parse_pid(arg, &t->pid)) {
    UCOV_ERR("bad pid '%s'\n", arg);
    return -1;
  }
  if (ch != 'p')
    t->serial = arg; /* (--dev: the same frames; the device is opened as it is) */
  return 1;
}

int cli_target_check(const struct cli_target *t, int optional) {
  if (t->pid && t->serial) {
    UCOV_ERR("--pid and --serial exclude each other\n");
    return -1;
  }
  if (!t->pid && !t->serial && !optional) {
    UCOV_ERR("one of --pid and --serial is required\n");
    return -1;
  }
  return 0;
}

int cli_target_open(const struct cli_target *t, struct ucov_ctl *c) {
  char err[512];
  if (ucov_ctl_open_target(t->pid, t->serial, c, err, sizeof(err))) {
    UCOV_ERR("%s\n", err);
    return -1;
  }
  return 0;
}

long cli_list_objects(struct ucov_ctl *c, struct ucov_ctl_object **objs, int quiet) {
  struct ucov_ctl_reply r;
  char err[512];
  if (ucov_ctl_call(c, UCOV_OP_LIST, NULL, 0, &r, err, sizeof(err))) {
    if (!quiet)
      UCOV_ERR("%s\n", err);
    return -1;
  }
  long n = r.status ? -1 : ucov_ctl_parse_list(&r, objs);
  if (r.status && !quiet)
    err_target("list", (char *)r.data);
  else if (n < 0 && !r.status)
    UCOV_ERR("list: malformed reply\n");
  ucov_ctl_reply_free(&r);
  return n;
}

/* n bytes of s, escaped; lines: newlines and tabs kept as they are. */
static void put_escaped(FILE *f, const char *s, size_t n, int lines) {
  for (const unsigned char *p = (const unsigned char *)s; n--; p++) {
    if (lines && (*p == '\n' || *p == '\t'))
      fputc(*p, f);
    else if (*p == '\\' && !lines)
      fputs("\\\\", f);
    else if (*p == '\n')
      fputs("\\n", f);
    else if (*p == '\t')
      fputs("\\t", f);
    else if (*p < 0x20 || *p == 0x7f)
      fprintf(f, "\\x%02x", *p);
    else
      fputc(*p, f);
  }
}

void print_escaped(FILE *f, const char *s) {
  put_escaped(f, s, strlen(s), 0);
}

void print_text(FILE *f, const void *s, size_t n) {
  put_escaped(f, s, n, 1);
}

char *cli_escaped(const char *s) {
  char *out = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&out, &n);
  if (!f)
    return NULL;
  put_escaped(f, s, strlen(s), 0);
  if (fclose(f) != 0) {
    free(out);
    return NULL;
  }
  return out;
}

void err_target(const char *what, const char *text) {
  char *e = cli_escaped(text);
  diag_at(DIAG_ERROR, what, 0, "%s", e ? e : "(out of memory)");
  free(e);
}
