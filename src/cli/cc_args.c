/* SPDX-License-Identifier: MIT */
/*
 * ucov cc: the compiler's command line read (cc.h): response files, the
 * inputs and what the command does, --only and --skip, which compiler.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cc.h"
#include "cli.h"

/* Does glob match a source path: as given, absolute, or (a glob without '/') its base name? */
static int glob_matches(const char *glob, const char *path) {
  char abs[PATH_MAX];
  const char *base = strrchr(path, '/');
  if (fnmatch(glob, path, 0) == 0)
    return 1;
  if (realpath(path, abs) && fnmatch(glob, abs, 0) == 0)
    return 1;
  return !strchr(glob, '/') && fnmatch(glob, base ? base + 1 : path, 0) == 0;
}

/* Is this source selected for instrumentation by --only and --skip? */
static int selected(const struct cc_opts *o, const char *src) {
  int in = o->n_only == 0;
  for (int i = 0; i < o->n_only && !in; i++)
    in = glob_matches(o->only[i], src);
  for (int i = 0; i < o->n_skip && in; i++)
    in = !glob_matches(o->skip[i], src);
  return in;
}

/* UCOV_ONLY / UCOV_SKIP: colon-separated globs, added to the options'. */
void cc_env_globs(const char *var, const char **list, int *n) {
  const char *v = getenv(var);
  if (!v || !*v)
    return;
  static char *copies[2] __attribute__((used)); /* kept reachable while the globs are in use */
  static int n_copies;
  char *copy = strdup(v), *save = NULL;
  if (n_copies < 2)
    copies[n_copies++] = copy;
  for (char *w = strtok_r(copy, ":", &save); w && *n < 64; w = strtok_r(NULL, ":", &save))
    list[(*n)++] = w;
}

/* Options of gcc and clang that take their value in the next argument. */
int cc_takes_separate_value(const char *a) {
  static const char *const opts[] = {
      "-o",        "-I",        "-D",       "-U",          "-L",
      "-l",        "-x",        "-MF",      "-MT",         "-MQ",
      "-include",  "-imacros",  "-isystem", "-idirafter",  "-iquote",
      "-iprefix",  "-isysroot", "-Xlinker", "-Xassembler", "-Xpreprocessor",
      "-u",        "-T",        "-z",       "-e",          "--param",
      "-aux-info", "-A",        "-target",  "-Xclang",     "--sysroot",
  };
  for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
    if (strcmp(a, opts[i]) == 0)
      return 1;
  return 0;
}

/* Kinds of input, by -x LANG or else by the file name's extension. */
enum input_kind { INPUT_OTHER, INPUT_SOURCE, INPUT_PREPROCESSED, INPUT_ASM_CPP };

/* Is -x LANG, or a source's name, C++? */
static int lang_is_cxx(const char *lang) {
  return !strcmp(lang, "c++") || !strcmp(lang, "objective-c++") ||
         !strcmp(lang, "c++-cpp-output") || !strcmp(lang, "c++-header");
}

static int name_is_cxx(const char *a) {
  static const char *const ext[] = {".cc", ".cp", ".cxx", ".cpp", ".c++", ".C", ".ii", ".mm"};
  const char *dot = strrchr(a, '.');
  for (size_t i = 0; dot && i < sizeof(ext) / sizeof(ext[0]); i++)
    if (strcmp(dot, ext[i]) == 0)
      return 1;
  return 0;
}

/* Was the object or archive member at path compiled from C++? Its symbol
 * table names the C++ runtime (__gxx_personality_v0, __cxa_*) or a mangled
 * name it needs from elsewhere (_Z...). */
static int object_is_cxx(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  elf_version(EV_CURRENT);
  Elf *e = elf_begin(fd, ELF_C_READ, NULL);
  int cxx = 0;
  for (Elf_Scn *scn = NULL; e && elf_kind(e) == ELF_K_ELF && !cxx && (scn = elf_nextscn(e, scn));) {
    GElf_Shdr sh;
    Elf_Data *d;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !(d = elf_getdata(scn, NULL)))
      continue;
    size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
    for (size_t i = 0; i < n && !cxx; i++) {
      GElf_Sym sym;
      const char *name;
      if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx != SHN_UNDEF ||
          !(name = elf_strptr(e, sh.sh_link, sym.st_name)))
        continue;
      cxx = !strncmp(name, "_Z", 2) || !strcmp(name, "__gxx_personality_v0") ||
            !strncmp(name, "__cxa_", 6);
    }
  }
  if (e)
    elf_end(e);
  close(fd);
  return cxx;
}

static enum input_kind kind_of_lang(const char *lang) {
  static const char *const src[] = {"c", "c++", "objective-c", "objective-c++"};
  static const char *const pre[] = {"cpp-output", "c++-cpp-output"};
  for (size_t i = 0; i < sizeof(src) / sizeof(src[0]); i++)
    if (!strcmp(lang, src[i]))
      return INPUT_SOURCE;
  for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
    if (!strcmp(lang, pre[i]))
      return INPUT_PREPROCESSED;
  return !strcmp(lang, "assembler-with-cpp") ? INPUT_ASM_CPP : INPUT_OTHER;
}

