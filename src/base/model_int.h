/* SPDX-License-Identifier: MIT */
/* What the model's files share among themselves (model.c, model_paths.c). */
#ifndef UCOV_BASE_MODEL_INT_H
#define UCOV_BASE_MODEL_INT_H

#include "model.h"

/* Lexical normalization in place: "//" and "/./" collapse, "x/.." goes. */
void cov_normalize(char *p);
/* Whether the include and exclude globs keep absolute, normal path p
 * (matched as written and as its real path). */
int cov_path_kept(struct cov_model *m, const char *p);
void cov_free_rejected(struct cov_model *m);

#endif
