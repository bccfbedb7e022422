/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "rc-authority.h"
#include "rc-generated.h"
#include "rc-slices.h"

G_BEGIN_DECLS

/* Serves ListSlices and SetSliceLimits on @object: a change is checked with
 * @authority, then carried out by @slices; @cancellable ends what is in
 * flight when the daemon stops. */
void rc_slices_serve (RcSlices              *slices,
                      RcDBusResourceControl *object,
                      RcAuthority           *authority,
                      GCancellable          *cancellable);

G_END_DECLS
