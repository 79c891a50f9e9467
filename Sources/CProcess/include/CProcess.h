#ifndef CPROCESS_H
#define CPROCESS_H

/// Makes the calling process the reaper of its descendants' orphans (prctl PR_SET_CHILD_SUBREAPER, Linux 3.4);
/// 0 on success, -1 with errno set. prctl is variadic, which Swift cannot call.
int cprocess_become_subreaper(void);

/// A pipe whose ends are close-on-exec from their creation (pipe2 with O_CLOEXEC, which Glibc's module map hides
/// behind _GNU_SOURCE): no command spawned meanwhile by another thread inherits it. 0, or -1 with errno set.
int cprocess_pipe_cloexec(int ends[2]);

#endif
