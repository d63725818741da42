/* SPDX-License-Identifier: MIT */
/*
 * ucov cc: a compiler wrapper in the spirit of afl-cc. It adds the
 * instrumentation flags that the wrapped compiler (gcc or clang) needs for the
 * chosen modes and, when the command links, the ucov runtime; then it execs
 * the compiler. CC (or UCOV_CC) chooses the compiler; ucov c++, a C++
 * source or a link of C++ objects its C++ driver (CXX, UCOV_CXX).
 */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cc.h"
#include "cli.h"
#include "base/diag.h"
#include "dormant_link.h"

static const char cc_usage[] =
    "usage: ucov cc [--trace] [--ext] [--unique] [--gcov] [--pgo] [--afl] [--dormant] [--only "
    "GLOB]\n"
    "               [--skip GLOB] [--cc COMPILER] [--] COMPILER-ARGS...\n"
    "\n"
    "Compile and link C and C++ code with ucov instrumentation. Use it as CC, and\n"
    "ucov c++ (the same options) as CXX:\n"
    "  CC=\"ucov cc --trace\" CXX=\"ucov c++ --trace\" make\n"
    "C++ sources, or a link of objects compiled from C++, run the C++ driver of the\n"
    "compiler (g++ for gcc, clang++ for clang), as ucov c++ always does.\n"
    "\n"
    "modes (ucov's own options, anywhere on the line up to a `--`, never passed to the\n"
    "compiler; they combine; --trace is the default):\n"
    "  --trace     basic-block PCs and comparison operands\n"
    "              (-fsanitize-coverage=trace-pc,trace-cmp)\n"
    "  --ext       --trace plus function entry/exit records for KCOV_TRACE_PC_EXT\n"
    "              (-finstrument-functions)\n"
    "  --unique    --trace built for KCOV_UNIQUE_ENABLE: clang's trace-pc-guard\n"
    "              (exact: an index per edge); gcc has only trace-pc (keyed by PC address)\n"
    "  --pgo       clang -fprofile-instr-generate -fcoverage-mapping: a raw profile\n"
    "              (LLVM_PROFILE_FILE, default.profraw) at exit for llvm-profdata\n"
    "              and llvm-cov, written by ucov\n"
    "  --gcov      gcov counters (--coverage) kept by ucov instead of libgcov or\n"
    "              compiler-rt: .gcda at exit as they write them, and live over the\n"
    "              control socket (ucov ls/pull/reset). Threaded programs get atomic\n"
    "              counters from -pthread, as with gcc itself.\n"
    "  --afl       a --trace build that afl-fuzz drives without AFL++'s compiler: the\n"
    "              runtime is the fork server of AFL++'s protocol (map size, cmplog:\n"
    "              afl-fuzz -c 0) and fills its edge map (clang: trace-pc-guard; gcc:\n"
    "              hashed trace-pc edges) and comparison log (trace-cmp); KCOV devices\n"
    "              and, with --gcov or --pgo, the campaign's live counters as in any\n"
    "              build (counters shared across fork by default)\n"
    "  --shared-counters  with --gcov or --pgo: the counters in pages shared across fork, so a\n"
    "              forked child (a fuzzer's execution) counts into its parent's objects,\n"
    "              killed or not, and writes no file; on by itself for AFL++'s\n"
    "              compilers (--cc afl-clang-fast, ...) and -fsanitize=fuzzer\n"
    "              (--no-shared-counters: off)\n"
    "  --dormant   with --trace, --ext or --unique (x86-64): every hook call is a NOP\n"
    "              while no KCOV device of the process is enabled, and a call again\n"
    "              from the first enable to the last disable. Links keep their\n"
    "              relocations (-Wl,--emit-relocs); ucov then finds the hook calls in\n"
    "              them, NOPs them in the linked file and adds their table\n"
    "              (section .ucov_sites). With ucov's twins plugin for the compiler\n"
    "              (gcc 12; clang 14, 16, 19), each function has a hook-free plain\n"
    "              body and a traced twin, and tracing makes the plain entries jump\n"
    "              to the twins.\n"
    "              With --ext and clang, entry and exit come from XRay sleds\n"
    "              (-fxray-instrument) instead of -finstrument-functions\n"
    "  --only GLOB instrument only sources matching GLOB (repeatable; as given, absolute,\n"
    "              or the base name for a glob without '/'); others compile plain\n"
    "  --skip GLOB do not instrument sources matching GLOB (repeatable)\n"
    "  --show-command  print the command ucov runs (as -v does, without the compiler's\n"
    "              own -v output)\n"
    "  --cc COMPILER  the compiler to run (gcc, clang, clang-16, a path), kept in CC so that\n"
    "              a build's later steps use it too (else UCOV_CC, CC, cc)\n"
    "  -h, --help  this text\n"
    "\n"
    "Every other argument goes to the compiler unchanged. -v anywhere also prints\n"
    "the exact command ucov runs. When the command links a program, the static\n"
    "runtime (libucov.a) is linked in and its API and hooks are exported, so\n"
    "instrumented shared libraries and the KCOV shim (libucov-kcov.so) reach it.\n"
    "A shared library (-shared) gets libucov.so as a dependency instead, which\n"
    "stays dormant in a program with its own runtime: one runtime per process.\n"
    "\n"
    "environment:\n"
    "  UCOV_CC     the compiler to run (a command line) without --cc; else CC; else cc\n"
    "  UCOV_CXX    the C++ compiler (ucov c++, C++ sources and links); else CXX; else\n"
    "              the C compiler's C++ driver (gcc-12: g++-12, clang: clang++, cc: c++)\n"
    "  UCOV_LIBDIR where libucov.a is (default: found next to this ucov)\n"
    "  UCOV_MODE   modes when no option names one: trace, ext, unique, gcov, pgo, afl\n"
    "              (commas between them), for builds that pass only CC\n"
    "  UCOV_ONLY, UCOV_SKIP  colon-separated globs, as --only and --skip\n";

