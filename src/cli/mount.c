/* SPDX-License-Identifier: MIT */
/*
 * ucov mount --pid N DIR: the objects of a running target as files (FUSE),
 * as debugfs shows the kernel's: gcov/<build path>/x.gcda (with a .gcno link
 * to the notes file), pgo/<program>.profraw, kcov/<id>.kcov, modules, and
 * reset files. Each open reads one snapshot of the object, whose exact size
 * fstat reports, so cp and tar copy whole files; writing to an object resets
 * it, writing to reset (pgo/reset) resets all (the LLVM profiles).
 */
#define _GNU_SOURCE
#define FUSE_USE_VERSION 31
#include <errno.h>
#include <fuse.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "mount.h"
#include "proto/client.h"
#include "proto/protocol.h"

static const char mount_usage[] =
    "usage: ucov mount --pid N [-f] [--allow-other] DIR\n"
    "\n"
    "Show the objects of running ucov target N as files under DIR, as debugfs\n"
    "shows the kernel's: gcov/<build path>/x.gcda (and a .gcno link), pgo/*.profraw,\n"
    "kcov/<id>.kcov, modules; and the kernel docs' names: gcov/reset (with lcov's\n"
    "build-directory link gcov/kernel/gcov/base.gcno), pgo/profraw and\n"
    "pgo/vmlinux.profraw (every module's profile). Each open reads one snapshot.\n"
    "Writing to an object resets it; writing to DIR/reset resets everything, to\n"
    "DIR/gcov/reset the gcov units, to DIR/pgo/reset the LLVM profiles. Leave\n"
    "with fusermount3 -u DIR or Ctrl-C; when the target exits the mount goes away\n"
    "and ucov mount exits with status 1.\n"
    "\n"
    "  -p, --pid N       the target process\n"
    "  -f, --foreground  stay in the foreground\n"
    "  --allow-other     let other users see the files (needs user_allow_other)\n"
    "  -h, --help\n";

struct snap {
  uint8_t *data;
  size_t len;
  int reset_done;
};

static int fs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi) {
  memset(st, 0, sizeof(*st));
  st->st_uid = getuid();
  st->st_gid = getgid();
  st->st_nlink = 1;
  st->st_mtime = st->st_ctime = st->st_atime = time(NULL);
  if (fi && fi->fh) { /* an open file: its snapshot */
    struct snap *s = (struct snap *)(uintptr_t)fi->fh;
    st->st_mode = S_IFREG | 0644;
    st->st_size = (off_t)s->len;
    return 0;
  }
  int err = mount_refresh();
  if (err && strcmp(path, "/") != 0)
    return err;
  long i = -1;
  switch (mount_classify(path, &i)) {
  case K_DIR:
    st->st_mode = S_IFDIR | 0755;
    st->st_nlink = 2;
    return 0;
  case K_RESET:
  case K_PGO_RESET:
  case K_GCOV_RESET:
    st->st_mode = S_IFREG | 0644; /* reads empty, so cp -a copies the tree */
    return 0;
  case K_PGO_PROFRAW: {
    uint8_t *d;
    size_t n;
    err = mount_read_all_pgo(&d, &n);
    free(d);
    if (err)
      return err;
    st->st_mode = S_IFREG | 0444;
    st->st_size = (off_t)n;
    return 0;
  }
  case K_GCNO:
  case K_MARKER:
    st->st_mode = S_IFLNK | 0777;
    return 0;
  case K_OBJECT: {
    struct ucov_ctl_reply r;
    err = mount_call(UCOV_OP_SIZE, ucov_mount.objs[i].name, &r);
    if (err)
      return err;
    uint64_t size = 0;
    if (r.len == 8)
      memcpy(&size, r.data, 8);
    ucov_ctl_reply_free(&r);
    st->st_mode = S_IFREG | (mount_resettable(path + 1) ? 0644 : 0444);
    st->st_size = (off_t)size;
    return 0;
  }
  default:
    return -ENOENT;
  }
}

