/* SPDX-License-Identifier: MIT */
/* Call sites on x86-64: calls are call rel32 (callsites.c); PLT entries jmp *slot(%rip) (ff 25). */
#include "callsites.h"

#include <elf.h>
#include <string.h>

/* PLT entries (16 bytes each) whose jmp *slot(%rip) reads one of the slots. */
static void plt_targets(Elf *elf, const uint64_t *got, int n_got, uint64_t *targets, int *n_targets,
                        int max) {
  size_t shstrndx;
  if (elf_getshdrstrndx(elf, &shstrndx))
    return;
  for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh))
      continue;
    const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
    if (!name || strncmp(name, ".plt", 4) != 0 || sh.sh_type != SHT_PROGBITS)
      continue;
    Elf_Data *d = elf_getdata(scn, NULL);
    const uint8_t *b = d ? d->d_buf : NULL;
    for (size_t i = 0; b && i + 6 <= d->d_size; i++) {
      if (b[i] != 0xff || b[i + 1] != 0x25)
        continue;
      int32_t rel;
      memcpy(&rel, b + i + 2, 4);
      uint64_t slot = sh.sh_addr + i + 6 + (uint64_t)(int64_t)rel;
      for (int g = 0; g < n_got; g++)
        if (slot == got[g] && *n_targets < max)
          targets[(*n_targets)++] = sh.sh_addr + (i & ~(size_t)15);
    }
  }
}

const struct cs_arch cs_x86_64 = {EM_X86_64, plt_targets, ~(uint64_t)0};