static int file_exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0;
}

/* dir if dir/rel exists, else NULL (dir is malloc'ed or NULL). */
static char *dir_with(char *dir, const char *rel) {
  char *probe = NULL;
  if (!dir || asprintf(&probe, "%s/%s", dir, rel) < 0)
    return NULL;
  int ok = file_exists(probe);
  free(probe);
  if (!ok)
    free(dir);
  return ok ? dir : NULL;
}

static char *path_join(const char *a, const char *b) {
  char *p = NULL;
  return asprintf(&p, "%s/%s", a, b) < 0 ? NULL : p;
}

/* Where libucov.a is: UCOV_LIBDIR, the install tree, then the build tree. */
static char *find_libdir(void) {
  const char *env = getenv("UCOV_LIBDIR");
  if (env && *env)
    return strdup(env);
  char *d = dir_with(path_join(cli_self_dir(), "../" UCOV_INSTALL_LIBDIR), "libucov.a");
  return d ? d : dir_with(strdup(cli_self_dir()), "libucov.a");
}

/* Where <ucov/ucov.h> is: the install tree, else the source tree. */
static char *find_includedir(void) {
  char *d = dir_with(path_join(cli_self_dir(), "../include"), "ucov/ucov.h");
  return d ? d : strdup(UCOV_SOURCE_INCLUDE_DIR);
}

static void print_command(char **argv) {
  for (int i = 0; argv[i]; i++) {
    const char *a = argv[i];
    int plain = *a != 0;
    for (const char *p = a; *p; p++)
      if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=+,./:@%", *p))
        plain = 0;
    if (plain) {
      fprintf(stderr, "%s%s", i ? " " : "", a);
    } else {
      fprintf(stderr, "%s'", i ? " " : "");
      for (const char *p = a; *p; p++)
        fputs(*p == '\'' ? "'\\''" : (char[2]){*p, 0}, stderr);
      fputc('\'', stderr);
    }
  }
  fputc('\n', stderr);
}

