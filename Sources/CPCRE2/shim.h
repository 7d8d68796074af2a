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

/// Matches the whole subject once and copies each group's bounds into `bounds` (pairs of
/// start and end, PCRE2_UNSET for a group that took no part): the number of pairs set, 0 for
/// no match, below 0 for an error (the match limit reached among them). Its own match data,
/// so that one compiled pattern serves several threads.
static inline int btlog_pcre2_groups(const pcre2_code_8 *code, const unsigned char *subject, size_t length,
                                     size_t *bounds, size_t pairs) {
    pcre2_match_data_8 *data = pcre2_match_data_create_from_pattern_8(code, NULL);
    if (!data) return -1;
    int result = pcre2_match_8(code, (PCRE2_SPTR8)subject, length, 0, 0, data, NULL);
    if (result < 0) {
        pcre2_match_data_free_8(data);
        return result == PCRE2_ERROR_NOMATCH ? 0 : result;
    }
    uint32_t available = pcre2_get_ovector_count_8(data);
    PCRE2_SIZE *vector = pcre2_get_ovector_pointer_8(data);
    size_t count = available < pairs ? available : pairs;
    for (size_t i = 0; i < count * 2; i++) bounds[i] = vector[i];
    pcre2_match_data_free_8(data);
    return (int)count;
}

/// The group number of a named group, or below 0 when there is none.
static inline int btlog_pcre2_group_number(const pcre2_code_8 *code, const char *name) {
    return pcre2_substring_number_from_name_8(code, (PCRE2_SPTR8)name);
}

/// How many capturing groups the pattern has.
static inline int btlog_pcre2_group_count(const pcre2_code_8 *code) {
    uint32_t count = 0;
    if (pcre2_pattern_info_8(code, PCRE2_INFO_CAPTURECOUNT, &count) != 0) return -1;
    return (int)count;
}

/// The pattern's named groups: their number, and each entry's size in bytes (the group number
/// in its first two bytes, big-endian, then the NUL-terminated name).
static inline const unsigned char *btlog_pcre2_name_table(const pcre2_code_8 *code, uint32_t *count, uint32_t *entry_size) {
    PCRE2_SPTR8 table = NULL;
    if (pcre2_pattern_info_8(code, PCRE2_INFO_NAMECOUNT, count) != 0) return NULL;
    if (pcre2_pattern_info_8(code, PCRE2_INFO_NAMEENTRYSIZE, entry_size) != 0) return NULL;
    if (pcre2_pattern_info_8(code, PCRE2_INFO_NAMETABLE, &table) != 0) return NULL;
    return table;
}
