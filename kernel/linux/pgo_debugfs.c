// SPDX-License-Identifier: MIT
/*
 * The LLVM profile side of ucov's Linux port: each module built with clang's
 * profile instrumentation (UCOV_PGO, ucov.mk; or the kernel's own
 * -fprofile-generate under CONFIG_PGO_CLANG) registered as it comes and
 * forgotten as it goes, vmlinux's own profile when the port is built into a
 * kernel with CONFIG_PGO_CLANG, and the files of the Clang PGO kernel
 * documents under /sys/kernel/debug/pgo:
 *
 *   profraw           every profile, vmlinux's first, one after the other
 *                     (as llvm-profdata reads several in one file)
 *   vmlinux.profraw   vmlinux's (a write to it resets it); in ucov.ko, which
 *                     has no vmlinux profile, the same as profraw
 *   <module>.profraw  one module's (a write to it resets it)
 *   reset             a write resets every profile; reads are empty
 *
 * A module's sections are found by the symbols ucov_pgo.lds put around them
 * at its link (CONFIG_KALLSYMS_ALL keeps them in its symbol table);
 * vmlinux's by those its linker script puts around them (PGO_CLANG_DATA,
 * include/asm-generic/vmlinux.lds.h). The counters are read live minus a
 * reset baseline by the core's writer (pgo.c): the same objects `ucov pull
 * --dev /dev/ucov` reads.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include "compat.h"
#include "linux_port.h"
#include "ucov/port/pgo.h"
#include "ucov/port/port.h"
#include "ucov/port/sink.h"

/* The value profiler's entry points, for modules whose code calls them (in
 * ucov.ko no value profiling is set up: they drop what they are given; built
 * into vmlinux with CONFIG_PGO_CLANG, vmlinux's value nodes and the core's
 * pool take the values of vmlinux and modules alike, and a module's nodes
 * stay taken when it goes: a kernel that loads and unloads modules for long
 * runs out of nodes, and counts the values it drops, ucov_vp_dropped). */
EXPORT_SYMBOL(__llvm_profile_instrument_target);
EXPORT_SYMBOL(__llvm_profile_instrument_target_value);
EXPORT_SYMBOL(__llvm_profile_instrument_memop);

/* Profiles, by index (the object registry's, stable while the module stays:
 * a slot is reused only after its module went); vmlinux's, if any, is slot 0
 * and stays. Port lock. */
#define PGO_MODULES 64
static struct pgo_module {
  bool used;
  struct module *mod; /* NULL: vmlinux */
  struct ucov_llvm_sections s;
  struct ucov_pgo_state state;
  char name[MODULE_NAME_LEN];
} pgo_modules[PGO_MODULES];
static unsigned int n_slots; /* slots ever used */

int ucov_port_llvm_sections(unsigned i, struct ucov_llvm_sections *s) {
  if (i >= n_slots)
    return -1;
  if (!pgo_modules[i].used)
    return 1;
  *s = pgo_modules[i].s;
  return 0;
}

/* The address of mod's symbol `name`, 0 if it has none. */
static unsigned long mod_symbol(struct module *mod, const char *name) {
  unsigned long addr = 0;

  linux_mod_symbols(mod, name, &addr, 1);
  return addr;
}

/* A section's bounds by its two symbols: 0, or -1 if they are not a range. */
static int bounds(struct module *mod, const char *sec, void *begin, void *end) {
  char b[40], e[40];
  unsigned long x, y;

  snprintf(b, sizeof(b), "__ucov_prf_%s", sec);
  snprintf(e, sizeof(e), "__ucov_prf_%s_end", sec);
  x = mod_symbol(mod, b);
  y = mod_symbol(mod, e);
  if (!x && !y)
    y = x; /* no such section: empty */
  else if (!x || !y || y < x)
    return -1;
  *(unsigned long *)begin = x;
  *(unsigned long *)end = y;
  return 0;
}

static void state_free(struct ucov_pgo_state *c) {
  ucov_port_free(c->base_cnts);
  ucov_port_free(c->pending_cnts);
  ucov_port_free(c->pending_bits);
  ucov_port_free(c->pending_vp);
  memset(c, 0, sizeof(*c));
}

/* m's sections (set by the caller, port lock held) read once: then m is
 * the slot of mod's profile (NULL: vmlinux's). 0, or the error, said. */