/*
 * One of ucov cc's own options at args[k]: how many arguments it takes (1 or
 * 2; 0: not ours, it goes to the compiler). Own options are taken anywhere
 * on the line (`ucov cc -v --gcov x.c`), and never reach the compiler.
 */
/* The modes: --NAME on the line, NAME in UCOV_MODE. */
static const struct {
  const char *name;
  size_t flag; /* offset of its int in struct cc_opts */
} modes[] = {
    {.name = "trace", .flag = offsetof(struct cc_opts, trace)},
    {.name = "ext", .flag = offsetof(struct cc_opts, ext)},
    {.name = "gcov", .flag = offsetof(struct cc_opts, gcov)},
    {.name = "unique", .flag = offsetof(struct cc_opts, unique)},
    {.name = "pgo", .flag = offsetof(struct cc_opts, pgo)},
    {.name = "afl", .flag = offsetof(struct cc_opts, afl)},
};
#define N_MODES (sizeof(modes) / sizeof(modes[0]))

/* Set mode `name`; 0, or -1 if there is none. */
static int set_mode(struct cc_opts *o, const char *name) {
  for (size_t i = 0; i < N_MODES; i++)
    if (!strcmp(name, modes[i].name)) {
      *(int *)((char *)o + modes[i].flag) = 1;
      return 0;
    }
  return -1;
}

static int any_mode(const struct cc_opts *o) {
  for (size_t i = 0; i < N_MODES; i++)
    if (*(const int *)((const char *)o + modes[i].flag))
      return 1;
  return 0;
}

/* The options with a value: --NAME VALUE or --NAME=VALUE. */
enum { OPT_CC, OPT_ONLY, OPT_SKIP };
static const struct {
  const char *name;
  int which;
} valued[] = {{.name = "cc", .which = OPT_CC},
              {.name = "only", .which = OPT_ONLY},
              {.name = "skip", .which = OPT_SKIP}};

static void set_valued(struct cc_opts *o, int which, const char *v) {
  if (which == OPT_CC)
    o->cc = v;
  else if (which == OPT_ONLY && o->n_only < 64)
    o->only[o->n_only++] = v;
  else if (which == OPT_SKIP && o->n_skip < 64)
    o->skip[o->n_skip++] = v;
}

/* Is args[k] one of ucov's own options? How many arguments it takes (0: not ours). */
static int own_option(char **args, int k, int nargs, struct cc_opts *o) {
  const char *a = args[k];
  if (strncmp(a, "--", 2) != 0)
    return 0;
  if (set_mode(o, a + 2) == 0)
    return 1;
  if (!strcmp(a, "--dormant")) {
    o->dormant = 1;
    return 1;
  }
  if (!strcmp(a, "--show-command")) {
    o->show = 1;
    return 1;
  }
  if (!strcmp(a, "--shared-counters") || !strcmp(a, "--no-shared-counters")) {
    o->shared_counters = a[2] != 'n';
    return 1;
  }
  for (size_t i = 0; i < sizeof(valued) / sizeof(valued[0]); i++) {
    size_t n = strlen(valued[i].name);
    if (strncmp(a + 2, valued[i].name, n) != 0)
      continue;
    if (a[2 + n] == '=') {
      set_valued(o, valued[i].which, a + 3 + n);
      return 1;
    }
    if (!a[2 + n] && k + 1 < nargs) {
      set_valued(o, valued[i].which, args[k + 1]);
      return 2;
    }
  }
  return 0;
}

/* The file a link writes: -o FILE, else a.out. */
static const char *link_output(char **args, int nargs) {
  const char *o = "a.out";
  for (int k = 0; k < nargs; k++) {
    if (!strcmp(args[k], "-o") && k + 1 < nargs)
      o = args[++k];
    else if (!strncmp(args[k], "-o", 2) && args[k][2])
      o = args[k] + 2;
    else if (cc_takes_separate_value(args[k]))
      k++;
  }
  return o;
}