static int fs_readlink(const char *path, char *buf, size_t len) {
  long i;
  enum mount_kind k = mount_refresh() ? K_NONE : mount_classify(path, &i);
  if (k == K_MARKER) {
    /* The build directory, from the notes files of the units listed (their
     * warnings once: lcov reads the link at every capture). */
    static int warned;
    const char **names = calloc((size_t)ucov_mount.n_objs + 1, sizeof(*names));
    for (long j = 0; names && j < ucov_mount.n_objs; j++)
      names[j] = ucov_mount.objs[j].name;
    char *target = names ? lcov_marker_target(names, (size_t)ucov_mount.n_objs, !warned) : NULL;
    warned = 1;
    free(names);
    if (!target)
      return -ENOMEM;
    snprintf(buf, len, "%s", target);
    free(target);
    return 0;
  }
  if (k != K_GCNO)
    return -ENOENT;
  size_t n = strlen(path);
  snprintf(buf, len, "/%.*s.gcno", (int)(n - 1 - 5 - 5), path + 1 + 5);
  return 0;
}

static int fs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
                      struct fuse_file_info *fi, enum fuse_readdir_flags flags) {
  (void)off;
  (void)fi;
  (void)flags;
  int err = mount_refresh();
  if (err)
    return err;
  long i;
  if (mount_classify(path, &i) != K_DIR)
    return -ENOTDIR;
  fill(buf, ".", NULL, 0, 0);
  fill(buf, "..", NULL, 0, 0);
  const char *rel = strcmp(path, "/") == 0 ? "" : path + 1;
  size_t len = strlen(rel);
  int pgo = ucov_mount.any_profraw, gcov = ucov_mount.any_gcda;
  /* The objects beneath rel are one run of the sorted list, and the names of
   * one child directory one run within it: each child once, by looking at
   * the one before. */
  char *prefix = NULL;
  if (asprintf(&prefix, "%s%s", rel, len ? "/" : "") < 0)
    return -ENOMEM;
  size_t plen = strlen(prefix);
  char prev[4096] = "";
  for (long k = mount_lower_bound(prefix);
       k < ucov_mount.n_objs && strncmp(ucov_mount.objs[k].name, prefix, plen) == 0; k++) {
    const char *n = ucov_mount.objs[k].name;
    const char *child = n + plen;
    const char *slash = strchr(child, '/');
    char name[4096];
    snprintf(name, sizeof(name), "%.*s", (int)(slash ? slash - child : (long)strlen(child)), child);
    if (strcmp(name, prev) == 0)
      continue;
    snprintf(prev, sizeof(prev), "%s", name);
    fill(buf, name, NULL, 0, 0);
    /* a unit's .gcno link beside it, unless an object has that name */
    char *notes = !slash ? objname_notes(n) : NULL;
    if (notes && access(notes, F_OK) == 0) {
      char link[4096], *full = NULL;
      snprintf(link, sizeof(link), "%.*s.gcno", (int)(strlen(name) - 5), name);
      if (asprintf(&full, "%s%s", prefix, link) >= 0 && mount_find(full) < 0)
        fill(buf, link, NULL, 0, 0);
      free(full);
    }
    free(notes);
  }
  free(prefix);
  /* a real build path under /kernel already lists it; a module's profile
   * named vmlinux.profraw is listed as itself */
  long kk = mount_lower_bound("gcov/kernel/");
  int have_kernel =
      kk < ucov_mount.n_objs && strncmp(ucov_mount.objs[kk].name, "gcov/kernel/", 12) == 0;
  int have_vmlinux = mount_find("pgo/vmlinux.profraw") >= 0;
  if (!len)
    fill(buf, "reset", NULL, 0, 0);
  if (pgo && strcmp(rel, "pgo") == 0) {
    fill(buf, "reset", NULL, 0, 0);
    fill(buf, "profraw", NULL, 0, 0);
    if (!have_vmlinux)
      fill(buf, "vmlinux.profraw", NULL, 0, 0);
  }
  if (gcov && strcmp(rel, "gcov") == 0) {
    fill(buf, "reset", NULL, 0, 0);
    if (!have_kernel)
      fill(buf, "kernel", NULL, 0, 0);
  }
  if (gcov && strcmp(rel, "gcov/kernel") == 0)
    fill(buf, "gcov", NULL, 0, 0);
  if (gcov && strcmp(rel, "gcov/kernel/gcov") == 0)
    fill(buf, "base.gcno", NULL, 0, 0);
  return 0;
}

