#include "CCrypt.h"

#include <crypt.h>
#include <stdlib.h>
#include <string.h>

int ccrypt_hash(const char *password, const char *setting, char *output, size_t size) {
    // crypt_r's state is about 32 KiB: on the heap, one per call, so calls on several threads never share it.
    struct crypt_data *data = calloc(1, sizeof(struct crypt_data));
    if (data == NULL) return -1;
    const char *hashed = crypt_r(password, setting, data);
    int result = -1;
    // libxcrypt returns a string starting with '*' on failure, never NULL unless asked to.
    if (hashed != NULL && hashed[0] != '*' && strlen(hashed) < size) {
        strcpy(output, hashed);
        result = 0;
    }
    explicit_bzero(data, sizeof(struct crypt_data));
    free(data);
    return result;
}
