/* SPDX-License-Identifier: MIT */
/*
 * The formats CI services take (see formats.h): SonarQube's generic
 * coverage XML, Coveralls' JSON, JaCoCo's XML; and the summaries: gcovr's
 * JSON summary, a Markdown table for a pull-request comment.
 */
#define _GNU_SOURCE
#include "formats.h"
#include "md5.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ---- SonarQube generic test coverage (sonar-generic-coverage.xsd) ---- */

int sonarqube_write(const struct cov_model *m, FILE *f) {
  fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<coverage version=\"1\">\n", f);
  for (size_t i = 0; i < m->n_files; i++) {
    const struct cov_file *c = m->files[i];
    fputs("  <file path=\"", f);
    xml_attr(f, cov_display(m, c->path));
    fputs("\">\n", f);
    size_t bk = 0;
    for (size_t k = 0; k < c->n_lines; k++) {
      if (!c->lines[k].line)
        continue; /* (lineNumber is a positive integer) */
      uint64_t bf, bh;
      cov_line_branches(c, &bk, c->lines[k].line, &bf, &bh);
      fprintf(f, "    <lineToCover lineNumber=\"%" PRIu32 "\" covered=\"%s\"", c->lines[k].line,
              c->lines[k].count ? "true" : "false");
      if (bf)
        fprintf(f, " branchesToCover=\"%" PRIu64 "\" coveredBranches=\"%" PRIu64 "\"", bf, bh);
      fputs("/>\n", f);
    }
    fputs("  </file>\n", f);
  }
  fputs("</coverage>\n", f);
  return ferror(f) ? -1 : 0;
}

/* ---- JaCoCo XML (report.dtd, "-//JACOCO//DTD Report 1.1//EN") ---- */

struct counts {
  uint64_t lm, lc, bm, bc, fm, fc; /* lines, branches, methods: missed, covered */
};

static void count_file(const struct cov_file *c, struct counts *n) {
  struct cov_summary s;
  cov_file_summary(c, &s);
  n->lc += s.lines_hit;
  n->lm += s.lines_found - s.lines_hit;
  n->bc += s.branches_hit;
  n->bm += s.branches_found - s.branches_hit;
  n->fc += s.funcs_hit;
  n->fm += s.funcs_found - s.funcs_hit;
}

/* C has no bytecode: an INSTRUCTION is a line, as each line is one unit here. */
static void counters(FILE *f, const char *indent, const struct counts *n) {
  static const char *const type[] = {"INSTRUCTION", "LINE", "BRANCH", "METHOD"};
  const uint64_t v[][2] = {{n->lm, n->lc}, {n->lm, n->lc}, {n->bm, n->bc}, {n->fm, n->fc}};
  for (int t = 0; t < 4; t++)
    fprintf(f, "%s<counter type=\"%s\" missed=\"%" PRIu64 "\" covered=\"%" PRIu64 "\"/>\n", indent,
            type[t], v[t][0], v[t][1]);
}

