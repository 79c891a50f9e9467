#ifndef CCRYPT_H
#define CCRYPT_H

#include <stddef.h>

/// Hashes `password` with the setting (algorithm, cost and salt) that `setting` begins with, as crypt(3) does
/// (libxcrypt: bcrypt's `$2a$`, `$2b$` and `$2y$` among others), into `output`, which holds `size` bytes.
/// Returns 0 on success, -1 when the setting is not one crypt knows or the output does not fit.
int ccrypt_hash(const char *password, const char *setting, char *output, size_t size);

#endif
