/* SPDX-License-Identifier: MIT */
/*
 * ucov trace | exec --serial PATH -- COMMAND...: run a command in a kernel on
 * a serial line (the control protocol's COMMAND request). trace runs it under
 * the kernel task's KCOV device in PC mode and prints the PCs it executed;
 * exec prints the kernel's answer.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "proto/client.h"
#include "proto/protocol.h"

static const char trace_usage[] =
    "usage: ucov trace --serial PATH [-o DIR] [--] COMMAND...\n"
    "\n"
    "Run COMMAND in the kernel on the serial line PATH (a Unix socket, as QEMU's\n"
    "-serial unix:PATH,server makes, or a tty), traced as a KCOV client traces\n"
    "itself (KCOV_TRACE_PC on the kernel task that runs it), and print the PCs it\n"
    "executed, one a line. The kernel's answer goes to stderr.\n"
    "\n"
    "  -s, --serial PATH\n"
    "  -d, --dev PATH    a kernel behind a frame device instead (ucov.ko's /dev/ucov)\n"
    "  -o, --output DIR  also write DIR/trace.pcs and DIR/modules (the kernel's module\n"
    "                    map): `ucov report DIR` turns them into line coverage\n"
    "  -h, --help\n";
static const char exec_usage[] = "usage: ucov exec --serial PATH [--] COMMAND...\n"
                                 "\n"
                                 "Run COMMAND in the kernel on the serial line PATH and print "
                                 "its answer.\n";

/* Join argv into one command line. */
static char *join(int argc, char **argv, size_t *len) {
  size_t n = 0;
  for (int i = 0; i < argc; i++)
    n += strlen(argv[i]) + 1;
  char *s = malloc(n + 1), *p = s;
  for (int i = 0; s && i < argc; i++)
    p += sprintf(p, "%s%s", i ? " " : "", argv[i]);
  *len = s ? (size_t)(p - s) : 0;
  return s;
}

/* The COMMAND request's payload (u32 flags, the command line) into *req:
 * its length, or 0 (said: too long). */
static size_t command_request(int argc, char **argv, int trace, uint8_t **req) {
  size_t len;
  char *cmd = join(argc, argv, &len);
  *req = malloc(len + 4);
  if (!cmd || !*req || len > UCOV_PROTO_MAX_REQUEST - 4) {
    UCOV_ERR("the command is too long (at most %d bytes)\n", UCOV_PROTO_MAX_REQUEST - 4);
    free(cmd);
    free(*req);
    *req = NULL;
    return 0;
  }
  ucov_put32(*req, trace ? UCOV_COMMAND_TRACE : 0);
  memcpy(*req + 4, cmd, len);
  free(cmd);
  return len + 4;
}

/* trace: the PCs that follow the answer's text (a KCOV buffer: u64 count,
 * u64 PCs) printed, and with out written to out/trace.pcs. The status. */
static int print_trace(const char *label, const uint8_t *buf, size_t blen, const char *out) {
  uint64_t count = 0;
  if (blen >= 8)
    memcpy(&count, buf, 8);
  if (blen < 8 || count > (blen - 8) / 8) {
    diag_at(DIAG_ERROR, label, 0, "malformed trace");
    return UCOV_EXIT_FAIL;
  }
  FILE *pcs = NULL;
  if (out) {
    char *path = NULL;
    mkdir(out, 0755);
    if (asprintf(&path, "%s/trace.pcs", out) > 0)
      pcs = fopen(path, "w");
    if (!pcs) {
      diag_at(DIAG_ERROR, path ? path : out, 0, "cannot write");
      free(path);
      return UCOV_EXIT_FAIL;
    }
    free(path);
  }
  for (uint64_t i = 0; i < count; i++) {
    uint64_t pc;
    memcpy(&pc, buf + 8 + 8 * i, 8);
    printf("0x%llx\n", (unsigned long long)pc);
    if (pcs)
      fprintf(pcs, "0x%llx\n", (unsigned long long)pc);
  }
  return pcs && fclose(pcs) != 0 ? UCOV_EXIT_FAIL : UCOV_EXIT_OK;
}

/* The answer to COMMAND: its text printed, and for trace its PCs (and the
 * module map into out). The status. */
static int command_answer(struct ucov_ctl *ctl, struct ucov_ctl_reply *r, int trace,
                          const char *out) {
  uint32_t text = 0;
  if (r->status) {
    err_target(ctl->label, (char *)r->data);
    return UCOV_EXIT_FAIL;
  }
  if (r->len < 4 || (text = ucov_get32(r->data)) > r->len - 4) {
    diag_at(DIAG_ERROR, ctl->label, 0, "malformed answer");
    return UCOV_EXIT_FAIL;
  }
  print_text(trace ? stderr : stdout, r->data + 4, text); /* (escaped but for lines) */
  if (!trace)
    return UCOV_EXIT_OK;
  int status = print_trace(ctl->label, r->data + 4 + text, r->len - 4 - text, out);
  if (out && !status) {
    struct ucov_ctl_reply m;
    char err[512];
    if (ucov_ctl_call(ctl, UCOV_OP_MODULES, NULL, 0, &m, err, sizeof(err)) || m.status ||
        write_object_file(out, "modules", m.data, m.len, NULL)) {
      diag_at(DIAG_ERROR, ctl->label, 0, "no module map");
      status = UCOV_EXIT_FAIL;
    }
    ucov_ctl_reply_free(&m);
  }
  return status;
}

static int run_command(int argc, char **argv, int trace) {
  static const struct option opts[] = {CLI_TARGET_OPTIONS,
                                       {"output", required_argument, 0, 'o'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  struct cli_target t = {0};
  const char *out = NULL;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, trace ? "+s:d:o:h" : "+s:d:h", opts, NULL)) != -1) {
    int r = cli_target_option(&t, c, optarg, CLI_TARGET_SERIAL);
    if (r < 0)
      return cli_try_help();
    if (r > 0)
      continue;
    if (c == 'h') {
      fputs(trace ? trace_usage : exec_usage, stdout);
      return UCOV_EXIT_OK;
    }
    if (c != 'o')
      return cli_try_help();
    if (!trace) {
      UCOV_ERR("-o is an option of ucov trace\n");
      return cli_try_help();
    }
    out = optarg;
  }
  if (!t.serial || optind >= argc) {
    UCOV_ERR("needs --serial PATH and a COMMAND\n");
    return cli_try_help();
  }
  uint8_t *req;
  size_t len = command_request(argc - optind, argv + optind, trace, &req);
  if (!len)
    return UCOV_EXIT_USAGE;
  struct ucov_ctl ctl;
  struct ucov_ctl_reply r;
  char err[512];
  if (ucov_ctl_open_serial(t.serial, &ctl, err, sizeof(err)) ||
      ucov_ctl_call(&ctl, UCOV_OP_COMMAND, req, len, &r, err, sizeof(err))) {
    UCOV_ERR("%s\n", err);
    free(req);
    ucov_ctl_close(&ctl);
    return UCOV_EXIT_FAIL;
  }
  free(req);
  int status = command_answer(&ctl, &r, trace, out);
  ucov_ctl_reply_free(&r);
  ucov_ctl_close(&ctl);
  return status;
}

int cmd_trace(int argc, char **argv) {
  return run_command(argc, argv, 1);
}

int cmd_exec(int argc, char **argv) {
  return run_command(argc, argv, 0);
}