/* --dormant at a link: run the link, then make its output dormant. */
static int link_dormant(char **cmd, char **args, int nargs, int verbose) {
  pid_t pid = fork();
  if (pid < 0) {
    UCOV_ERR("cannot fork: %m\n");
    return UCOV_EXIT_FAIL;
  }
  if (pid == 0) {
    execvp(cmd[0], cmd);
    UCOV_ERR("cannot run %s: %m\n", cmd[0]);
    _exit(UCOV_EXIT_FAIL);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0)
    ;
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
    return WIFEXITED(st) ? WEXITSTATUS(st) : UCOV_EXIT_FAIL;
  const char *path = link_output(args, nargs);
  struct dormant_stats ds;
  struct diag_context in_dormant = {.before = "--dormant: "};
  diag_context_begin(&in_dormant);
  int fixed = dormant_fixup(path, &ds);
  diag_context_end(&in_dormant);
  if (fixed != 0) {
    unlink(path); /* no half-made output for make to take as built */
    return UCOV_EXIT_FAIL;
  }
  if (ds.unsupported)
    UCOV_ERR("--dormant: %s is not x86-64: its hooks stay live\n", path);
  else if (verbose)
    diag_at(DIAG_NOTE, NULL, 0,
            "--dormant: %s: %lu sites (%lu calls, %lu tail jumps, %lu twin entries); %lu "
            "conditional tail jumps left live, %lu other references to a hook",
            path, ds.sites, ds.calls, ds.jumps, ds.twins, ds.live_jcc, ds.other_refs);
  if (ds.twin_bad)
    diag_at(DIAG_WARNING, NULL, 0,
            "--dormant: %s: %lu functions with a twin do not start with the twins plugin's "
            "patchable entry: they run untraced",
            path, ds.twin_bad);
  return UCOV_EXIT_OK;
}

/*
 * The command line as given: response files first (their contents may hold
 * our options too), then our options out of the line, wherever they are, up
 * to a `--` (dropped): what follows it goes to the compiler as it is. Then
 * UCOV_ONLY, UCOV_SKIP and UCOV_MODE. The compiler's arguments into *args
 * (kept until the compiler runs). -1 to go on, else the exit status.
 */
static int cc_gather(int argc, char **argv, struct cc_opts *o, char ***args, int *nargs) {
  static char **expanded; /* (kept until the compiler runs) */
  int nexp = 0, cap = 0;
  cc_expand_args(argc - 1, argv + 1, &expanded, &nexp, &cap, 0);
  *args = calloc((size_t)nexp + 1, sizeof(**args));
  *nargs = 0;
  if (!*args) {
    UCOV_ERR("out of memory\n");
    return UCOV_EXIT_FAIL;
  }
  for (int k = 0, ours = 1; k < nexp; k++) {
    int took = ours ? own_option(expanded, k, nexp, o) : 0;
    if (took)
      k += took - 1;
    else if (ours && !strcmp(expanded[k], "--"))
      ours = 0;
    else
      (*args)[(*nargs)++] = expanded[k];
  }
  cc_env_globs("UCOV_ONLY", o->only, &o->n_only);
  cc_env_globs("UCOV_SKIP", o->skip, &o->n_skip);
  /* Build systems that pass only CC: UCOV_MODE=gcov,trace (commas, colons or blanks). */
  const char *env = getenv("UCOV_MODE");
  if (env && *env && !any_mode(o)) {
    char *copy = strdup(env), *save = NULL;
    for (char *w = strtok_r(copy, ",: \t", &save); w; w = strtok_r(NULL, ",: \t", &save)) {
      if (set_mode(o, w) != 0) {
        UCOV_ERR("UCOV_MODE: unknown mode '%s' (trace, ext, unique, gcov, pgo, afl)\n", w);
        free(copy);
        return UCOV_EXIT_USAGE;
      }
    }
    free(copy);
  }
  for (int k = 0; k < *nargs; k++)
    if (!strcmp((*args)[k], "-v"))
      o->verbose = 1;
  return -1;
}

/* The modes' compile flags (and --coverage at a link) onto out[*n...]: -1
 * to go on, else the exit status (said). gcc 12 and clang take the same
 * flags for these modes. */
