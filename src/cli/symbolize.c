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

#include "../report/elfsym.h"
#include "../report/modmap.h"
#include "cli.h"
#include "ucov/kcov.h"

static const char sym_usage[] =
    "usage: ucov symbolize [--modules FILE] [--binary ELF] [FILE...]\n"
    "\n"
    "Read lines that start with a hexadecimal PC (stdin when no FILE) and print\n"
    "  PC FUNCTION+0xOFFSET [MODULE] REST-OF-LINE\n"
    "\n"
    "  -m, --modules FILE  module map of the traced process (ucov_modules_write)\n"
    "  -b, --binary ELF    without a module map: PCs are addresses of this file\n"
    "  -h, --help          this text\n";

/* Symbol tables, loaded once per module path. */
struct sym_cache {
  char *path;
  struct elfsym_table table;
  int ok;
};

static struct sym_cache *cache;
static size_t cache_n;

static const struct elfsym_table *symbols_of(const char *path) {
  for (size_t i = 0; i < cache_n; i++)
    if (strcmp(cache[i].path, path) == 0)
      return cache[i].ok ? &cache[i].table : NULL;
  cache = realloc(cache, (cache_n + 1) * sizeof(*cache));
  struct sym_cache *c = &cache[cache_n++];
  c->path = strdup(path);
  char err[512];
  c->ok = elfsym_load(&c->table, path, err, sizeof(err)) == 0;
  if (!c->ok)
    fprintf(stderr, "ucov symbolize: %s\n", err);
  return c->ok ? &c->table : NULL;
}

static void symbolize_line(char *line, const struct modmap *mods, const char *binary) {
  char *end;
  uint64_t rec = strtoull(line, &end, 16);
  if (end == line) {
    fputs(line, stdout);
    return;
  }
  uint64_t pc = rec & KCOV_RECORD_IP_MASK;
  const char *path = binary;
  uint64_t addr = pc;
  if (mods) {
    const struct modmap_entry *e = modmap_find(mods, pc);
    path = e ? e->path : NULL;
    addr = e ? pc - e->bias : 0;
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

int cmd_symbolize(int argc, char **argv) {
  static const struct option opts[] = {{"modules", required_argument, 0, 'm'},
                                       {"binary", required_argument, 0, 'b'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  const char *modules = NULL, *binary = NULL;
  int c;
  while ((c = getopt_long(argc, argv, "m:b:h", opts, NULL)) != -1) {
    switch (c) {
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
      fputs(sym_usage, stderr);
      return UCOV_EXIT_USAGE;
    }
  }
  if (!modules && !binary) {
    fprintf(stderr, "ucov symbolize: need --modules or --binary\n%s", sym_usage);
    return UCOV_EXIT_USAGE;
  }
  struct modmap mods;
  if (modules) {
    FILE *f = fopen(modules, "r");
    char err[512];
    if (!f) {
      fprintf(stderr, "ucov symbolize: %s: %m\n", modules);
      return UCOV_EXIT_FAIL;
    }
    int r = modmap_read(&mods, f, modules, err, sizeof(err));
    fclose(f);
    if (r != 0) {
      fprintf(stderr, "ucov symbolize: %s\n", err);
      return UCOV_EXIT_FAIL;
    }
  }
  int status = UCOV_EXIT_OK;
  if (optind == argc) {
    if (symbolize_file(stdin, modules ? &mods : NULL, binary) != 0)
      status = UCOV_EXIT_FAIL;
  }
  for (int i = optind; i < argc; i++) {
    FILE *f = fopen(argv[i], "r");
    if (!f) {
      fprintf(stderr, "ucov symbolize: %s: %m\n", argv[i]);
      status = UCOV_EXIT_FAIL;
      continue;
    }
    if (symbolize_file(f, modules ? &mods : NULL, binary) != 0)
      status = UCOV_EXIT_FAIL;
    fclose(f);
  }
  if (modules)
    modmap_free(&mods);
  return status;
}