static enum input_kind kind_of_file(const char *a) {
  const char *dot = strrchr(a, '.');
  static const char *const ext[] = {".c", ".cc", ".cp", ".cxx", ".cpp", ".c++", ".C"};
  for (size_t i = 0; dot && i < sizeof(ext) / sizeof(ext[0]); i++)
    if (strcmp(dot, ext[i]) == 0)
      return INPUT_SOURCE;
  if (dot && (!strcmp(dot, ".i") || !strcmp(dot, ".ii")))
    return INPUT_PREPROCESSED;
  return dot && (!strcmp(dot, ".S") || !strcmp(dot, ".sx")) ? INPUT_ASM_CPP : INPUT_OTHER;
}

/* Is this input a C or C++ translation unit (to instrument)? */
static int is_source_kind(enum input_kind k) {
  return k == INPUT_SOURCE || k == INPUT_PREPROCESSED;
}

/* The kind of an input, with the -x LANG in force (NULL or "none": by name). */
static enum input_kind input_kind(const char *lang, const char *input) {
  return lang && strcmp(lang, "none") ? kind_of_lang(lang) : kind_of_file(input);
}

/*
 * Response files: an argument @FILE stands for the arguments in FILE (blank
 * separated, with '...' and "..." quoting and backslash escapes, nested @FILEs
 * expanded too), as gcc and clang read them. Expanded here so that ucov sees
 * the sources and -c they hold; an unreadable @FILE stays as it is.
 */
/* A wrapper that cannot hold its arguments cannot run the compiler. */
static void *grow_or_die(void *p, size_t n) {
  void *g = realloc(p, n);
  if (!g) {
    UCOV_ERR("out of memory\n");
    exit(UCOV_EXIT_FAIL);
  }
  return g;
}

static void add_arg(char ***v, int *n, int *cap, char *a) {
  if (*n + 1 >= *cap) {
    *cap = *cap ? *cap * 2 : 64;
    *v = grow_or_die(*v, (size_t)*cap * sizeof(**v));
  }
  (*v)[(*n)++] = a;
  (*v)[*n] = NULL;
}

void cc_expand_args(int argc, char **argv, char ***v, int *n, int *cap, int depth) {
  for (int i = 0; i < argc; i++) {
    FILE *f = argv[i][0] == '@' && depth < 16 ? fopen(argv[i] + 1, "r") : NULL;
    if (!f) {
      add_arg(v, n, cap, argv[i]);
      continue;
    }
    char **sub = NULL;
    int nsub = 0, capsub = 0, c;
    char *tok = NULL;
    size_t len = 0, tcap = 0;
    int quote = 0, have = 0;
    while ((c = fgetc(f)) != EOF) {
      if (!quote && (c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
        if (have) {
          tok[len] = 0;
          add_arg(&sub, &nsub, &capsub, tok);
          tok = NULL;
          len = tcap = 0;
          have = 0;
        }
        continue;
      }
      if (c == '\\') {
        int d = fgetc(f);
        if (d == EOF)
          break;
        c = d;
      } else if (!quote && (c == '\'' || c == '"')) {
        quote = c;
        have = 1;
        continue;
      } else if (quote && c == quote) {
        quote = 0;
        continue;
      }
      if (len + 2 > tcap) {
        tcap = tcap ? tcap * 2 : 64;
        tok = grow_or_die(tok, tcap);
      }
      tok[len++] = (char)c;
      have = 1;
    }
    if (have) {
      if (!tok)
        tok = calloc(1, 1);
      tok[len] = 0;
      add_arg(&sub, &nsub, &capsub, tok);
    }
    fclose(f);
    cc_expand_args(nsub, sub, v, n, cap, depth + 1);
    free(sub); /* (the strings stay: they are arguments now) */
  }
}

/* What the command does, in one pass over its arguments (-x LANG applies to
 * the inputs after it). */
struct cc_job cc_classify(int argc, char **argv, const struct cc_opts *o) {
  struct cc_job j = {0};
  const char *lang = NULL;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] != '-' || a[1] == 0) {
      enum input_kind k = input_kind(lang, a);
      j.has_input = 1;
      if (is_source_kind(k))
        j.cxx |= lang && strcmp(lang, "none") ? lang_is_cxx(lang) : name_is_cxx(a);
      else if (k == INPUT_OTHER && (lang == NULL || !strcmp(lang, "none")))
        j.objects++;
      j.preprocesses |= k == INPUT_SOURCE || k == INPUT_ASM_CPP;
      if (is_source_kind(k)) {
        j.has_source = 1;
        j.n_src++;
        j.n_sel += selected(o, a);
      }
      continue;
    }
    if (!strcmp(a, "-x") && i + 1 < argc)
      lang = argv[i + 1];
    else if (!strncmp(a, "-x", 2) && a[2])
      lang = a + 2;
    if (cc_takes_separate_value(a)) {
      i++;
      continue;
    }
    if (!strcmp(a, "-c") || !strcmp(a, "-S") || !strcmp(a, "-E") || !strcmp(a, "-M") ||
        !strcmp(a, "-MM"))
      j.compile_only = 1;
    else if (!strcmp(a, "-shared"))
      j.shared = 1;
  }
  /* At a link of objects only: C++ if one of them was compiled from C++
   * (the C driver would leave out libstdc++ and the link fail). */
  for (int i = 0; !j.cxx && !j.has_source && !j.compile_only && j.objects && i < argc; i++) {
    const char *a = argv[i], *dot = strrchr(a, '.');
    if (a[0] == '-' && a[1]) {
      i += cc_takes_separate_value(a);
      continue;
    }
    if (dot && (!strcmp(dot, ".o") || !strcmp(dot, ".a") || !strcmp(dot, ".lo")))
      j.cxx = object_is_cxx(a);
  }
  return j;
}

