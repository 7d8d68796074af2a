/* A stand-in for libimobiledevice (its 1.3.0 ABI, the functions btlog looks up), so that
 * `btlog capture --ios` can be tested without a device. Environment:
 *   FAKE_IMD_DEVICES  comma-separated UDIDs on USB ("" none); unset: usbmuxd unreachable
 *   FAKE_IMD_LOCKDOWN the lockdown handshake's result (default 0)
 *   FAKE_IMD_SERVICE  lockdownd_start_service's result (default 0)
 *   FAKE_IMD_FILE     the bytes the packet logger service sends, then the device goes
 *   FAKE_IMD_CHUNK    at most this many bytes per receive (default 7)
 *   FAKE_IMD_LOG      a file the calls are written to
 * Written for btlog's tests; it shares no code with libimobiledevice. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <unistd.h>

struct info { char *udid; int conn_type; void *conn_data; };

static void note(const char *what, const char *detail) {
    const char *path = getenv("FAKE_IMD_LOG");
    if (!path) return;
    FILE *f = fopen(path, "a");
    if (!f) return;
    fprintf(f, "%s %s\n", what, detail ? detail : "");
    fclose(f);
}

static int number(const char *name) { const char *v = getenv(name); return v ? atoi(v) : 0; }

int idevice_get_device_list_extended(struct info ***devices, int *count) {
    const char *listed = getenv("FAKE_IMD_DEVICES");
    if (!listed) return -3;
    char *copy = strdup(listed);
    struct info **list = calloc(16, sizeof(struct info *));
    int n = 0;
    for (char *udid = strtok(copy, ","); udid && n < 15; udid = strtok(NULL, ",")) {
        list[n] = calloc(1, sizeof(struct info));
        list[n]->udid = strdup(udid);
        list[n]->conn_type = 1;
        n++;
    }
    free(copy);
    *devices = list;
    *count = n;
    return 0;
}

int idevice_device_list_extended_free(struct info **devices) {
    for (int i = 0; devices && devices[i]; i++) { free(devices[i]->udid); free(devices[i]); }
    free(devices);
    return 0;
}

struct device { char udid[128]; };
int idevice_new_with_options(struct device **device, const char *udid, int options) {
    note("new", udid);
    *device = calloc(1, sizeof(struct device));
    strncpy((*device)->udid, udid, 127);
    return 0;
}
int idevice_free(struct device *device) { note("free", device ? device->udid : ""); free(device); return 0; }

int lockdownd_client_new_with_handshake(struct device *device, void **client, const char *label) {
    note("handshake", label);
    int result = number("FAKE_IMD_LOCKDOWN");
    *client = result == 0 ? malloc(1) : NULL;
    return result;
}
int lockdownd_client_free(void *client) { free(client); return 0; }
int lockdownd_get_device_name(void *client, char **name) { *name = strdup("Anna's iPhone"); return 0; }

struct descriptor { uint16_t port; uint8_t ssl_enabled; char *identifier; };
int lockdownd_start_service(void *client, const char *identifier, struct descriptor **service) {
    note("start", identifier);
    int result = number("FAKE_IMD_SERVICE");
    if (result != 0) { *service = NULL; return result; }
    *service = calloc(1, sizeof(struct descriptor));
    (*service)->port = 49152;
    return 0;
}
int lockdownd_service_descriptor_free(struct descriptor *service) { free(service); return 0; }

struct service { FILE *file; };
int service_client_new(struct device *device, struct descriptor *descriptor, struct service **client) {
    *client = calloc(1, sizeof(struct service));
    const char *path = getenv("FAKE_IMD_FILE");
    (*client)->file = path ? fopen(path, "rb") : NULL;
    return 0;
}
int service_receive_with_timeout(struct service *client, char *data, uint32_t size, uint32_t *received, unsigned int timeout) {
    int chunk = number("FAKE_IMD_CHUNK");
    if (chunk <= 0) chunk = 7;
    if (size > (uint32_t)chunk) size = chunk;
    *received = 0;
    if (!client->file) { usleep(timeout * 1000); return -7; }
    size_t n = fread(data, 1, size, client->file);
    *received = (uint32_t)n;
    if (n == 0) return -3; /* the device went away */
    return 0;
}
int service_client_free(struct service *client) {
    note("service-free", NULL);
    if (client->file) fclose(client->file);
    free(client);
    return 0;
}
