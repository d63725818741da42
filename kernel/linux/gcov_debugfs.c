// SPDX-License-Identifier: MIT
/*
 * ucov.ko's gcov side: each instrumented module's gcov units, registered as
 * it comes and forgotten as it goes (a module notifier); the gcov files of
 * gcov.rst under /sys/kernel/debug/gcov; and the module map (the "modules"
 * object). No constructor runs in a stock kernel (no CONFIG_CONSTRUCTORS):
 * gcc's units (compiled with -fprofile-info-section, so nothing registers
 * them) are found in the module's writable data by what only a gcov_info
 * holds, with no symbol name needed; clang's by their __llvm_gcov_init
 * functions in its symbol table.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/kasan.h>
#include <linux/list.h>
#include <linux/stringhash.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "compat.h"
#include "linux_port.h"
#include "ucov/port/gcov_abi.h"
#include "ucov/port/hooks.h"
#include "ucov/port/objects.h"
#include "ucov/port/port.h"
#include "ucov/port/sink.h"
#include "ucov/port/units.h"

/* gcc's gcov runtime entry points (the core defines them, ucov/port/hooks.h;
 * with -fprofile-info-section no constructor calls __gcov_init, but the
 * units' merge[] entries name the merge functions). */
EXPORT_SYMBOL(__gcov_init);
EXPORT_SYMBOL(__gcov_exit);
EXPORT_SYMBOL(__gcov_merge_add);
EXPORT_SYMBOL(__gcov_merge_topn);
EXPORT_SYMBOL(__gcov_merge_ior);
EXPORT_SYMBOL(__gcov_merge_time_profile);
/* clang's (its units' __llvm_gcov_init, called here as a module comes) */
EXPORT_SYMBOL(llvm_gcov_init);
EXPORT_SYMBOL(llvm_gcda_start_file);
EXPORT_SYMBOL(llvm_gcda_emit_function);
EXPORT_SYMBOL(llvm_gcda_emit_arcs);
EXPORT_SYMBOL(llvm_gcda_summary_info);
EXPORT_SYMBOL(llvm_gcda_end_file);

int linux_mod_symbols(struct module *mod, const char *name, unsigned long *addrs, int max) {
  struct mod_kallsyms *ks;
  unsigned int i;
  int n = 0;

  rcu_read_lock_sched();
  ks = rcu_dereference_sched(mod->kallsyms);
  for (i = 0; ks && i < ks->num_symtab && n <= max; i++)
    if (!strcmp(ks->strtab + ks->symtab[i].st_name, name) &&
        within_module(ks->symtab[i].st_value, mod)) {
      if (n < max)
        addrs[n] = ks->symtab[i].st_value;
      n++;
    }
  rcu_read_unlock_sched();
  return n;
}

/* Is gi (within [.., end)) a gcov_info of mod? What only a gcov_info holds:
 * the version word of a GCC ucov reads, merge[] entries that are each NULL
 * or one of ucov.ko's merge functions (gcc links a unit's to the runtime's,
 * and the arcs' is always __gcov_merge_add), a filename and a function
 * table in mod. */
static bool is_unit(struct module *mod, const struct gcov_info *gi, unsigned long end) {
  unsigned int nc = gcov_counters_of(gi->version), k;
  const struct gcov_info_tail *tail;

  if (!nc || (unsigned long)gcov_info_tail(gi, nc) + sizeof(*tail) > end ||
      gi->merge[0] != __gcov_merge_add)
    return false;
  for (k = 1; k < nc; k++)
    if (gi->merge[k] && gi->merge[k] != __gcov_merge_add && gi->merge[k] != __gcov_merge_topn &&
        gi->merge[k] != __gcov_merge_ior && gi->merge[k] != __gcov_merge_time_profile)
      return false;
  tail = gcov_info_tail(gi, nc);
  return within_module((unsigned long)gi->filename, mod) && tail->n_functions &&
         within_module((unsigned long)tail->functions, mod);
}

/* The gcov_info in mod's writable data, in address order, into *infos
 * (kmalloc'ed). Their count, or -ENOMEM. Called as mod comes: its data is
 * there, and nothing else writes those words yet. The scan reads every word,
 * the redzones KASAN puts between a module's globals included: its reports
 * are off for it. */
static int module_units(struct module *mod, const struct gcov_info ***infos) {
  unsigned long at = ALIGN(ucov_module_data_base(mod), 8);
  unsigned long end = ucov_module_data_base(mod) + ucov_module_data_size(mod);
  const struct gcov_info **v = NULL, **g;
  int n = 0, cap = 0;

  kasan_disable_current();
  for (; at + sizeof(struct gcov_info) <= end; at += 8) {
    if (!is_unit(mod, (const struct gcov_info *)at, end))
      continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 16;
      g = krealloc(v, cap * sizeof(*v), GFP_KERNEL);
      if (!g) {
        kasan_enable_current();
        kfree(v);
        return -ENOMEM;
      }
      v = g;
    }
    v[n++] = (const struct gcov_info *)at;
  }
  kasan_enable_current();
  *infos = v;
  return n;
}

