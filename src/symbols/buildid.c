/* SPDX-License-Identifier: MIT */
/* An ELF file's GNU build-id (buildid.h). */
#include "buildid.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void elf_build_id_hex(const char *path, char *out, size_t n) {
  out[0] = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  elf_version(EV_CURRENT);
  Elf *e = elf_begin(fd, ELF_C_READ, NULL);
  for (Elf_Scn *scn = NULL; e && !out[0] && (scn = elf_nextscn(e, scn));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
      continue;
    Elf_Data *d = elf_getdata(scn, NULL);
    GElf_Nhdr nh;
    size_t off = 0, name_off, desc_off;
    while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
      if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
          !memcmp((char *)d->d_buf + name_off, "GNU", 4) && 2 * nh.n_descsz < n) {
        const unsigned char *id = (const unsigned char *)d->d_buf + desc_off;
        for (size_t i = 0; i < nh.n_descsz; i++)
          snprintf(out + 2 * i, 3, "%02x", id[i]);
        break;
      }
    }
  }
  if (e)
    elf_end(e);
  close(fd);
}
