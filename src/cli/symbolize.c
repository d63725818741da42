/* SPDX-License-Identifier: MIT */
/*
 * ucov symbolize: PCs to function+offset.
 *
 * Input lines start with a hexadecimal PC (as KCOV clients and syzkaller's
 * rawcover print them); the rest of the line is kept. With --modules, a PC is
 * first placed in its module (PIE, ASLR, shared libraries); with --binary
 * alone, PCs are taken as addresses of that ELF file. EXT record tags in the
 * top byte are ignored for the lookup. PCs are return addresses, so the
 * function is the one containing pc-1.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/dwarf.h"
#include "symbols/elfsym.h"
#include "symbols/modcache.h"
#include "symbols/modmap.h"
#include "cli.h"
#include "ucov/kcov.h"

static const char sym_usage[] =
    "usage: ucov symbolize [--modules FILE] [--binary ELF] [--lines | --addr2line] [FILE...]\n"
    "       ucov symbolize --call-sites --binary ELF\n"
    "\n"
    "Read lines that start with a hexadecimal PC (stdin when no FILE) and print\n"
    "  PC FUNCTION+0xOFFSET [MODULE] REST-OF-LINE\n"
    "\n"
    "  -m, --modules FILE  module map of the traced process (ucov_modules_write)\n"
    "  -b, --binary ELF    without a module map: PCs are addresses of this file\n"
    "  -l, --lines         PC FILE:LINE:COLUMN FUNCTION, then one indented line per\n"
    "                      function it was inlined into (from DWARF; PCs are return\n"
    "                      addresses: pc-1 is looked up)\n"
    "  -a, --addr2line     addresses (not return addresses), printed as\n"
    "                      `addr2line -f -i` does: FUNCTION, FILE:LINE per inline level\n"
    "  -c, --call-sites    list the address of every call (and tail jump) to the\n"
    "                      trace-pc hook in ELF\n"
    "  -h, --help          this text\n";

/* Each module's DWARF and symbols, loaded once per path. */
static struct modcache cache;

static const struct dw_module *dwarf_of(const char *path) {
  const struct dw_module *m = NULL;
  int r = modcache_dwarf(&cache, path, &m);
  if (r == 1 && !m->has_dwarf) /* (said once, when loaded) */
    diag_at(DIAG_ERROR, path, 0, "no DWARF debug info (build with -g)");
  return r >= 0 ? m : NULL;
}

enum mode { MODE_SYMBOL, MODE_LINES, MODE_ADDR2LINE };
static enum mode mode;

/* The frames of one address, in the chosen format. */
static void print_frames(const char *pc_text, size_t pc_len, const char *path, uint64_t addr,
                         const char *rest) {
  struct dw_frame fr[32];
  const struct dw_module *m = path ? dwarf_of(path) : NULL;
  int n = m ? dw_lookup(m, addr, fr, 32) : 0;
  if (mode == MODE_ADDR2LINE) {
    if (!n)
      printf("??\n??:0\n");
    for (int i = 0; i < n; i++) {
      printf("%s\n%s:", fr[i].function ? fr[i].function : "??", fr[i].file ? fr[i].file : "??");
      if (!fr[i].file)
        printf("0\n");
      else if (fr[i].line)
        printf("%" PRIu32 "\n", fr[i].line);
      else
        printf("?\n"); /* line 0: code of no source line, as addr2line prints it */
    }
    return;
  }
  fwrite(pc_text, 1, pc_len, stdout);
  if (!n)
    printf(" ??:0 ??");
  for (int i = 0; i < n; i++)
    printf("%s%s:%" PRIu32 ":%" PRIu32 " %s", i ? "\n  inlined into " : " ",
           fr[i].file ? fr[i].file : "??", fr[i].line, fr[i].col,
           fr[i].function ? fr[i].function : "??");
  fputs(rest, stdout);
}

static const struct elfsym_table *symbols_of(const char *path) {
  const struct elfsym_table *t = NULL;
  modcache_symbols(&cache, path, &t);
  return t;
}

