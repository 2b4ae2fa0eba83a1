/* Assertions shared by the C API tests. */
#ifndef CHEVRON_TEST_CHECK_H
#define CHEVRON_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chevron.h"

/* The call must succeed; otherwise print its status and chevron_last_error() and exit. */
#define CHECK(call)                                                                            \
    do {                                                                                       \
        chevron_status check_status_ = (call);                                                 \
        if (check_status_ != CHEVRON_SUCCESS) {                                                \
            fprintf(stderr, "%s:%d: %s returned %s: %s\n", __FILE__, __LINE__, #call,          \
                    chevron_status_name(check_status_), chevron_last_error());                 \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

/* The call must fail with `expected`, and chevron_last_error() must contain every needle. */
#define EXPECT_ERROR(call, expected, ...)                                                      \
    do {                                                                                       \
        chevron_status check_status_ = (call);                                                 \
        const char *needles_[] = {__VA_ARGS__, NULL};                                          \
        if (check_status_ != (expected)) {                                                     \
            fprintf(stderr, "%s:%d: %s returned %s, expected %s (%s)\n", __FILE__, __LINE__,   \
                    #call, chevron_status_name(check_status_), chevron_status_name(expected),  \
                    chevron_last_error());                                                     \
            exit(1);                                                                           \
        }                                                                                      \
        for (const char **n_ = needles_; *n_; n_++) {                                          \
            if (!strstr(chevron_last_error(), *n_)) {                                          \
                fprintf(stderr, "%s:%d: %s: message lacks \"%s\": %s\n", __FILE__, __LINE__,   \
                        #call, *n_, chevron_last_error());                                     \
                exit(1);                                                                       \
            }                                                                                  \
        }                                                                                      \
        printf("  %-28s %s\n", chevron_status_name(check_status_), chevron_last_error());      \
    } while (0)

#define REQUIRE(condition, ...)                                                                \
    do {                                                                                       \
        if (!(condition)) {                                                                    \
            fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #condition);                    \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

#endif
