/* SPDX-License-Identifier: MIT */
/*
 * Inside `ucov cc`: cc.c (its options, the runtime, the command it runs)
 * and cc_args.c (the compiler's command line read: response files, what
 * the command does, which compiler it is).
 */
#ifndef UCOV_CLI_CC_H
#define UCOV_CLI_CC_H

struct cc_opts {
  int trace, ext, gcov, unique, pgo, afl, verbose, dormant;
  int cxx;        /* ucov c++: the C++ driver compiles and links */
  int show;       /* --show-command: the command printed */
  const char *cc; /* --cc COMPILER */
  /* --shared-counters (1), --no-shared-counters (0), else -1: on for AFL++'s
   * compilers and -fsanitize=fuzzer. shared: what was decided. */
  int shared_counters, shared;
  int own_sancov; /* the program brings its own sanitizer-coverage runtime (AFL++, libFuzzer) */
  const char *only[64], *skip[64]; /* --only/--skip GLOBs (and UCOV_ONLY/UCOV_SKIP) */
  int n_only, n_skip;
};

/* What the compiler invocation does, from its arguments. */
struct cc_job {
  int has_input, compile_only, shared;
  int n_src, n_sel; /* C or C++ sources, and those --only/--skip select */
  int has_source;   /* a C or C++ source among the inputs: this command compiles */
  int preprocesses; /* a source or .S file: the preprocessor runs (-idirafter is used) */
  int cxx;          /* a C++ source, or at a link an object compiled from C++ */
  int objects;      /* inputs that are neither sources nor assembly (objects, archives) */
};

/* UCOV_ONLY / UCOV_SKIP: colon-separated globs, added to the options'. */
void cc_env_globs(const char *var, const char **list, int *n);
/* Options of gcc and clang that take their value in the next argument. */
int cc_takes_separate_value(const char *a);
/* argv with every @FILE expanded (nested to depth 16), into *v (n, cap). */
void cc_expand_args(int argc, char **argv, char ***v, int *n, int *cap, int depth);
/* What the command does, in one pass over its arguments. */
struct cc_job cc_classify(int argc, char **argv, const struct cc_opts *o);
/* The compiler command: --cc, else UCOV_CC, else CC unless it is ucov
 * itself, else cc; split on blanks into out (max words). */
int cc_compiler_words(const char *opt, char **out, int max);
/* The same for C++ (ucov c++, or a C++ source or link): UCOV_CXX, else CXX
 * unless it is ucov itself, else the C compiler's C++ driver (gcc-12:
 * g++-12, clang: clang++, cc: c++). */
int cc_cxx_compiler_words(const char *opt, char **out, int max);
/* gcc or clang? By name, else by what the compiler says it is. */
int cc_compiler_is_clang(const char *cc);
/* --dormant at a compile: the twins plugin of compiler cc0 (found in
 * libdir) and the flags it wants onto out[*n...]; without one, says so
 * (the hook calls are then patched one by one). cc_twins.c. */
void cc_twins_flags(const char *cc0, int clang, const char *libdir, char **out, int *n);

#endif