/*
 * clang's units: each object's __llvm_gcov_init (a local function, the
 * constructor a stock kernel does not run), called as mod comes; it hands
 * llvm_gcov_init the unit's writeout, which describes the unit to the core.
 * A kernel with CONFIG_CONSTRUCTORS runs them itself, after this notifier.
 */
static void clang_units_add(struct module *mod) {
  unsigned long fns[64];
  int n, k;

  if (IS_ENABLED(CONFIG_CONSTRUCTORS))
    return;
  n = linux_mod_symbols(mod, "__llvm_gcov_init", fns, ARRAY_SIZE(fns));
  if (n > (int)ARRAY_SIZE(fns)) {
    pr_err("ucov: %s: more than %zu clang gcov units: the rest are not served\n", mod->name,
           ARRAY_SIZE(fns));
    n = ARRAY_SIZE(fns);
  }
  for (k = 0; k < n; k++)
    ((void (*)(void))fns[k])();
}

static void units_add(struct module *mod) {
  const struct gcov_info **infos;
  int n = module_units(mod, &infos), i;

  clang_units_add(mod);

  if (n < 0) {
    pr_err("ucov: %s: out of memory: its gcov units are not served\n", mod->name);
    return;
  }
  for (i = 0; i < n; i++)
    __gcov_init((struct gcov_info *)infos[i]); /* takes the port lock */
  kfree(infos);
}

/* Before mod's memory goes: its units are forgotten (a read in progress holds
 * the port lock, so none touches them after this). */
static void units_remove(struct module *mod) {
  struct ucov_unit u = {0};

  ucov_port_lock();
  while (ucov_unit_next(&u))
    if (within_module((unsigned long)u.anchor, mod))
      ucov_unit_remove(&u);
  ucov_port_unlock();
}

/*
 * /sys/kernel/debug/gcov: x.gcda for each unit, at its build path, with an
 * x.gcno link to the notes file beside the object; reset; and
 * kernel/gcov/base.gcno, the link to the build directory that lcov's kernel
 * mode reads (the kernel's object tree this ucov.ko was built against, where
 * kbuild runs the compiler). When a module comes or goes, only the files of
 * the objects that came or went are added or removed: a reader of another
 * module's file reads on (gcov.rst's tree changes so too).
 */
static struct dentry *gcov_dir;
static DEFINE_MUTEX(gcov_tree_mutex);

/* One object's file and link; name is what the file's i_private points at. */
struct gcov_node {
  struct hlist_node hash;
  struct dentry *file, *link;
  bool seen;
  char name[];
};
static DEFINE_HASHTABLE(gcov_nodes, 10); /* under gcov_tree_mutex */

static struct gcov_node *node_find(const char *name, u32 key) {
  struct gcov_node *n;

  hash_for_each_possible(gcov_nodes, n, hash, key) if (!strcmp(n->name, name)) return n;
  return NULL;
}

int linux_snapshot_open(struct file *f, int (*fill)(struct ucov_sink *sink, void *arg), void *arg) {
  struct ucov_buf_sink *s = kzalloc(sizeof(*s), GFP_KERNEL);
  int err;

  if (!s)
    return -ENOMEM;
  ucov_buf_sink_init(s);
  /* One snapshot per open: what the reader sees stays whole. */
  err = fill(&s->sink, arg);
  if (err) {
    ucov_port_free(s->buf);
    kfree(s);
    return err;
  }
  f->private_data = s;
  return 0;
}

static int object_fill(struct ucov_sink *sink, void *name) {
  return ucov_object_read(name, sink, 0);
}

/* An object's file: i_private is its name. */
static int gcda_open(struct inode *inode, struct file *f) {
  return linux_snapshot_open(f, object_fill, inode->i_private);
}

ssize_t linux_snapshot_read(struct file *f, char __user *buf, size_t n, loff_t *pos) {
  struct ucov_buf_sink *s = f->private_data;

  return simple_read_from_buffer(buf, n, pos, s->buf, s->len);
}

/* As gcov.rst: writing to a data file resets its unit's counts. */
static ssize_t gcda_write(struct file *f, const char __user *buf, size_t n, loff_t *pos) {
  int err = ucov_object_reset(file_inode(f)->i_private);

  return err ? err : (ssize_t)n;
}

int linux_snapshot_release(struct inode *inode, struct file *f) {
  struct ucov_buf_sink *s = f->private_data;

  ucov_port_free(s->buf);
  kfree(s);
  return 0;
}

