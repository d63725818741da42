# SPDX-License-Identifier: MIT
# ucov for an out-of-tree module: three lines in its Kbuild file (or the
# kbuild part of its Makefile), and nothing in its C sources:
#   UCOV_TRACE := y    # -fsanitize-coverage=trace-pc,trace-cmp: /sys/kernel/debug/kcov
#   UCOV_GCOV := y     # gcov counters: /sys/kernel/debug/gcov/<build path>/x.gcda
#   (UCOV_EXT := y     # also -finstrument-functions: ENTRY/EXIT records, KCOV_TRACE_PC_EXT)
#   (UCOV_PGO := y     # clang's PGO counters: /sys/kernel/debug/pgo/<module>.profraw;
#                      # a kernel configured for clang, LLVM=1: docs/porting.md)
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
# gcov: gcc's units in a section, not registered by constructors (a stock
# kernel runs none); clang's are found by their __llvm_gcov_init functions
# (gcov_debugfs.c). Counters updated atomically (modules run on every CPU).
ifeq ($(UCOV_GCOV),y)
ifeq ($(CONFIG_CC_IS_CLANG),y)
ccflags-y += --coverage -fprofile-update=atomic
else
ccflags-y += --coverage -fprofile-info-section=ucov_gcov_info -fprofile-update=atomic
endif
endif
# Clang's PGO counters (pgo/profraw): a module built with clang, so a kernel
# configured for clang. Clang puts each function's record and counters in a
# section group of its own, which a module's link keeps apart; the link of
# the module's objects (kbuild's, and for a module of one object the same
# link kbuild makes under LTO) joins them into one section each, between
# symbols ucov.ko finds (ucov_pgo.lds).
ifeq ($(UCOV_PGO),y)
ifneq ($(CONFIG_CC_IS_CLANG),y)
$(error ucov.mk: UCOV_PGO needs a kernel configured for clang (CONFIG_CC_IS_CLANG, make LLVM=1); these headers are for $(CONFIG_CC_VERSION_TEXT))
endif
# (A kernel with CONFIG_PGO_CLANG does all this itself: the module is built
# with its -fprofile-generate and linked with its module.lds.)
ifndef CONFIG_PGO_CLANG
ccflags-y += -fprofile-instr-generate -fprofile-update=atomic
ldflags-y += --force-group-allocation -T $(UCOV_DIR)/kernel/linux/ucov_pgo.lds
ifndef CONFIG_LTO_CLANG
cmd_ld_single_m = $(if $(is-single-obj-m), ; $(LD) $(ld_flags) -r -o $(tmp-target) $@; mv $(tmp-target) $@)
endif
endif
endif
ifeq ($(UCOV_EXT),y)
ccflags-y += -fsanitize-coverage=trace-pc -finstrument-functions
endif
