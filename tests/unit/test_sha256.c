/* SHA-256 against the known answers published with FIPS 180-4 (NIST's examples), and streaming
 * in pieces of every size against hashing in one call. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "workloads/sha256.h"

static void hex_of(const void *data, size_t n, char hex[SHA256_HEX_BYTES])
{
    struct sha256 s;
    uint8_t d[SHA256_BYTES];
    sha256_init(&s);
    sha256_update(&s, data, n);
    sha256_final(&s, d);
    sha256_hex(d, hex);
}

static void test_known_answers(void **state)
{
    (void)state;
    static const struct {
        const char *message;
        const char *digest;
    } cases[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrl"
         "mnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
    };
    char hex[SHA256_HEX_BYTES];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hex_of(cases[i].message, strlen(cases[i].message), hex);
        assert_string_equal(hex, cases[i].digest);
    }
}

static void test_million_a(void **state)
{
    (void)state;
    size_t n = 1000000;
    char *a = malloc(n);
    assert_non_null(a);
    memset(a, 'a', n);
    char hex[SHA256_HEX_BYTES];
    hex_of(a, n, hex);
    assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(a);
}

/* Every length around the padding boundaries (55, 56, 63, 64 bytes...) and every split point. */
static void test_pieces(void **state)
{
    (void)state;
    uint8_t msg[200];
    for (size_t i = 0; i < sizeof msg; i++)
        msg[i] = (uint8_t)(i * 131 + 7);
    for (size_t len = 0; len <= sizeof msg; len++) {
        char whole[SHA256_HEX_BYTES];
        hex_of(msg, len, whole);
        for (size_t cut = 0; cut <= len; cut += len > 70 ? 13 : 1) {
            struct sha256 s;
            uint8_t d[SHA256_BYTES];
            char hex[SHA256_HEX_BYTES];
            sha256_init(&s);
            sha256_update(&s, msg, cut);
            sha256_update(&s, msg + cut, len - cut);
            sha256_final(&s, d);
            sha256_hex(d, hex);
            assert_string_equal(hex, whole);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_answers),
        cmocka_unit_test(test_million_a),
        cmocka_unit_test(test_pieces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