const struct file_operations linux_object_fops = {
    .owner = THIS_MODULE,
    .open = gcda_open,
    .read = linux_snapshot_read,
    .write = gcda_write,
    .release = linux_snapshot_release,
    .llseek = default_llseek,
};

/* gcov/reset: writing resets every unit; reads are empty. */
static ssize_t reset_write(struct file *f, const char __user *buf, size_t n, loff_t *pos) {
  int err = ucov_objects_reset_all();

  return err ? err : (ssize_t)n;
}

/* Reads are empty, so that cp -a copies the tree (lcov's kernel mode). */
ssize_t linux_empty_read(struct file *f, char __user *buf, size_t n, loff_t *pos) {
  return 0;
}

static const struct file_operations reset_fops = {
    .owner = THIS_MODULE,
    .read = linux_empty_read,
    .write = reset_write,
    .llseek = noop_llseek,
};

/* The directory `path` (len bytes, components separated by '/') beneath
 * parent, made where missing. NULL on failure. */
static struct dentry *tree_dir(struct dentry *parent, const char *path, size_t len) {
  char comp[NAME_MAX + 1];
  size_t at = 0, k;
  struct dentry *d = parent, *next;

  while (at < len) {
    for (k = at; k < len && path[k] != '/'; k++)
      ;
    if (k - at > NAME_MAX)
      return NULL;
    if (k > at) {
      memcpy(comp, path + at, k - at);
      comp[k - at] = 0;
      next = debugfs_lookup(comp, d);
      if (next)
        dput(next); /* (the tree keeps its own reference) */
      else
        next = debugfs_create_dir(comp, d);
      if (IS_ERR_OR_NULL(next))
        return NULL;
      d = next;
    }
    at = k + 1;
  }
  return d;
}

/* One gcov object, gcov/<path>.gcda, listed (by ucov_objects_list, with the
 * port lock held): seen, and if it has no file yet, <path>.gcda and its
 * .gcno link made. */
static int tree_add(const char *name, uint64_t size, void *arg) {
  size_t len = strlen(name);
  u32 key = full_name_hash(NULL, name, len);
  const char *path, *base;
  struct dentry *dir = NULL;
  struct gcov_node *n;
  char *link, *notes;

  if (strncmp(name, "gcov/", 5) || len < 11 || strcmp(name + len - 5, ".gcda"))
    return 0;
  n = node_find(name, key);
  if (n) {
    n->seen = true;
    return 0;
  }
  path = name + 5;
  base = strrchr(path, '/');
  base = base ? base + 1 : path;
  n = kzalloc(struct_size(n, name, len + 1), GFP_KERNEL);
  link = kasprintf(GFP_KERNEL, "%.*s.gcno", (int)(len - 5 - 4), name + 4);
  notes = kasprintf(GFP_KERNEL, "%.*s.gcno", (int)(strlen(base) - 5), base);
  if (n && link && notes)
    dir = tree_dir(gcov_dir, path, base - path);
  if (dir) {
    memcpy(n->name, name, len + 1);
    n->file = debugfs_create_file(base, 0600, dir, n->name, &linux_object_fops);
    n->link = debugfs_create_symlink(notes, dir, link);
    n->seen = true;
    hash_add(gcov_nodes, &n->hash, key);
    n = NULL;
  }
  kfree(n);
  kfree(link);
  kfree(notes);
  return 0;
}

static void node_remove(struct gcov_node *n) {
  hash_del(&n->hash);
  debugfs_remove(n->link);
  debugfs_remove(n->file); /* waits for its readers: then nobody reads n->name */
  kfree(n);
}

/* The tree made to match the objects: files of new ones added, of gone ones
 * removed, the others left as they are. */
static void gcov_tree_sync(void) {
  struct dentry *base;
  struct gcov_node *n;
  struct hlist_node *tmp;
  int b;

  mutex_lock(&gcov_tree_mutex);
  if (!gcov_dir) {
    gcov_dir = debugfs_create_dir("gcov", NULL);
    if (IS_ERR_OR_NULL(gcov_dir)) {
      gcov_dir = NULL;
      mutex_unlock(&gcov_tree_mutex);
      return;
    }
    debugfs_create_file("reset", 0600, gcov_dir, NULL, &reset_fops);
    base = tree_dir(gcov_dir, "kernel/gcov", 11);
    if (base)
      debugfs_create_symlink("base.gcno", base, UCOV_OBJTREE "/kernel/gcov/base.gcno");
  }
  hash_for_each(gcov_nodes, b, n, hash) n->seen = false;
  ucov_objects_list(tree_add, NULL);
  hash_for_each_safe(gcov_nodes, b, tmp, n, hash) if (!n->seen) node_remove(n);
  mutex_unlock(&gcov_tree_mutex);
}