int jacoco_write(const struct cov_model *m, FILE *f, const char *title) {
  fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<!DOCTYPE report PUBLIC \"-//JACOCO//DTD Report 1.1//EN\" \"report.dtd\">\n"
        "<report name=\"",
        f);
  xml_attr(f, title);
  fputs("\">\n", f);
  struct counts all = {0};
  for (size_t i = 0; i < m->n_files;) {
    const char *first = cov_display(m, m->files[i]->path);
    size_t dl = cov_dir_len(first), j = i;
    struct counts pkg = {0};
    char name[4096];
    snprintf(name, sizeof(name), "%.*s", (int)dl, first);
    fputs("  <package name=\"", f);
    xml_attr(f, name[0] == '/' ? name + 1 : name);
    fputs("\">\n", f);
    for (; j < m->n_files; j++) {
      const struct cov_file *c = m->files[j];
      const char *p = cov_display(m, c->path);
      if (cov_dir_len(p) != dl || strncmp(p, first, dl))
        break;
      const char *base = p + dl + (p[dl] == '/');
      struct counts n = {0};
      count_file(c, &n);
      /* the functions as methods of a class named after the file */
      fputs("    <class name=\"", f);
      xml_attr(f, p[0] == '/' ? p + 1 : p);
      fputs("\" sourcefilename=\"", f);
      xml_attr(f, base);
      fputs("\">\n", f);
      for (size_t k = 0; k < c->n_funcs; k++) {
        fputs("      <method name=\"", f);
        xml_attr(f, c->funcs[k].name);
        fprintf(
            f,
            "\" desc=\"()\" line=\"%" PRIu32 "\">\n"
            "        <counter type=\"METHOD\" missed=\"%d\" covered=\"%d\"/>\n      </method>\n",
            c->funcs[k].line, c->funcs[k].count == 0, c->funcs[k].count > 0);
      }
      fprintf(f,
              "      <counter type=\"METHOD\" missed=\"%" PRIu64 "\" covered=\"%" PRIu64 "\"/>\n",
              n.fm, n.fc);
      fputs("    </class>\n    <sourcefile name=\"", f);
      xml_attr(f, base);
      fputs("\">\n", f);
      size_t bk = 0;
      for (size_t k = 0; k < c->n_lines; k++) {
        uint64_t bf, bh;
        cov_line_branches(c, &bk, c->lines[k].line, &bf, &bh);
        fprintf(f,
                "      <line nr=\"%" PRIu32 "\" mi=\"%d\" ci=\"%d\" mb=\"%" PRIu64
                "\" cb=\"%" PRIu64 "\"/>\n",
                c->lines[k].line, c->lines[k].count == 0, c->lines[k].count > 0, bf - bh, bh);
      }
      counters(f, "      ", &n);
      fputs("    </sourcefile>\n", f);
      pkg.lm += n.lm, pkg.lc += n.lc, pkg.bm += n.bm, pkg.bc += n.bc, pkg.fm += n.fm,
          pkg.fc += n.fc;
    }
    counters(f, "    ", &pkg);
    fputs("  </package>\n", f);
    all.lm += pkg.lm, all.lc += pkg.lc, all.bm += pkg.bm, all.bc += pkg.bc, all.fm += pkg.fm,
        all.fc += pkg.fc;
    i = j;
  }
  counters(f, "  ", &all);
  fputs("</report>\n", f);
  return ferror(f) ? -1 : 0;
}

/* ---- Coveralls (docs.coveralls.io/api-reference) ---- */

static const char *env(const char *name) {
  const char *v = getenv(name);
  return v && *v ? v : NULL;
}

static const char *first_env(const char *const *names) {
  for (; *names; names++)
    if (env(*names))
      return env(*names);
  return NULL;
}

static void put_key(FILE *f, const char *key, const char *value) {
  if (!value)
    return;
  fprintf(f, "\"%s\": ", key);
  json_put_string(f, value);
  fputs(", ", f);
}

/* What `git -C dir ARGS...` prints (up to 64 KiB, NUL-terminated; malloc'd),
 * or NULL when git is not there, dir is no checkout or it fails. */
static char *git_out(const char *dir, const char *const *args) {
  const char *argv[16] = {"git", "-C", dir};
  size_t n = 3;
  for (; *args && n < 15; args++)
    argv[n++] = *args;
  argv[n] = NULL;
  int p[2];
  if (pipe2(p, O_CLOEXEC))
    return NULL;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, p[1], 1);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  int rc = posix_spawnp(&pid, "git", &fa, NULL, (char *const *)argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(p[1]);
  char *out = rc ? NULL : malloc(65536);
  size_t got = 0;
  ssize_t r;
  while (out && got < 65535 &&
         ((r = read(p[0], out + got, 65535 - got)) > 0 || (r < 0 && errno == EINTR)))
    got += r > 0 ? (size_t)r : 0;
  close(p[0]);
  int st = 0;
  if (!rc)
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
      ;
  if (!out || !WIFEXITED(st) || WEXITSTATUS(st)) {
    free(out);
    return NULL;
  }
  out[got] = 0;
  return out;
}

/* The next line of *p (its newline taken off), or "" at the end. */
static char *next_line(char **p) {
  char *l = *p, *nl = strchr(l, '\n');
  if (nl)
    *nl = 0, *p = nl + 1;
  else
    *p = l + strlen(l);
  return l;
}