static int cc_mode_flags(struct cc_opts *o, const struct cc_job *job, const char *cc0, char **out,
                         int *n) {
  if (!o->trace && !o->ext && !o->gcov && !o->unique && !o->pgo && !o->afl)
    o->trace = 1; /* the default mode */
  if (o->afl && o->dormant) {
    UCOV_ERR("--afl and --dormant: afl-fuzz needs its edges from every execution\n");
    return UCOV_EXIT_USAGE;
  }
  /* --only/--skip, per translation unit: the sources of this command all
   * selected (instrumented), or none (compiled plain; a link still gets the
   * runtime). One command mixing both cannot give each its own flags. */
  if (job->n_sel && job->n_sel < job->n_src) {
    UCOV_ERR("--only/--skip select %d of the %d sources of one command: compile "
             "them one per command (-c)\n",
             job->n_sel, job->n_src);
    return UCOV_EXIT_USAGE;
  }
  if (job->n_src && !job->n_sel)
    o->trace = o->ext = o->unique = o->gcov = o->pgo = o->afl = 0; /* compiled as they are */
  /* Compile flags only where a C or C++ source is compiled: clang calls a
   * flag unused (an error under -Werror) on assembler input or a link. */
  int compiles = job->has_source, clang = cc_compiler_is_clang(cc0);
  /* UNIQUE is exact with clang's trace-pc-guard (an index per edge); gcc has
   * only trace-pc, which unique mode keys by the PC address. */
  if (compiles && (o->unique || o->afl) && clang)
    out[(*n)++] = "-fsanitize-coverage=trace-pc-guard,trace-cmp";
  else if (compiles && (o->trace || o->ext || o->unique || o->afl))
    out[(*n)++] = "-fsanitize-coverage=trace-pc,trace-cmp";
  /* --dormant: twins (clang's --ext keeps its XRay sleds, below) */
  if (compiles && o->dormant && (o->trace || o->unique || o->ext) && !(clang && o->ext)) {
    char *libdir = find_libdir();
    cc_twins_flags(cc0, clang, libdir, out, n);
    free(libdir);
  }
  if (compiles && o->afl) { /* what afl-cc defines, which fuzzing targets test */
    out[(*n)++] = "-D__AFL_COMPILER=1";
    out[(*n)++] = "-DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION=1";
    out[(*n)++] = "-include"; /* __AFL_LOOP, __AFL_INIT, __AFL_FUZZ_* */
    out[(*n)++] = path_join(find_includedir(), "ucov/afl.h");
  }
  /* --ext --dormant with clang: entry and exit come from XRay sleds, which
   * cost a jump or nothing while dormant (the runtime patches them live, as
   * XRay's does). Given to the compiler proper (-Xclang), so that the driver
   * does not link XRay's own runtime. gcc keeps -finstrument-functions. */
  if (compiles && o->ext && o->dormant && clang) {
    static const char *const xray[] = {"-Xclang", "-fxray-instrument", "-Xclang",
                                       "-fxray-instruction-threshold=1"};
    for (size_t k = 0; k < sizeof(xray) / sizeof(xray[0]); k++)
      out[(*n)++] = (char *)xray[k];
  } else if (compiles && o->ext) {
    out[(*n)++] = "-finstrument-functions";
  }
  /* Also at a link (gcc then adds -lgcov after libucov.a; ucov defines every
   * symbol the objects need from it, so no member of libgcov is linked). */
  if (o->gcov && (compiles || (job->has_input && !job->compile_only)))
    out[(*n)++] = "--coverage";
  if (o->gcov && o->shared && compiles) /* (each counter array in a section of its own) */
    out[(*n)++] = "-fdata-sections";
  /* When compiling (alone, or with the link): at a link of objects only the
   * flag is not needed (and ucov defines __llvm_profile_runtime, which keeps
   * compiler-rt's runtime out of links that pass it all the same). */
  if (compiles && o->pgo && !clang) {
    UCOV_ERR("--pgo needs clang, and the compiler is %s (--cc clang, or UCOV_CC)\n", cc0);
    return UCOV_EXIT_USAGE;
  }
  if (compiles && o->pgo) {
    out[(*n)++] = "-fprofile-instr-generate";
    out[(*n)++] = "-fcoverage-mapping";
  }
  return -1;
}

