#include "CFuzzDriver.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

// Defined only when the fuzz build links libclang_rt.fuzzer_no_main (see scripts/fuzz).
__attribute__((weak)) int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*target)(const uint8_t *, size_t));

int cfd_is_fuzzing(void) { return LLVMFuzzerRunDriver != NULL; }

enum { max_input = 1 << 20 };

static int replay_file(const char *path, cfd_target target) {
    FILE *file = fopen(path, "rb");
    if (!file) return -1;
    uint8_t *data = malloc(max_input);
    if (!data) { fclose(file); return -1; }
    size_t size = fread(data, 1, max_input, file);
    fclose(file);
    target(data, size);
    free(data);
    return 0;
}

static int replay(const char *path, cfd_target target, int *count) {
    struct stat info;
    if (stat(path, &info) != 0) return -1;
    if (!S_ISDIR(info.st_mode)) {
        if (replay_file(path, target) != 0) return -1;
        (*count)++;
        return 0;
    }
    DIR *directory = opendir(path);
    if (!directory) return -1;
    int status = 0;
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL) {
        if (entry->d_name[0] == '.') continue;
        char child[4096];
        snprintf(child, sizeof child, "%s/%s", path, entry->d_name);
        if (stat(child, &info) != 0 || !S_ISREG(info.st_mode)) continue;
        if (replay_file(child, target) != 0) { status = -1; continue; }
        (*count)++;
    }
    closedir(directory);
    return status;
}

int cfd_run(int *argc, char ***argv, cfd_target target) {
    if (LLVMFuzzerRunDriver) return LLVMFuzzerRunDriver(argc, argv, target);
    int count = 0, status = 0;
    for (int i = 1; i < *argc; i++) {
        const char *argument = (*argv)[i];
        if (argument[0] == '-') continue;
        if (replay(argument, target, &count) != 0) {
            fprintf(stderr, "cannot read %s\n", argument);
            status = 1;
        }
    }
    printf("replayed %d inputs without a crash\n", count);
    return status;
}
