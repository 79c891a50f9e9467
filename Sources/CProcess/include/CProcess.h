#ifndef CPROCESS_H
#define CPROCESS_H

/// Makes the calling process the reaper of its descendants' orphans (prctl PR_SET_CHILD_SUBREAPER, Linux 3.4);
/// 0 on success, -1 with errno set. prctl is variadic, which Swift cannot call.
int cprocess_become_subreaper(void);

#endif