/*
 * At a link: the runtime's files onto out[*n...], to the linker (-Xlinker
 * FILE), never to the driver as inputs: gcc names the notes and data files
 * of a one-source compile-and-link after the output alone (gcc -o p p.c:
 * p.gcno) only when that source is its one input, and another input makes
 * them p-p.gcno. 0, or -1 (said).
 */
static int cc_link_flags(const struct cc_job *job, int dormant, const struct cc_opts *o, char **out,
                         int *n) {
  char *libdir = find_libdir();
  if (!libdir) {
    UCOV_ERR("cannot find libucov.a (set UCOV_LIBDIR)\n");
    return -1;
  }
#define LINKER_FILE(name) (out[(*n)++] = "-Xlinker", out[(*n)++] = path_join(libdir, name))
  if (dormant) { /* the relocations name the hook calls; the module registers its sites */
    out[(*n)++] = "-Wl,--emit-relocs";
    out[(*n)++] = "-Wl,--whole-archive";
    LINKER_FILE("libucov-dormant.a");
    out[(*n)++] = "-Wl,--no-whole-archive";
  }
  if (job->shared) {
    /* A shared object binds to the process's one runtime: the program's,
     * when it was linked by ucov cc (which exports it, and comes first in
     * the lookup order), else libucov.so, which it needs for that. Its own
     * LLVM profile sections are registered by libucov-dso.a. */
    out[(*n)++] = "-Wl,--whole-archive";
    LINKER_FILE("libucov-dso.a");
    out[(*n)++] = "-Wl,--no-whole-archive";
    LINKER_FILE("libucov.so");
    char *rpath = NULL, canon[PATH_MAX];
    if (asprintf(&rpath, "-Wl,-rpath,%s", realpath(libdir, canon) ? canon : libdir) > 0)
      out[(*n)++] = rpath;
    return 0;
  }
  out[(*n)++] = "-Wl,--whole-archive";
  if (o->afl) /* its hooks and fork server, before the weak ones */
    LINKER_FILE("libucov-afl.a");
  LINKER_FILE(o->own_sancov || o->afl ? "libucov-weakhooks.a" : "libucov.a");
  out[(*n)++] = "-Wl,--no-whole-archive";
  if (o->shared && o->gcov) { /* the counter arrays in whole pages, shared across fork */
    out[(*n)++] = "-Xlinker";
    out[(*n)++] = "-T";
    LINKER_FILE("ucov-counters.ld");
  }
  if (o->shared && o->pgo) { /* clang's profile counters the same */
    out[(*n)++] = "-Xlinker";
    out[(*n)++] = "-T";
    LINKER_FILE("ucov-prf-counters.ld");
  }
#undef LINKER_FILE
  /* Exported: shared objects and the KCOV shim bind to this runtime. */
  static const char *const exports[] = {
      "ucov_*",      "__sanitizer_cov_*", "__cyg_profile_func_*", "__gcov_*",
      "llvm_gcov_*", "llvm_gcda_*",       "__llvm_profile_*"};
  for (size_t k = 0; k < sizeof(exports) / sizeof(exports[0]); k++) {
    char *e = NULL;
    if (asprintf(&e, "-Wl,--export-dynamic-symbol=%s", exports[k]) > 0)
      out[(*n)++] = e;
  }
  /* Threads inherit the common handle: the program's pthread_create calls
   * reach the runtime's wrapper, which only a ucov_ name defines. */
  out[(*n)++] = "-Wl,--wrap=pthread_create";
  out[(*n)++] = "-Wl,--defsym=__wrap_pthread_create=ucov_pthread_create";
  out[(*n)++] = "-lpthread";
  out[(*n)++] = "-ldl";
  return 0;
}