static void symbolize_line(char *line, const struct modmap *mods, const char *binary) {
  char *end;
  uint64_t rec = strtoull(line, &end, 16);
  if (end == line) {
    fputs(line, stdout);
    return;
  }
  uint64_t pc = KCOV_RECORD_PC(rec); /* (a kernel's PCs keep their top byte) */
  const char *path = binary;
  uint64_t addr = pc;
  if (mods) {
    const struct modmap_entry *e = modmap_find(mods, pc);
    path = e ? e->path : NULL;
    addr = e ? pc - e->bias : 0;
  }
  if (mode != MODE_SYMBOL) {
    print_frames(line, (size_t)(end - line), path, mode == MODE_LINES && addr ? addr - 1 : addr,
                 end);
    return;
  }
  const struct elfsym_table *t = path ? symbols_of(path) : NULL;
  const struct elfsym *s = t && addr ? elfsym_lookup(t, addr - 1) : NULL;
  const char *mod = path ? strrchr(path, '/') : NULL;
  mod = mod ? mod + 1 : path;
  fwrite(line, 1, (size_t)(end - line), stdout);
  if (s)
    printf(" %s+0x%" PRIx64 " [%s]", s->name, addr - s->addr, mod);
  else
    printf(" ?? [%s]", mod ? mod : "?");
  fputs(end, stdout);
}

static int symbolize_file(FILE *f, const struct modmap *mods, const char *binary) {
  char *line = NULL;
  size_t cap = 0;
  while (getline(&line, &cap, f) > 0)
    symbolize_line(line, mods, binary);
  free(line);
  return ferror(f) ? -1 : 0;
}

/* --call-sites: the binary's hook call sites, one a line. The exit status. */
static int print_call_sites(const char *binary) {
  if (!binary) {
    UCOV_ERR("--call-sites needs --binary\n");
    return UCOV_EXIT_USAGE;
  }
  uint64_t *v;
  long n = dw_call_sites(binary, &v);
  if (n < 0) {
    if (n == -2)
      dw_say_no_hook(binary);
    return UCOV_EXIT_FAIL;
  }
  for (long i = 0; i < n; i++)
    printf("0x%" PRIx64 "\n", v[i]);
  free(v);
  return UCOV_EXIT_OK;
}

/* The PCs of each input file after optind (none: standard input). The exit status. */
static int symbolize_inputs(int argc, char **argv, const struct modmap *mods, const char *binary) {
  int status = UCOV_EXIT_OK;
  if (optind == argc && symbolize_file(stdin, mods, binary) != 0)
    status = UCOV_EXIT_FAIL;
  for (int i = optind; i < argc; i++) {
    FILE *f = fopen(argv[i], "r");
    if (!f) {
      diag_at(DIAG_ERROR, argv[i], 0, "%m");
      status = UCOV_EXIT_FAIL;
      continue;
    }
    if (symbolize_file(f, mods, binary) != 0)
      status = UCOV_EXIT_FAIL;
    fclose(f);
  }
  return status;
}

int cmd_symbolize(int argc, char **argv) {
  static const struct option opts[] = {{"modules", required_argument, 0, 'm'},
                                       {"binary", required_argument, 0, 'b'},
                                       {"lines", no_argument, 0, 'l'},
                                       {"addr2line", no_argument, 0, 'a'},
                                       {"call-sites", no_argument, 0, 'c'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  const char *modules = NULL, *binary = NULL;
  int c, sites = 0;
  mode = MODE_SYMBOL;
  while ((c = getopt_long(argc, argv, "m:b:lach", opts, NULL)) != -1) {
    switch (c) {
    case 'l':
      mode = MODE_LINES;
      break;
    case 'a':
      mode = MODE_ADDR2LINE;
      break;
    case 'c':
      sites = 1;
      break;
    case 'm':
      modules = optarg;
      break;
    case 'b':
      binary = optarg;
      break;
    case 'h':
      fputs(sym_usage, stdout);
      return UCOV_EXIT_OK;
    default:
      return cli_try_help();
    }
  }
  if (!modules && !binary) {
    UCOV_ERR("needs --modules or --binary\n");
    return cli_try_help();
  }
  if (sites)
    return print_call_sites(binary);
  struct modmap mods;
  if (modules) {
    FILE *f = fopen(modules, "r");
    if (!f) {
      diag_at(DIAG_ERROR, modules, 0, "%m");
      return UCOV_EXIT_FAIL;
    }
    int r = modmap_read(&mods, f, modules);
    fclose(f);
    if (r != 0)
      return UCOV_EXIT_FAIL;
  }
  /* A binary that cannot be read is an error now, not a column of ?? later. */
  if (binary && !dwarf_of(binary)) {
    if (modules)
      modmap_free(&mods);
    return UCOV_EXIT_FAIL;
  }
  int status = symbolize_inputs(argc, argv, modules ? &mods : NULL, binary);
  if (modules)
    modmap_free(&mods);
  modcache_free(&cache);
  return status;
}
