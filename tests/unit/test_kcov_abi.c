/* SPDX-License-Identifier: MIT */
/* ucov/kcov.h has Linux's values, and mixes with <linux/kcov.h> in either order. */
#include "ucov/kcov.h"
#include <linux/kcov.h>

#include <stddef.h>

#include "../check.h"

int main(void) {
  CHECK_EQ(KCOV_INIT_TRACE, 0x80086301UL);
  CHECK_EQ(KCOV_ENABLE, 0x6364);
  CHECK_EQ(KCOV_DISABLE, 0x6365);
  CHECK_EQ(KCOV_REMOTE_ENABLE, 0x40186366UL);
  CHECK_EQ(KCOV_UNIQUE_ENABLE, 0x40086367UL);
  CHECK_EQ(KCOV_RESET_TRACE, 0x6368);
  CHECK_EQ(sizeof(struct kcov_remote_arg), 24);
  CHECK_EQ(offsetof(struct kcov_remote_arg, common_handle), 16);
  CHECK_EQ(KCOV_TRACE_PC, 0);
  CHECK_EQ(KCOV_TRACE_CMP, 1);
  CHECK_EQ(KCOV_TRACE_PC_EXT, 2);
  CHECK_EQ(KCOV_CMP_CONST, 1);
  CHECK_EQ(KCOV_CMP_SIZE(3), 6);
  CHECK_EQ(KCOV_CMP_MASK, 6);
  CHECK_EQ(KCOV_RECORD_IP_MASK, 0x00ffffffffffffffull);
  CHECK_EQ(KCOV_RECORD_TYPE(0xf000000000001234ull), KCOV_RECORD_NORMAL);
  CHECK_EQ(KCOV_RECORD_TYPE(0x1000000000001234ull), KCOV_RECORD_EXIT);
  CHECK_EQ(KCOV_RECORD_IP(0xf000000000001234ull), 0x1234);
  CHECK_EQ(KCOV_REMOTE_MAX_HANDLES, 0x100);
  CHECK_EQ(kcov_remote_handle(KCOV_SUBSYSTEM_USB, 7), 0x0100000000000007ull);
  CHECK_EQ(kcov_remote_handle(KCOV_SUBSYSTEM_USB, 0x100000000ull), 0);
  CHECK(KCOV_HANDLE_VALID(0x0100000000000007ull));
  CHECK(!KCOV_HANDLE_VALID(0x0000000100000000ull));
  return check_report("test_kcov_abi");
}