/*
 * The module map (the "modules" object): for each module that came after
 * ucov.ko, one line per executable section, named "<module>.ko#<section
 * index>" with the section's address as its bias, so that `ucov symbolize
 * --modules` places a PC in the section of the .ko it ran in (a relocatable
 * object's symbols count from their section's start). The sections'
 * addresses are those of the module's section symbols (STT_SECTION), which
 * the loader relocated like any other: they are in its full symbol table
 * only while it comes, so they are kept then.
 */
struct mod_text {
  struct list_head link;
  struct module *mod;
  unsigned long end; /* the end of the module's text */
  int n;
  struct {
    unsigned long start;
    unsigned int shndx;
  } sec[];
};
static LIST_HEAD(mod_texts); /* under the port lock */

static void mod_text_add(struct module *mod) {
  unsigned long base, end;
  struct mod_kallsyms *ks;
  struct mod_text *mt;
  unsigned int i;
  int n = 0, k;

  base = ucov_module_text_base(mod);
  end = base + ucov_module_text_size(mod);
  rcu_read_lock_sched();
  ks = rcu_dereference_sched(mod->kallsyms);
  for (i = 0; ks && i < ks->num_symtab; i++)
    n += ELF_ST_TYPE(ks->symtab[i].st_info) == STT_SECTION && ks->symtab[i].st_value >= base &&
         ks->symtab[i].st_value < end;
  mt = n ? kzalloc(struct_size(mt, sec, n), GFP_ATOMIC) : NULL;
  for (i = 0; mt && i < ks->num_symtab && mt->n < n; i++) {
    const Elf_Sym *sym = &ks->symtab[i];

    if (ELF_ST_TYPE(sym->st_info) != STT_SECTION || sym->st_value < base || sym->st_value >= end)
      continue;
    for (k = mt->n; k > 0 && mt->sec[k - 1].start > sym->st_value; k--)
      mt->sec[k] = mt->sec[k - 1]; /* sorted by address */
    mt->sec[k].start = sym->st_value;
    mt->sec[k].shndx = sym->st_shndx;
    mt->n++;
  }
  rcu_read_unlock_sched();
  if (!mt)
    return;
  mt->mod = mod;
  mt->end = end;
  ucov_port_lock();
  list_add_tail(&mt->link, &mod_texts);
  ucov_port_unlock();
}

static void mod_text_remove(struct module *mod) {
  struct mod_text *mt, *next;

  ucov_port_lock();
  list_for_each_entry_safe(mt, next, &mod_texts, link) {
    if (mt->mod == mod) {
      list_del(&mt->link);
      kfree(mt);
    }
  }
  ucov_port_unlock();
}

int ucov_port_modules_write(struct ucov_sink *s) {
  struct mod_text *mt;
  char line[160];
  int i, n, err = 0;

  list_for_each_entry(mt, &mod_texts, link) {
    for (i = 0; !err && i < mt->n; i++) {
      unsigned long end = i + 1 < mt->n ? mt->sec[i + 1].start : mt->end;

      if (end == mt->sec[i].start)
        continue; /* an empty section at the same place as the next */
      n = scnprintf(line, sizeof(line), "0x%lx 0x%lx 0x0 0x%lx r-x - %s.ko#%u\n", mt->sec[i].start,
                    end, mt->sec[i].start, mt->mod->name, mt->sec[i].shndx);
      err = s->write(s, line, n);
    }
  }
  return err;
}

static int on_module(struct notifier_block *nb, unsigned long state, void *data) {
  struct module *mod = data;

  if (state == MODULE_STATE_COMING) {
    mod_text_add(mod);
    units_add(mod);
    linux_pgo_module(mod, 1);
  } else if (state == MODULE_STATE_GOING) {
    linux_pgo_module(mod, 0);
    units_remove(mod);
    mod_text_remove(mod);
  } else
    return NOTIFY_DONE;
  gcov_tree_sync();
  return NOTIFY_OK;
}

static struct notifier_block module_nb = {
    .notifier_call = on_module,
};

int linux_gcov_init(void) {
  gcov_tree_sync();
  linux_pgo_init();
  return register_module_notifier(&module_nb);
}

void linux_gcov_exit(void) {
  struct mod_text *mt, *next;
  struct gcov_node *n;
  struct hlist_node *tmp;
  int b;

  unregister_module_notifier(&module_nb);
  linux_pgo_exit();
  list_for_each_entry_safe(mt, next, &mod_texts, link) kfree(mt); /* modules without ucov's hooks */
  debugfs_remove_recursive(gcov_dir);                             /* waits for the files' readers */
  gcov_dir = NULL;
  hash_for_each_safe(gcov_nodes, b, tmp, n, hash) {
    hash_del(&n->hash);
    kfree(n);
  }
}
