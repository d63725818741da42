#!/bin/busybox sh
# shellcheck shell=sh
# The head of each kernel test's /init (its own steps follow): busybox's
# commands, the pseudo file systems, debugfs, and `say`, the guest's lines
# to the host.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev
mount -t debugfs debugfs /sys/kernel/debug
say() { echo "UCOV-GUEST $*"; }
