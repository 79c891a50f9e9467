#ifndef CFILESYSTEM_H
#define CFILESYSTEM_H

/// Renames `from` to `to` unless `to` exists (renameat2 with RENAME_NOREPLACE, Linux 3.15, which Glibc's module map
/// hides behind _GNU_SOURCE): one atomic step, where link and unlink leave the file two names between them.
/// 0, or -1 with errno set (EEXIST when `to` exists; EINVAL where the file system cannot do it).
int cfilesystem_rename_noreplace(const char *from, const char *to);

#endif
