/* SPDX-License-Identifier: MIT */
/*
 * Coveralls' JSON (docs.coveralls.io/api-reference): the source files with
 * their MD5 digests and line counts, the CI service's job and the git
 * checkout, from the environment or from git (see writers.h).
 */
#define _GNU_SOURCE
#include "writers.h"
#include "base/json.h"
#include "base/md5.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

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

/* A CI the Coveralls clients know: what says it runs, and where it keeps
 * the job's fields. */
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

/* The pull request: COVERALLS_PULL_REQUEST, else the CI's (num: room for it). */
static const char *pull_request(const struct ci *ci, char num[32]) {
  const char *pr = env("COVERALLS_PULL_REQUEST");
  num[0] = 0;
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
  return pr;
}

/* The "git" block: COVERALLS_GIT_*, else the CI's commit and branch;
 * outside CI, the checkout at dir. */
static void coveralls_git(FILE *f, const struct ci *ci, const char *dir) {
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
}

/* What the CI says about the job, as the Coveralls clients read it:
 * COVERALLS_* first, then the CI's own variables; outside CI, the checkout. */
static void coveralls_job(FILE *f, const char *dir) {
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
  char num[32];
  const char *pr = pull_request(ci, num);
  put_key(f, "service_pull_request", pr);
  put_key(f, "flag_name", env("COVERALLS_FLAG_NAME"));
  const char *par = env("COVERALLS_PARALLEL");
  if (par && (!strcmp(par, "true") || !strcmp(par, "1")))
    fputs("\"parallel\": true, ", f);
  coveralls_git(f, ci, dir);
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
      diag_at(DIAG_ERROR, c->path, 0, "no source to digest (Coveralls needs it): left out");
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
      diag_at(DIAG_ERROR, c->path, 0, "coverage past its last line (%" PRIu32 "): left out", n_src);
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