/* Split a command line on blanks (CC="gcc -m64" is common). */
static int split_words(const char *s, char **out, int max) {
  int n = 0;
  char *copy = strdup(s);
  for (char *tok = strtok(copy, " \t"); tok && n < max; tok = strtok(NULL, " \t"))
    out[n++] = tok;
  return n;
}

static int is_ucov(const char *word) {
  const char *base = strrchr(word, '/');
  base = base ? base + 1 : word;
  return strcmp(base, "ucov") == 0;
}

/* The build's compiler variable (CC, CXX), unless it is unset, empty or ucov
 * itself (CC="ucov cc" exported to us: no recursion): NULL then. */
static const char *build_compiler(const char *var) {
  const char *c = getenv(var);
  char first[4096];
  if (!c || !*c)
    return NULL;
  size_t k = strspn(c, " \t");
  snprintf(first, sizeof(first), "%.*s", (int)strcspn(c + k, " \t"), c + k);
  return is_ucov(first) ? NULL : c;
}

/* The compiler command: --cc, else UCOV_CC, else CC unless it is ucov itself, else cc. */
int cc_compiler_words(const char *opt, char **out, int max) {
  const char *cc = opt && *opt ? opt : getenv("UCOV_CC");
  if (!cc || !*cc)
    cc = build_compiler("CC");
  return split_words(cc && *cc ? cc : "cc", out, max);
}

/* The C++ driver beside a C compiler's name: gcc-12 -> g++-12, clang-16 ->
 * clang++-16, cc -> c++; a name already C++ (g++, clang++, c++) as it is. */
static void cxx_driver(const char *c, char *out, size_t n) {
  const char *base = strrchr(c, '/');
  size_t dir = base ? (size_t)(base + 1 - c) : 0;
  base = base ? base + 1 : c;
  const char *at;
  if (strstr(base, "++"))
    snprintf(out, n, "%s", c);
  else if (!strcmp(base, "afl-cc") || !strcmp(base, "afl-gcc-fast"))
    snprintf(out, n, "%.*s%s", (int)dir, c, base[4] == 'c' ? "afl-c++" : "afl-g++-fast");
  else if (!strncmp(base, "afl-", 4)) /* afl-clang-fast, afl-clang-lto: ...++ */
    snprintf(out, n, "%s++", c);
  else if ((at = strstr(base, "clang")))
    snprintf(out, n, "%.*sclang++%s", (int)(at - c), c, at + 5);
  else if ((at = strstr(base, "gcc")))
    snprintf(out, n, "%.*sg++%s", (int)(at - c), c, at + 3);
  else if (!strcmp(base, "cc"))
    snprintf(out, n, "%.*sc++", (int)dir, c);
  else
    snprintf(out, n, "%s", c); /* (a wrapper that picks by itself: afl-clang-fast) */
}

int cc_cxx_compiler_words(const char *opt, char **out, int max) {
  if (!opt || !*opt) {
    const char *cxx = getenv("UCOV_CXX");
    if (!cxx || !*cxx)
      cxx = build_compiler("CXX");
    if (cxx && *cxx)
      return split_words(cxx, out, max);
  }
  int n = cc_compiler_words(opt, out, max);
  if (n > 0) {
    char d[4096];
    cxx_driver(out[0], d, sizeof(d));
    out[0] = strdup(d);
  }
  return n;
}

/* gcc or clang? By name, else by what the compiler says it is. */
int cc_compiler_is_clang(const char *cc) {
  const char *base = strrchr(cc, '/');
  base = base ? base + 1 : cc;
  if (strstr(base, "clang"))
    return 1;
  if (strstr(base, "gcc"))
    return 0;
  char *cmd = NULL;
  if (asprintf(&cmd, "'%s' --version 2>/dev/null", cc) < 0)
    return 0;
  FILE *p = popen(cmd, "r");
  free(cmd);
  if (!p)
    return 0;
  char line[512];
  int clang = 0;
  while (fgets(line, sizeof(line), p))
    clang |= strstr(line, "clang") != NULL;
  pclose(p);
  return clang;
}
