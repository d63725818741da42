# SPDX-License-Identifier: MIT
# ucov for an out-of-tree module: three lines in its Kbuild file (or the
# kbuild part of its Makefile), and nothing in its C sources:
#   UCOV_TRACE := y    # -fsanitize-coverage=trace-pc,trace-cmp: /sys/kernel/debug/kcov
#   UCOV_GCOV := y     # gcov counters: /sys/kernel/debug/gcov/<build path>/x.gcda
#   (UCOV_EXT := y     # also -finstrument-functions: ENTRY/EXIT records, KCOV_TRACE_PC_EXT)
#   (UCOV_PGO := y     # clang's PGO counters: refused with the reason, see docs/porting.md)
#   include $(UCOV_DIR)/kernel/linux/ucov.mk
# built with `make -C $KDIR M=$PWD UCOV_DIR=<the ucov tree>`, after
# `make -C <the ucov tree>/kernel/linux KDIR=$KDIR` (ucov.ko, whose
# Module.symvers resolves the hooks). Only this directory's objects (the
# module's) are instrumented; load ucov.ko first.
ifeq ($(UCOV_DIR),)
$(error ucov.mk: set UCOV_DIR to the ucov tree (make ... UCOV_DIR=...))
endif
UCOV_SYMVERS := $(UCOV_DIR)/kernel/linux/Module.symvers
ifeq ($(wildcard $(UCOV_SYMVERS)),)
$(error ucov.mk: $(UCOV_SYMVERS) is missing: build ucov.ko first (make -C $(UCOV_DIR)/kernel/linux KDIR=...))
endif
KBUILD_EXTRA_SYMBOLS += $(UCOV_SYMVERS)
# (and kcov.rst's kcov_remote_start/stop, empty inlines in a kernel without
# CONFIG_KCOV, reach ucov.ko: ucov_kcov.h, included before every source)
ifeq ($(UCOV_TRACE),y)
ccflags-y += -fsanitize-coverage=trace-pc,trace-cmp -include $(UCOV_DIR)/kernel/linux/ucov_kcov.h
endif
# gcov: units in a section, not registered by constructors (a stock kernel
# runs none); counters updated atomically (modules run on every CPU at once).
ifeq ($(UCOV_GCOV),y)
ccflags-y += --coverage -fprofile-info-section=ucov_gcov_info -fprofile-update=atomic
endif
# Clang's PGO counters (pgo/profraw) need a module built with clang, which
# kbuild refuses against headers configured for gcc (Debian's): see
# docs/porting.md, "A Linux module".
ifeq ($(UCOV_PGO),y)
ifneq ($(CONFIG_CC_IS_CLANG),y)
$(error ucov.mk: UCOV_PGO needs a kernel configured for clang (CONFIG_CC_IS_CLANG); these headers are for $(CONFIG_CC_VERSION_TEXT))
endif
$(error ucov.mk: UCOV_PGO: ucov.ko serves no pgo/ files yet (docs/porting.md))
endif
ifeq ($(UCOV_EXT),y)
ccflags-y += -fsanitize-coverage=trace-pc -finstrument-functions
endif