static int slot_fill(struct pgo_module *m, struct module *mod, struct ucov_pgo_layout *l) {
  int err = ucov_pgo_prepare(&m->s, l);

  if (err) {
    state_free(&m->state);
    pr_err("ucov: %s: %s: no LLVM profile\n", m->name,
           err == -UCOV_EOPNOTSUPP ? "this raw profile version or variant is not supported"
                                   : "the __llvm_prf_data records do not match their counters");
    return err;
  }
  m->mod = mod;
  m->used = true;
  if (m - pgo_modules >= n_slots)
    n_slots = m - pgo_modules + 1;
  return 0;
}

static void pgo_add(struct module *mod) {
  struct ucov_llvm_sections s = {0};
  struct ucov_pgo_layout l;
  struct pgo_module *m = NULL;
  unsigned int i;

  if (!mod_symbol(mod, "__ucov_prf_data"))
    return; /* not built with UCOV_PGO */
  if (bounds(mod, "data", &s.data, &s.data_end) || bounds(mod, "cnts", &s.cnts, &s.cnts_end) ||
      bounds(mod, "bits", &s.bits, &s.bits_end) || bounds(mod, "names", &s.names, &s.names_end) ||
      bounds(mod, "vnds", &s.vnds, &s.vnds_end))
    s.data = s.data_end = NULL; /* not whole: said below */
  else if (s.data == s.data_end && s.cnts == s.cnts_end)
    return; /* linked with module.lds, but nothing in it profiled (PGO_PROFILE := n) */
  if (s.data == s.data_end) {
    pr_err("ucov: %s: its __llvm_prf sections are not whole (was it linked with ucov_pgo.lds?): no "
           "LLVM profile\n",
           mod->name);
    return;
  }
  ucov_port_lock();
  for (i = 0; i < PGO_MODULES && !m; i++)
    if (!pgo_modules[i].used)
      m = &pgo_modules[i];
  if (!m) {
    ucov_port_unlock();
    pr_err("ucov: %s: more than %d modules with an LLVM profile: no profile\n", mod->name,
           PGO_MODULES);
    return;
  }
  memset(&m->state, 0, sizeof(m->state));
  strscpy(m->name, mod->name, sizeof(m->name));
  s.name = m->name;
  s.state = &m->state;
  m->s = s;
  if (!slot_fill(m, mod, &l))
    ucov_port_object_added();
  ucov_port_unlock();
}

#if defined(UCOV_LINUX_BUILTIN) && defined(CONFIG_PGO_CLANG)
/* vmlinux's sections (PGO_CLANG_DATA in the kernel's linker script), and the
 * raw profile version clang's -fprofile-generate emits beside them. */
extern u8 __llvm_prf_data_start[], __llvm_prf_data_end[], __llvm_prf_cnts_start[],
    __llvm_prf_cnts_end[], __llvm_prf_bits_start[], __llvm_prf_bits_end[], __llvm_prf_names_start[],
    __llvm_prf_names_end[], __llvm_prf_vnds_start[], __llvm_prf_vnds_end[];
extern const u64 __llvm_profile_raw_version;

/* vmlinux's profile is slot 0 (unless it could not be read). */
static bool vmlinux_profiled(void) {
  return pgo_modules[0].used && !pgo_modules[0].mod;
}

/* Slot 0: vmlinux, from the start (its counters count from boot), its value
 * profiling started (values before this are dropped). */
static void vmlinux_add(void) {
  struct pgo_module *m = &pgo_modules[0];
  struct ucov_pgo_layout l;

  ucov_port_lock();
  memset(m, 0, sizeof(*m));
  strscpy(m->name, "vmlinux", sizeof(m->name));
  m->s = (struct ucov_llvm_sections){
      .data = __llvm_prf_data_start,
      .data_end = __llvm_prf_data_end,
      .cnts = (u64 *)__llvm_prf_cnts_start,
      .cnts_end = (u64 *)__llvm_prf_cnts_end,
      .bits = __llvm_prf_bits_start,
      .bits_end = __llvm_prf_bits_end,
      .names = __llvm_prf_names_start,
      .names_end = __llvm_prf_names_end,
      .vnds = (struct ucov_vp_node *)__llvm_prf_vnds_start,
      .vnds_end = (struct ucov_vp_node *)__llvm_prf_vnds_end,
      .version = __llvm_profile_raw_version,
      .name = m->name,
      .state = &m->state,
  };
  if (!slot_fill(m, NULL, &l)) {
    ucov_vp_setup(&m->s, &l, 0);
    ucov_port_object_added();
  }
  ucov_port_unlock();
}
#else
static bool vmlinux_profiled(void) {
  return false;
}

