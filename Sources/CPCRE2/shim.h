// PCRE2's 8-bit API through functions Swift can call: pcre2.h names them by macros
// (pcre2_compile → pcre2_compile_8), which Swift does not import.
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stddef.h>
#include <stdint.h>

/// Compiles a pattern (UTF-8, invalid sequences in subjects tolerated) and JIT-compiles it
/// when the platform allows; NULL with the error code and offset on failure.
static inline pcre2_code_8 *btlog_pcre2_compile(const char *pattern, size_t length, int caseless, int literal,
                                                int *error, size_t *offset) {
    uint32_t options = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
    if (caseless) options |= PCRE2_CASELESS;
    if (literal) options |= PCRE2_LITERAL;
    PCRE2_SIZE where = 0;
    pcre2_code_8 *code = pcre2_compile_8((PCRE2_SPTR8)pattern, length, options, error, &where, NULL);
    *offset = where;
    if (code) (void)pcre2_jit_compile_8(code, PCRE2_JIT_COMPLETE);
    return code;
}

static inline void btlog_pcre2_free(pcre2_code_8 *code) { pcre2_code_free_8(code); }

static inline pcre2_match_data_8 *btlog_pcre2_match_data(const pcre2_code_8 *code) {
    return pcre2_match_data_create_from_pattern_8(code, NULL);
}

static inline void btlog_pcre2_match_data_free(pcre2_match_data_8 *data) { pcre2_match_data_free_8(data); }

/// The first match at or after `start`: 1 with its bounds, 0 for none, below 0 for an error.
static inline int btlog_pcre2_find(const pcre2_code_8 *code, const unsigned char *subject, size_t length, size_t start,
                                   pcre2_match_data_8 *data, size_t *match_start, size_t *match_end) {
    int result = pcre2_match_8(code, (PCRE2_SPTR8)subject, length, start, 0, data, NULL);
    if (result < 0) return result == PCRE2_ERROR_NOMATCH ? 0 : result;
    PCRE2_SIZE *vector = pcre2_get_ovector_pointer_8(data);
    *match_start = vector[0];
    *match_end = vector[1];
    return 1;
}

static inline int btlog_pcre2_error_message(int error, unsigned char *buffer, size_t size) {
    return pcre2_get_error_message_8(error, buffer, size);
}