static int fs_open(const char *path, struct fuse_file_info *fi) {
  int err = mount_refresh();
  if (err)
    return err;
  long i = -1;
  enum mount_kind k = mount_classify(path, &i);
  int writing = (fi->flags & O_ACCMODE) != O_RDONLY;
  if (k == K_RESET || k == K_PGO_RESET || k == K_GCOV_RESET) {
    (void)writing;
    fi->fh = 0;
    fi->direct_io = 1;
    return 0;
  }
  if (k == K_PGO_PROFRAW) {
    if (writing)
      return -EACCES;
    struct snap *s = calloc(1, sizeof(*s));
    if (!s)
      return -ENOMEM;
    err = mount_read_all_pgo(&s->data, &s->len);
    if (err) {
      free(s);
      return err;
    }
    fi->fh = (uint64_t)(uintptr_t)s;
    return 0;
  }
  if (k != K_OBJECT)
    return k == K_NONE ? -ENOENT : -EISDIR;
  if (writing && !mount_resettable(path + 1))
    return -EACCES;
  struct snap *s = calloc(1, sizeof(*s));
  if (!s)
    return -ENOMEM;
  if ((fi->flags & O_ACCMODE) != O_WRONLY) {
    struct ucov_ctl_reply r;
    err = mount_call(UCOV_OP_READ, ucov_mount.objs[i].name, &r);
    if (err) {
      free(s);
      return err;
    }
    s->data = r.data;
    s->len = r.len;
  }
  fi->fh = (uint64_t)(uintptr_t)s;
  fi->keep_cache = 0;
  return 0;
}

static int fs_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi) {
  (void)path;
  struct snap *s = (struct snap *)(uintptr_t)fi->fh;
  if (!s || (size_t)off >= s->len)
    return 0;
  size_t n = s->len - (size_t)off < size ? s->len - (size_t)off : size;
  memcpy(buf, s->data + off, n);
  return (int)n;
}

static int fs_write(const char *path, const char *buf, size_t size, off_t off,
                    struct fuse_file_info *fi) {
  (void)buf;
  (void)off;
  long i = -1;
  enum mount_kind k = mount_classify(path, &i);
  struct snap *s = (struct snap *)(uintptr_t)fi->fh;
  struct ucov_ctl_reply r;
  int err = 0;
  if (k == K_RESET) {
    err = mount_call(UCOV_OP_RESET_ALL, NULL, &r);
    if (!err)
      ucov_ctl_reply_free(&r);
  } else if (k == K_PGO_RESET) {
    err = mount_reset_prefixed("pgo/");
  } else if (k == K_GCOV_RESET) {
    err = mount_reset_prefixed("gcov/");
  } else if (k == K_OBJECT && s && !s->reset_done) {
    err = mount_call(UCOV_OP_RESET, ucov_mount.objs[i].name, &r);
    if (!err) {
      ucov_ctl_reply_free(&r);
      s->reset_done = 1; /* once per open: the rest of what is written changes nothing */
    }
  }
  return err ? err : (int)size;
}

static int fs_truncate(const char *path, off_t size, struct fuse_file_info *fi) {
  (void)size;
  (void)fi;
  long i = -1;
  enum mount_kind k = mount_classify(path, &i);
  if (k == K_RESET || k == K_PGO_RESET || k == K_GCOV_RESET ||
      (k == K_OBJECT && mount_resettable(path + 1)))
    return 0; /* "echo 1 > file" truncates first: nothing to do */
  return -EACCES;
}

static int fs_release(const char *path, struct fuse_file_info *fi) {
  (void)path;
  struct snap *s = (struct snap *)(uintptr_t)fi->fh;
  if (s) {
    free(s->data);
    free(s);
  }
  return 0;
}

