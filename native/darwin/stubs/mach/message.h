// Stub (syntax check only, see README.md): audit_token_t from xnu osfmk/mach/message.h.
#pragma once

typedef struct {
  unsigned int val[8];
} audit_token_t;
