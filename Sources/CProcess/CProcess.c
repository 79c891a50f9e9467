#include "CProcess.h"

#include <sys/prctl.h>

int cprocess_become_subreaper(void) {
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}