static void vmlinux_add(void) {}
#endif

/* Before mod's memory goes (a read in progress holds the port lock). */
static void pgo_remove(struct module *mod) {
  unsigned int i;

  ucov_port_lock();
  for (i = 0; i < n_slots; i++)
    if (pgo_modules[i].used && pgo_modules[i].mod == mod) {
      state_free(&pgo_modules[i].state);
      pgo_modules[i].used = false;
      pgo_modules[i].mod = NULL;
    }
  ucov_port_unlock();
}

/* profraw: every profile, one after the other. */
static int profraw_fill(struct ucov_sink *sink, void *arg) {
  unsigned int i;
  int err = 0;

  ucov_port_lock();
  for (i = 0; i < n_slots && !err; i++)
    if (pgo_modules[i].used)
      err = ucov_pgo_write(sink, &pgo_modules[i].s, 0);
  ucov_port_unlock();
  return err;
}

static int profraw_open(struct inode *inode, struct file *f) {
  return linux_snapshot_open(f, profraw_fill, NULL);
}

static const struct file_operations profraw_fops = {
    .owner = THIS_MODULE,
    .open = profraw_open,
    .read = linux_snapshot_read,
    .release = linux_snapshot_release,
    .llseek = default_llseek,
};

/* pgo/reset: any write resets every profile (each counter's baseline moves
 * to its value now: the module's counters themselves are not written). */
static ssize_t reset_write(struct file *f, const char __user *buf, size_t n, loff_t *pos) {
  unsigned int i;
  int err = 0;

  ucov_port_lock();
  for (i = 0; i < n_slots && !err; i++)
    if (pgo_modules[i].used)
      err = ucov_pgo_reset(&pgo_modules[i].s);
  ucov_port_unlock();
  return err ? err : (ssize_t)n;
}

static const struct file_operations reset_fops = {
    .owner = THIS_MODULE,
    .read = linux_empty_read,
    .write = reset_write,
    .llseek = noop_llseek,
};

/* The pgo directory, made again whenever a module with a profile comes or
 * goes (debugfs_remove_recursive waits for the files' readers). */
static struct dentry *pgo_dir;
static DEFINE_MUTEX(pgo_tree_mutex);
/* the files' i_private: their objects' names, "pgo/<module>.profraw" */
static char pgo_names[PGO_MODULES][MODULE_NAME_LEN + 12];

static void pgo_tree_rebuild(void) {
  unsigned int i, n;

  mutex_lock(&pgo_tree_mutex);
  debugfs_remove_recursive(pgo_dir);
  pgo_dir = debugfs_create_dir("pgo", NULL);
  if (!IS_ERR_OR_NULL(pgo_dir)) {
    debugfs_create_file("profraw", 0600, pgo_dir, NULL, &profraw_fops);
    if (!vmlinux_profiled())
      debugfs_create_file("vmlinux.profraw", 0600, pgo_dir, NULL, &profraw_fops);
    debugfs_create_file("reset", 0600, pgo_dir, NULL, &reset_fops);
    ucov_port_lock();
    for (i = n = 0; i < n_slots; i++)
      if (pgo_modules[i].used)
        snprintf(pgo_names[n++], sizeof(pgo_names[0]), "pgo/%s.profraw", pgo_modules[i].name);
    ucov_port_unlock();
    for (i = 0; i < n; i++)
      debugfs_create_file(pgo_names[i] + 4, 0600, pgo_dir, pgo_names[i], &linux_object_fops);
  }
  mutex_unlock(&pgo_tree_mutex);
}

void linux_pgo_module(struct module *mod, int coming) {
  if (coming)
    pgo_add(mod);
  else
    pgo_remove(mod);
  pgo_tree_rebuild();
}

void linux_pgo_init(void) {
  vmlinux_add();
  pgo_tree_rebuild();
}

void linux_pgo_exit(void) {
  unsigned int i;

  debugfs_remove_recursive(pgo_dir);
  for (i = 0; i < n_slots; i++)
    state_free(&pgo_modules[i].state);
}
