/* The floor of any capture reader: map a btsnoop or PacketLogger file and step over every
 * record, touching only the record headers. Prints the number of records.
 * Built and run by Scripts/bench.py; part of btlog, BSD-3-Clause like the rest. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static uint32_t le32(const uint8_t *p) { return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0]; }

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: walk FILE\n"); return 2; }
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) { perror(argv[1]); return 1; }
    size_t size = (size_t)st.st_size;
    const uint8_t *data = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    if (size && data == MAP_FAILED) { perror("mmap"); return 1; }
    size_t offset, records = 0;
    if (size >= 16 && memcmp(data, "btsnoop\0", 8) == 0) {
        /* 16-byte file header; 24-byte record headers, included length at +4, big-endian. */
        for (offset = 16; offset + 24 <= size; records++) offset += 24 + be32(data + offset + 4);
    } else if (size >= 4) {
        /* PacketLogger: a 4-byte length of what follows; little-endian unless that is absurd. */
        int little = le32(data) < (1u << 20);
        for (offset = 0; offset + 4 <= size; records++)
            offset += 4 + (little ? le32(data + offset) : be32(data + offset));
    }
    printf("%zu\n", records);
    return 0;
}
