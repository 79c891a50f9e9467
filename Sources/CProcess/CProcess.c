#define _GNU_SOURCE
#include "CProcess.h"

#include <fcntl.h>
#include <unistd.h>

#include <sys/prctl.h>

int cprocess_become_subreaper(void) {
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

int cprocess_pipe_cloexec(int ends[2]) {
    return pipe2(ends, O_CLOEXEC);
}