static void *watch(void *arg) {
  (void)arg;
  for (;;) {
    struct timespec ts = {0, 200 * 1000 * 1000};
    nanosleep(&ts, NULL);
    unsigned long long st = mount_start_time(ucov_mount.pid);
    if (st && st == ucov_mount.start && !__atomic_load_n(&ucov_mount.gone, __ATOMIC_ACQUIRE))
      continue;
    __atomic_store_n(&ucov_mount.gone, 1, __ATOMIC_RELEASE);
    UCOV_ERR("process %d %s: unmounting %s\n", (int)ucov_mount.pid,
             st && st != ucov_mount.start ? "was replaced by another" : "exited", ucov_mount.dir);
    fuse_exit(ucov_mount.fuse);
    /* Unmount (lazily, by fusermount3, so that no descriptor of the loop is
     * closed under it): its read fails and it returns. */
    pid_t child = fork();
    if (child == 0) {
      execlp("fusermount3", "fusermount3", "-u", "-z", ucov_mount.abs_dir, (char *)NULL);
      _exit(127);
    }
    if (child > 0)
      waitpid(child, NULL, 0);
    return NULL;
  }
}

static void *fs_init(struct fuse_conn_info *conn, struct fuse_config *cfg) {
  (void)conn;
  cfg->direct_io = 1; /* sizes change: no page cache, reads come to us */
  cfg->attr_timeout = 0;
  cfg->entry_timeout = 0;
  cfg->negative_timeout = 0;
  ucov_mount.fuse = fuse_get_context()->fuse;
  pthread_t t;
  if (pthread_create(&t, NULL, watch, NULL) == 0)
    pthread_detach(t);
  return NULL;
}

static const struct fuse_operations ops = {
    .init = fs_init,
    .getattr = fs_getattr,
    .readlink = fs_readlink,
    .readdir = fs_readdir,
    .open = fs_open,
    .read = fs_read,
    .write = fs_write,
    .truncate = fs_truncate,
    .release = fs_release,
};

int cmd_mount(int argc, char **argv) {
  static const struct option opts[] = {CLI_TARGET_OPTIONS,
                                       {"foreground", no_argument, 0, 'f'},
                                       {"allow-other", no_argument, 0, 'a'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  int c, fg = 0, other = 0;
  struct cli_target t = {0};
  optind = 1;
  while ((c = getopt_long(argc, argv, "p:fh", opts, NULL)) != -1) {
    int r = cli_target_option(&t, c, optarg, CLI_TARGET_PID);
    if (r < 0)
      return UCOV_EXIT_USAGE;
    if (r > 0)
      continue;
    switch (c) {
    case 'f':
      fg = 1;
      break;
    case 'a':
      other = 1;
      break;
    case 'h':
      fputs(mount_usage, stdout);
      return UCOV_EXIT_OK;
    default:
      return cli_try_help();
    }
  }
  ucov_mount.pid = t.pid;
  if (!ucov_mount.pid || optind != argc - 1) {
    UCOV_ERR(!ucov_mount.pid ? "needs --pid N\n" : "needs one DIR\n");
    return cli_try_help();
  }
  ucov_mount.dir = argv[optind];
  if (!realpath(ucov_mount.dir, ucov_mount.abs_dir)) {
    diag_at(DIAG_ERROR, ucov_mount.dir, 0, "%s", strerror(errno));
    return UCOV_EXIT_FAIL;
  }
  char err[256];
  if (ucov_ctl_open(ucov_mount.pid, &ucov_mount.ctl, err, sizeof(err))) {
    UCOV_ERR("%s\n", err);
    return UCOV_EXIT_FAIL;
  }
  ucov_mount.start = mount_start_time(ucov_mount.pid);
  char *fargv[8];
  int fargc = 0;
  fargv[fargc++] = "ucov-mount";
  fargv[fargc++] = "-s"; /* one thread: the connection carries one request at a time */
  if (fg)
    fargv[fargc++] = "-f";
  fargv[fargc++] = "-o";
  fargv[fargc++] = other ? "fsname=ucov,subtype=ucov,allow_other" : "fsname=ucov,subtype=ucov";
  fargv[fargc++] = (char *)ucov_mount.dir;
  fargv[fargc] = NULL;
  int ret = fuse_main(fargc, fargv, &ops, NULL);
  ucov_ctl_close(&ucov_mount.ctl);
  ucov_ctl_objects_free(ucov_mount.objs, ucov_mount.n_objs);
  if (__atomic_load_n(&ucov_mount.gone, __ATOMIC_ACQUIRE))
    return UCOV_EXIT_FAIL;
  return ret ? UCOV_EXIT_FAIL : UCOV_EXIT_OK;
}