/* Outside CI, the "git" block from the checkout at dir, as gcovr fills it:
 * the head commit (id, author, committer, message), the branch, the
 * remotes. Nothing when dir is no checkout. */
static void coveralls_git_checkout(FILE *f, const char *dir) {
  static const char *const log[] = {"log", "-1", "--format=%H%n%aN%n%ae%n%cN%n%ce%n%s", NULL};
  static const char *const ref[] = {"rev-parse", "--abbrev-ref", "HEAD", NULL};
  static const char *const rem[] = {"remote", "-v", NULL};
  char *head = git_out(dir, log);
  if (!head)
    return;
  static const char *const keys[] = {
      "id", "author_name", "author_email", "committer_name", "committer_email", "message"};
  fputs("\"git\": {\"head\": {", f);
  char *p = head;
  for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
    fprintf(f, "%s\"%s\": ", k ? ", " : "", keys[k]);
    json_put_string(f, next_line(&p));
  }
  fputs("}", f);
  free(head);
  char *branch = git_out(dir, ref);
  if (branch) {
    char *b = branch;
    fputs(", \"branch\": ", f);
    json_put_string(f, next_line(&b));
    free(branch);
  }
  char *remotes = git_out(dir, rem);
  if (remotes) {
    fputs(", \"remotes\": [", f);
    int any = 0;
    for (char *q = remotes, *l; *(l = next_line(&q));) {
      char name[256], url[4096], kind[16];
      if (sscanf(l, "%255s %4095s %15s", name, url, kind) != 3 || strcmp(kind, "(fetch)"))
        continue; /* (each remote once: its fetch URL) */
      fprintf(f, "%s{\"name\": ", any++ ? ", " : "");
      json_put_string(f, name);
      fputs(", \"url\": ", f);
      json_put_string(f, url);
      fputs("}", f);
    }
    fputs("]", f);
    free(remotes);
  }
  fputs("}, ", f);
}

/* What the CI says about the job, as the Coveralls clients read it:
 * COVERALLS_* first, then the CI's own variables; outside CI, the checkout. */