/* Does the program bring its own sanitizer-coverage runtime: AFL++'s
 * compilers (afl-cc, afl-clang-fast, ...: afl-compiler-rt, a forkserver) or
 * libFuzzer (-fsanitize=fuzzer)? Then its counters are shared across fork
 * by default, and the runtime it links has weak hooks. */
static int own_sancov_runtime(const char *cc0, char **args, int nargs) {
  const char *base = strrchr(cc0, '/');
  if (!strncmp(base ? base + 1 : cc0, "afl-", 4))
    return 1;
  for (int k = 0; k < nargs; k++)
    if (!strncmp(args[k], "-fsanitize=", 11) && strstr(args[k], "fuzzer") &&
        !strstr(args[k], "fuzzer-no-link"))
      return 1;
  return 0;
}

/* ucov cc (cxx 0) and ucov c++ (cxx 1). */
static int run_cc(int argc, char **argv, int cxx) {
  struct cc_opts o = {.cxx = cxx, .shared_counters = -1};
  if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
    fputs(cc_usage, stdout);
    return UCOV_EXIT_OK;
  }
  static char **args; /* (kept until the compiler runs) */
  int nargs, rc = cc_gather(argc, argv, &o, &args, &nargs);
  if (rc >= 0)
    return rc;
  /* C++ sources, a link of C++ objects or ucov c++: the C++ driver, which
   * links the C++ runtime (the C driver leaves it out and the link fails). */
  struct cc_job job = cc_classify(nargs, args, &o);
  char *cc[64];
  int ncc =
      o.cxx || job.cxx ? cc_cxx_compiler_words(o.cc, cc, 64) : cc_compiler_words(o.cc, cc, 64);
  if (ncc == 0) {
    UCOV_ERR(o.cxx ? "no compiler (set CXX)\n" : "no compiler (set CC)\n");
    return UCOV_EXIT_USAGE;
  }
  char **out = calloc((size_t)(ncc + nargs + 64), sizeof(char *));
  int n = 0;
  if (!out) {
    UCOV_ERR("out of memory\n");
    return UCOV_EXIT_FAIL;
  }
  for (int k = 0; k < ncc; k++)
    out[n++] = cc[k];
  o.own_sancov = own_sancov_runtime(cc[0], args, nargs);
  if (o.afl && o.own_sancov) {
    UCOV_ERR("--afl makes the fork server and the maps itself: compile with gcc or clang, "
             "not with %s\n",
             cc[0]);
    free(out);
    return UCOV_EXIT_USAGE;
  }
  o.shared =
      (o.gcov || o.pgo) && (o.shared_counters >= 0 ? o.shared_counters : o.own_sancov || o.afl);
  if ((rc = cc_mode_flags(&o, &job, cc[0], out, &n)) >= 0) {
    free(out);
    return rc;
  }
  int lang_set = 0;
  for (int k = 0; k < nargs; k++) {
    out[n++] = args[k];
    lang_set |= !strncmp(args[k], "-x", 2);
  }
  if (lang_set) { /* what ucov adds is taken by its name, not as the -x language */
    out[n++] = "-x";
    out[n++] = "none";
  }
  if (job.preprocesses) {
    out[n++] = "-idirafter";
    out[n++] = find_includedir();
  }
  int links = job.has_input && !job.compile_only;
  int dormant = links && o.dormant && (o.trace || o.ext || o.unique);
  if (links && cc_link_flags(&job, dormant, &o, out, &n))
    return UCOV_EXIT_FAIL;
  out[n] = NULL;
  if (o.verbose || o.show)
    print_command(out);
  if (dormant) {
    /* As if the compiler had been exec'd: the arguments live until the end. */
    rc = link_dormant(out, args, nargs, o.verbose);
    fflush(NULL);
    _exit(rc);
  }
  execvp(out[0], out);
  UCOV_ERR("cannot run %s: %m\n", out[0]);
  return UCOV_EXIT_FAIL;
}

int cmd_cc(int argc, char **argv) {
  return run_cc(argc, argv, 0);
}

int cmd_cxx(int argc, char **argv) {
  return run_cc(argc, argv, 1);
}
