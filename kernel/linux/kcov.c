// SPDX-License-Identifier: MIT
/*
 * ucov.ko's /sys/kernel/debug/kcov: the KCOV device of kcov.rst for the
 * instrumented modules' code, each open a device of the core's; its ioctls
 * give the calling task a state of its own first (linux_port.c), and its mmap maps
 * the area (vmalloc_user memory, remap_vmalloc_range), as the kernel's kcov.c's.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "linux_port.h"
#include "ucov/kcov.h"
#include "ucov/port/device.h"
#include "ucov/port/port.h"

static int kcov_open(struct inode *inode, struct file *f) {
  struct linux_device *d = kzalloc(sizeof(*d), GFP_KERNEL);

  if (!d)
    return -ENOMEM;
  f->private_data = d;
  return nonseekable_open(inode, f);
}

static int kcov_release(struct inode *inode, struct file *f) {
  struct linux_device *d = f->private_data;

  ucov_port_lock();
  ucov_device_close(&d->core);
  ucov_port_unlock();
  return 0;
}

/* KCOV_REMOTE_ENABLE's argument, copied in whole (the kernel's kcov.c's bounds). */
static void *remote_arg(unsigned long uarg, long *err) {
  struct kcov_remote_arg head, *arg;
  size_t size;

  *err = -EFAULT;
  if (copy_from_user(&head, (void __user *)uarg, sizeof(head)))
    return NULL;
  *err = -EINVAL;
  if (head.num_handles > KCOV_REMOTE_MAX_HANDLES)
    return NULL;
  size = sizeof(head) + head.num_handles * sizeof(head.handles[0]);
  *err = -ENOMEM;
  arg = kmalloc(size, GFP_KERNEL);
  if (!arg)
    return NULL;
  *err = -EFAULT;
  if (copy_from_user(arg, (void __user *)uarg, size)) {
    kfree(arg);
    return NULL;
  }
  if (arg->num_handles != head.num_handles) { /* changed between the reads: kcov.c's EINVAL */
    kfree(arg);
    *err = -EINVAL;
    return NULL;
  }
  *err = 0;
  return arg;
}

static long kcov_ioctl(struct file *f, unsigned int cmd, unsigned long arg) {
  struct linux_device *d = f->private_data;
  void *karg = NULL;
  struct linux_task *lt;
  long err = 0;

  if (cmd == KCOV_REMOTE_ENABLE) {
    karg = remote_arg(arg, &err);
    if (!karg)
      return err;
    arg = (unsigned long)karg;
    /* Areas for its sections, where they cannot allocate (remote_sections.c). */
    linux_remote_reserve(((struct kcov_remote_arg *)karg)->area_size);
  }
  ucov_port_lock();
  lt = task_own();
  err = lt ? ucov_device_ioctl(&d->core, cmd, arg) : -ENOMEM;
  task_settle(lt);
  ucov_port_unlock();
  kfree(karg);
  return err;
}

static int kcov_mmap(struct file *f, struct vm_area_struct *vma) {
  struct linux_device *d = f->private_data;
  unsigned long size = vma->vm_end - vma->vm_start;
  int err = -EINVAL;

  ucov_port_lock();
  /* As kcov_mmap: the area, whole, from offset 0, and exactly size * 8
   * bytes long (a size that is no multiple of a page cannot be mapped). */
  if (!ucov_device_mmap_check(&d->core, size, (u64)vma->vm_pgoff << PAGE_SHIFT))
    err = remap_vmalloc_range(vma, d->core.area, 0);
  ucov_port_unlock();
  return err;
}

static const struct file_operations kcov_fops = {
    .owner = THIS_MODULE,
    .open = kcov_open,
    .release = kcov_release,
    .unlocked_ioctl = kcov_ioctl,
    .compat_ioctl = kcov_ioctl,
    .mmap = kcov_mmap,
    .llseek = UCOV_NO_LLSEEK,
};

static struct dentry *kcov_file;

int linux_kcov_init(void) {
  /* Unproxied, as the kernel's kcov.c's: debugfs's proxy has no mmap. */
  kcov_file = debugfs_create_file_unsafe("kcov", 0600, NULL, NULL, &kcov_fops);
  return IS_ERR(kcov_file) ? PTR_ERR(kcov_file) : 0;
}

void linux_kcov_exit(void) {
  debugfs_remove(kcov_file);
}