/* (Long: one table of the CIs' variables, then each field looked up in it.) */
static void coveralls_job(FILE *f, const char *dir) {
  struct ci {
    const char *detect, *name, *job_id, *number, *commit, *branch;
  };
  static const struct ci cis[] = {
      {.detect = "GITHUB_ACTIONS",
       .name = "github",
       .job_id = "GITHUB_RUN_ID",
       .number = "GITHUB_RUN_NUMBER",
       .commit = "GITHUB_SHA",
       .branch = "GITHUB_HEAD_REF"},
      {.detect = "GITLAB_CI",
       .name = "gitlab-ci",
       .job_id = "CI_JOB_ID",
       .number = "CI_PIPELINE_IID",
       .commit = "CI_COMMIT_SHA",
       .branch = "CI_COMMIT_REF_NAME"},
      {.detect = "JENKINS_URL",
       .name = "jenkins",
       .job_id = "BUILD_ID",
       .number = "BUILD_NUMBER",
       .commit = "GIT_COMMIT",
       .branch = "BRANCH_NAME"},
      {.detect = "TRAVIS",
       .name = "travis-ci",
       .job_id = "TRAVIS_JOB_ID",
       .number = "TRAVIS_BUILD_NUMBER",
       .commit = "TRAVIS_COMMIT",
       .branch = "TRAVIS_BRANCH"},
      {.detect = "CIRCLECI",
       .name = "circleci",
       .job_id = "CIRCLE_WORKFLOW_ID",
       .number = "CIRCLE_BUILD_NUM",
       .commit = "CIRCLE_SHA1",
       .branch = "CIRCLE_BRANCH"},
  };
  const struct ci *ci = NULL;
  for (size_t i = 0; i < sizeof(cis) / sizeof(cis[0]) && !ci; i++)
    if (env(cis[i].detect))
      ci = &cis[i];
  const char *token = env("COVERALLS_REPO_TOKEN");
  if (!token && ci && !strcmp(ci->name, "github"))
    token = env("GITHUB_TOKEN"); /* as the Coveralls GitHub Action passes it */
  put_key(f, "repo_token", token);
  put_key(f, "service_name",
          env("COVERALLS_SERVICE_NAME") ? env("COVERALLS_SERVICE_NAME")
          : ci                          ? ci->name
                                        : NULL);
  put_key(f, "service_job_id",
          env("COVERALLS_SERVICE_JOB_ID") ? env("COVERALLS_SERVICE_JOB_ID")
          : ci                            ? env(ci->job_id)
                                          : NULL);
  put_key(f, "service_number",
          env("COVERALLS_SERVICE_NUMBER") ? env("COVERALLS_SERVICE_NUMBER")
          : ci                            ? env(ci->number)
                                          : NULL);
  const char *pr = env("COVERALLS_PULL_REQUEST");
  char num[32] = "";
  if (!pr && ci && !strcmp(ci->name, "github") && env("GITHUB_REF") &&
      sscanf(env("GITHUB_REF"), "refs/pull/%31[0-9]/merge", num) == 1)
    pr = num;
  if (!pr && ci && !strcmp(ci->name, "gitlab-ci"))
    pr = env("CI_MERGE_REQUEST_IID");
  if (!pr && ci && !strcmp(ci->name, "jenkins"))
    pr = env("CHANGE_ID");
  if (!pr && ci && !strcmp(ci->name, "travis-ci") && env("TRAVIS_PULL_REQUEST") &&
      strcmp(env("TRAVIS_PULL_REQUEST"), "false"))
    pr = env("TRAVIS_PULL_REQUEST");
  put_key(f, "service_pull_request", pr);
  put_key(f, "flag_name", env("COVERALLS_FLAG_NAME"));
  const char *par = env("COVERALLS_PARALLEL");
  if (par && (!strcmp(par, "true") || !strcmp(par, "1")))
    fputs("\"parallel\": true, ", f);
  const char *commit = env("COVERALLS_GIT_COMMIT"), *branch = env("COVERALLS_GIT_BRANCH");
  if (!commit && ci)
    commit = env(ci->commit);
  if (!branch && ci) {
    static const char *const gh[] = {"GITHUB_HEAD_REF", "GITHUB_REF_NAME", NULL};
    branch = !strcmp(ci->name, "github") ? first_env(gh) : env(ci->branch);
  }
  if (!commit && !branch && !ci && dir) {
    coveralls_git_checkout(f, dir);
  } else if (commit || branch) {
    fputs("\"git\": {", f);
    if (commit) {
      fputs("\"head\": {\"id\": ", f);
      json_put_string(f, commit);
      fputs(branch ? "}, " : "}", f);
    }
    if (branch) {
      fputs("\"branch\": ", f);
      json_put_string(f, branch);
    }
    fputs("}, ", f);
  }
  const char *run_at = env("COVERALLS_RUN_AT");
  char when[40];
  if (!run_at) {
    time_t now = time(NULL);
    struct tm tm;
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    run_at = when;
  }
  put_key(f, "run_at", run_at);
}

int coveralls_write(const struct cov_model *m, FILE *f) {
  fputs("{", f);
  char *cwd = m->root ? NULL : getcwd(NULL, 0);
  coveralls_job(f, m->root ? m->root : cwd);
  free(cwd);
  fputs("\"source_files\": [", f);
  int first = 1;
  for (size_t i = 0; i < m->n_files; i++) {
    const struct cov_file *c = m->files[i];
    char hex[33], buf[8192];
    uint32_t n_src = 0;
    if (md5_file(cov_source_path(m, c->path, buf, sizeof(buf)), hex, &n_src)) {
      UCOV_ERR("%s: no source to digest (Coveralls needs it): left out\n", c->path);
      continue;
    }
    fputs(first ? "\n  {\"name\": " : ",\n  {\"name\": ", f);
    first = 0;
    json_put_string(f, cov_display(m, c->path));
    fprintf(f, ", \"source_digest\": \"%s\", \"coverage\": [", hex);
    /* one entry per source line: null where there is no code (lines past
     * the source's end are not the source's: left out, and said) */
    uint32_t top = n_src;
    if (c->n_lines && c->lines[c->n_lines - 1].line > top)
      UCOV_ERR("%s: coverage past its last line (%" PRIu32 "): left out\n", c->path, n_src);
    size_t k = 0;
    for (uint32_t ln = 1; ln <= top; ln++) {
      while (k < c->n_lines && c->lines[k].line < ln)
        k++;
      if (ln > 1)
        fputs(",", f);
      if (k < c->n_lines && c->lines[k].line == ln)
        fprintf(f, "%" PRIu64, c->lines[k].count);
      else
        fputs("null", f);
    }
    fputs("], \"branches\": [", f);
    for (size_t b = 0, n = 0; b < c->n_branches; b++) {
      const struct cov_branch *x = &c->branches[b];
      if (x->line > top)
        continue;
      fprintf(f, "%s%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu64, n++ ? "," : "", x->line,
              x->block, x->branch, x->executed ? x->taken : 0);
    }
    fputs("]}", f);
  }
  fputs("\n]}\n", f);
  return ferror(f) ? -1 : 0;
}

/* ---- gcovr's JSON summary (its keys, plus what was excluded) ---- */

/* gcovr's percentage: one decimal, 100.0 only when all are covered, no data -> dflt. */
static void percent(FILE *f, uint64_t hit, uint64_t found, const char *dflt) {
  if (!found)
    fputs(dflt, f);
  else if (hit == found)
    fputs("100.0", f);
  else {
    double p = 100.0 * (double)hit / (double)found;
    char s[32];
    snprintf(s, sizeof(s), "%.1f", p);
    fputs(strtod(s, NULL) > 99.9 ? "99.9" : s, f);
  }
}

static void summary_keys(FILE *f, const struct cov_summary *s, const char *dflt) {
  fprintf(f, "\"line_total\": %" PRIu64 ", \"line_covered\": %" PRIu64 ", \"line_percent\": ",
          s->lines_found, s->lines_hit);
  percent(f, s->lines_hit, s->lines_found, dflt);
  fprintf(f,
          ", \"function_total\": %" PRIu64 ", \"function_covered\": %" PRIu64
          ", \"function_percent\": ",
          s->funcs_found, s->funcs_hit);
  percent(f, s->funcs_hit, s->funcs_found, dflt);
  fprintf(f,
          ", \"branch_total\": %" PRIu64 ", \"branch_covered\": %" PRIu64 ", \"branch_percent\": ",
          s->branches_found, s->branches_hit);
  percent(f, s->branches_hit, s->branches_found, dflt);
  if (s->mcdc_found) {
    fprintf(f, ", \"mcdc_total\": %" PRIu64 ", \"mcdc_covered\": %" PRIu64 ", \"mcdc_percent\": ",
            s->mcdc_found, s->mcdc_hit);
    percent(f, s->mcdc_hit, s->mcdc_found, dflt);
  }
  fprintf(f,
          ", \"line_excluded\": %" PRIu64 ", \"function_excluded\": %" PRIu64
          ", \"branch_excluded\": %" PRIu64,
          s->lines_excluded, s->funcs_excluded, s->branches_excluded);
}

int json_summary_write(const struct cov_model *m, FILE *f, const struct cov_diff *d) {
  fputs("{\"root\": ", f);
  char *cwd = m->root ? NULL : getcwd(NULL, 0);
  json_put_string(f, m->root ? m->root : cwd ? cwd : ".");
  free(cwd);
  fputs(", \"gcovr/summary_format_version\": \"0.5\", \"files\": [", f);
  for (size_t i = 0; i < m->n_files; i++) {
    struct cov_summary s;
    cov_file_summary(m->files[i], &s);
    fputs(i ? ",\n  {\"filename\": " : "\n  {\"filename\": ", f);
    json_put_string(f, cov_display(m, m->files[i]->path));
    fputs(", ", f);
    summary_keys(f, &s, "null");
    fputs("}", f);
  }
  struct cov_summary all;
  cov_summary(m, &all);
  fputs("\n], ", f);
  summary_keys(f, &all, "0.0");
  if (d && d->have_patch) { /* (diff-cover's "total_percent_covered" of the changed lines) */
    fprintf(f,
            ", \"patch_covered\": %" PRIu64 ", \"patch_total\": %" PRIu64 ", \"patch_percent\": ",
            d->patch_hit, d->patch_found);
    if (d->patch_found)
      fprintf(f, "%.1f", 100.0 * (double)d->patch_hit / (double)d->patch_found);
    else
      fputs("null", f);
  }
  fputs("}\n", f);
  return ferror(f) ? -1 : 0;
}

/* ---- Markdown, for a pull-request comment ---- */

/* Text in a cell: Markdown's own characters escaped; a control character
 * (a CR or a newline would end the table's row) shown as \r, \n, \t or
 * \xNN, rendered so (its backslash escaped too). */
static void md_text(FILE *f, const char *s) {
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c < 0x20 || c == 0x7f) {
      const char *named = c == '\n' ? "n" : c == '\r' ? "r" : c == '\t' ? "t" : NULL;
      if (named)
        fprintf(f, "\\\\%s", named);
      else
        fprintf(f, "\\\\x%02x", c);
      continue;
    }
    if (strchr("|\\`*_[]<>", c))
      putc('\\', f);
    putc(c, f);
  }
}

/* s percent-encoded for a link's address: what a Markdown link or a URL
 * could take for its own (spaces, parentheses, brackets, '#', '&', '%', ...)
 * escaped; keep: more characters left as they are (":?=" in a base URL). */
static void md_url(FILE *f, const char *s, const char *keep) {
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
        strchr("-._~/", c) || (c > ' ' && c < 0x7f && strchr(keep, c)))
      putc(c, f);
    else
      fprintf(f, "%%%02X", c);
  }
}

/* A file's path, as a link to its view (at line; 0: the top) when there is
 * a page to link to. */
static void md_file(FILE *f, const char *url, const char *path, uint32_t line, const char *text) {
  if (!url) {
    md_text(f, text);
    return;
  }
  putc('[', f);
  md_text(f, text);
  fputs("](", f);
  md_url(f, url, ":?=&#@!$'*+,;%");
  fputs(strchr(url, '#') ? "&file=" : "#file=", f);
  md_url(f, path, "");
  if (line)
    fprintf(f, "&line=%" PRIu32, line);
  putc(')', f);
}

static void md_cell(FILE *f, uint64_t hit, uint64_t found) {
  if (!found)
    fputs(" - |", f);
  else
    fprintf(f, " %.1f%% (%" PRIu64 "/%" PRIu64 ") |", 100.0 * (double)hit / (double)found, hit,
            found);
}

struct ranked {
  size_t file;
  double pct;
  uint64_t missed;
};

static int by_coverage(const void *a, const void *b) {
  const struct ranked *x = a, *y = b;
  if (x->pct != y->pct)
    return x->pct < y->pct ? -1 : 1;
  if (x->missed != y->missed)
    return x->missed > y->missed ? -1 : 1;
  return x->file < y->file ? -1 : x->file > y->file;
}

/* (Long: the summary's parts in the order they are written, over one set of totals.) */
int markdown_write(const struct cov_model *m, FILE *f, const char *title, const char *url,
                   const struct cov_diff *diff, size_t lowest) {
  struct cov_summary s;
  cov_summary(m, &s);
  fputs("## ", f);
  md_text(f, title);
  fputs("\n\n| | Coverage | Covered | Total |\n|---|---:|---:|---:|\n", f);
  const char *what[] = {"Lines", "Functions", "Branches", "MC/DC conditions"};
  uint64_t hit[] = {s.lines_hit, s.funcs_hit, s.branches_hit, s.mcdc_hit},
           found[] = {s.lines_found, s.funcs_found, s.branches_found, s.mcdc_found};
  for (int k = 0; k < 4; k++) {
    if (k == 3 && !found[k])
      continue;
    if (found[k])
      fprintf(f, "| %s | %.1f%% | %" PRIu64 " | %" PRIu64 " |\n", what[k],
              100.0 * (double)hit[k] / (double)found[k], hit[k], found[k]);
    else
      fprintf(f, "| %s | - | 0 | 0 |\n", what[k]);
  }
  if (diff && diff->have_patch) {
    if (diff->patch_found)
      fprintf(f, "| Patch | %.1f%% | %" PRIu64 " | %" PRIu64 " |\n",
              100.0 * (double)diff->patch_hit / (double)diff->patch_found, diff->patch_hit,
              diff->patch_found);
    else
      fputs("| Patch | - | 0 | 0 |\n", f);
  }
  if (s.lines_excluded || s.branches_excluded || s.funcs_excluded)
    fprintf(f, "\nExcluded: %" PRIu64 " lines, %" PRIu64 " functions, %" PRIu64 " branches.\n",
            s.lines_excluded, s.funcs_excluded, s.branches_excluded);
  if (diff) {
    int any = 0;
    for (size_t i = 0; i < diff->n_files && i < m->n_files; i++) {
      const struct cov_diff_file *d = &diff->files[i];
      uint64_t changed = 0;
      for (int c = 1; c < COV_DIFF_CATEGORIES; c++)
        if (c != COV_CBC && c != COV_UBC)
          changed += d->counts[c];
      if (!changed)
        continue;
      if (!any++) {
        fputs("\n### Changed files\n\n| File |", f);
        for (int c = 1; c < COV_DIFF_CATEGORIES; c++)
          fprintf(f, " %s |", cov_category_name[c]);
        fputs(" Uncovered new lines |\n|---|", f);
        for (int c = 1; c < COV_DIFF_CATEGORIES; c++)
          fputs("---:|", f);
        fputs("---|\n", f);
      }
      const char *shown = cov_display(m, m->files[i]->path);
      fputs("| ", f);
      md_file(f, url, shown, 0, shown);
      fputs(" |", f);
      for (int c = 1; c < COV_DIFF_CATEGORIES; c++)
        fprintf(f, " %" PRIu64 " |", d->counts[c]);
      int listed = 0;
      for (size_t k = 0; k < d->n; k++)
        if (d->lines[k].category == COV_UNC || d->lines[k].category == COV_LBC) {
          if (listed < 20) {
            char num[16];
            snprintf(num, sizeof(num), "%" PRIu32, d->lines[k].line);
            fputs(listed ? ", " : " ", f);
            md_file(f, url, shown, d->lines[k].line, num);
          }
          listed++;
        }
      if (listed > 20)
        fprintf(f, " and %d more", listed - 20);
      fputs(" |\n", f);
    }
    if (!any)
      fputs("\nNo changed lines with code.\n", f);
  }
  if (lowest && m->n_files) {
    struct ranked *r = calloc(m->n_files, sizeof(*r));
    if (!r)
      return -1;
    size_t n = 0;
    for (size_t i = 0; i < m->n_files; i++) {
      struct cov_summary fs;
      cov_file_summary(m->files[i], &fs);
      if (!fs.lines_found)
        continue;
      r[n].file = i;
      r[n].pct = (double)fs.lines_hit / (double)fs.lines_found;
      r[n].missed = fs.lines_found - fs.lines_hit;
      n++;
    }
    qsort(r, n, sizeof(*r), by_coverage);
    if (n && r[0].pct < 1.0) {
      fprintf(f, "\n### Lowest-covered files\n\n| File | Lines | Functions | Branches |\n"
                 "|---|---:|---:|---:|\n");
      for (size_t k = 0; k < n && k < lowest && r[k].pct < 1.0; k++) {
        struct cov_summary fs;
        cov_file_summary(m->files[r[k].file], &fs);
        const char *shown = cov_display(m, m->files[r[k].file]->path);
        fputs("| ", f);
        md_file(f, url, shown, 0, shown);
        fputs(" |", f);
        md_cell(f, fs.lines_hit, fs.lines_found);
        md_cell(f, fs.funcs_hit, fs.funcs_found);
        md_cell(f, fs.branches_hit, fs.branches_found);
        fputs("\n", f);
      }
    }
    free(r);
  }
  return ferror(f) ? -1 : 0;
}
