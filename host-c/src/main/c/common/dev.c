/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libdoca_common: devices, read from the service file (DOCA_UROM_SERVICE_FILE).
 *
 * Each line of the file is
 *     <app_hostname> <service_type> <dev_hostname> <dev_pci_addr> <net,devs>
 * separated by blanks; a '#' at the start of a field starts a comment that runs to the end of the line;
 * blank lines are ignored. A line belongs to this host when app_hostname is gethostname() or its part
 * before the first '.' (compared without regard to case). service_type must be "dpu". dev_hostname is
 * where the daemon listens: "host", "host:port", "[v6 address]", "[v6 address]:port" (TCP, port 7300
 * by default) or "unix:/path" (a daemon on this machine). dev_pci_addr is "DDDD:BB:DD.F" or "BB:DD.F".
 * net,devs is a comma-separated list of "name[:port]"; the first name is the device's IB device and
 * interface name.
 *
 * The file must be a regular file of at most 1 MiB; each field is at most 255 bytes, and at most 256
 * devices are read. Every line is checked, whichever host it is for: a malformed one is skipped with
 * one SDK warning naming the file, the line and the reason. A device whose PCI address repeats an
 * earlier device's is skipped the same way.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <doca_dev.h>
#include <doca_log.h>

#include "urom_core.h"

#define SERVICE_FILE_ENV "DOCA_UROM_SERVICE_FILE"
#define SERVICE_FILE_MAX (1024 * 1024)
#define SERVICE_MAX_DEVICES 256
#define SERVICE_FIELD_MAX 255
#define SERVICE_FIELDS 5
#define SERVICE_DEFAULT_PORT 7300
#define DEV_LOG_SOURCE "DOCA::DEV"
/* "tcp:" + host (brackets included) + ":65535", or "unix:" + path. */
#define SERVICE_ADDRESS_MAX (SERVICE_FIELD_MAX + 16)

struct doca_devinfo {
	char ibdev_name[DOCA_DEVINFO_IBDEV_NAME_SIZE];
	char pci_addr[DOCA_DEVINFO_PCI_ADDR_SIZE];
	unsigned domain, bus, device, function;
	char service_address[SERVICE_ADDRESS_MAX];
	/* For the warnings about repeated devices. */
	unsigned line;
};

struct doca_dev {
	struct doca_devinfo info;
};

/* ---- PCI addresses ---- */

/* Reads 1..max_digits hexadecimal digits of s[*pos..len). */
static bool parse_hex(const char *s, size_t len, size_t *pos, unsigned max_digits, unsigned *value)
{
	unsigned digits = 0, v = 0;

	while (*pos < len && isxdigit((unsigned char)s[*pos]) && digits < max_digits) {
		char c = s[*pos];

		v = v * 16 + (unsigned)(isdigit((unsigned char)c) ? c - '0' : tolower((unsigned char)c) - 'a' + 10);
		(*pos)++;
		digits++;
	}
	*value = v;
	return digits > 0;
}

/* "DDDD:BB:DD.F" or "BB:DD.F" (domain 0), exactly, hexadecimal. */
static bool parse_pci(const char *s, size_t len, unsigned *domain, unsigned *bus, unsigned *device, unsigned *function)
{
	size_t colons = 0, i, pos = 0;

	for (i = 0; i < len; i++)
		colons += s[i] == ':';
	*domain = 0;
	if (colons == 2) {
		if (!parse_hex(s, len, &pos, 4, domain) || pos >= len || s[pos++] != ':')
			return false;
	} else if (colons != 1) {
		return false;
	}
	if (!parse_hex(s, len, &pos, 2, bus) || pos >= len || s[pos++] != ':')
		return false;
	if (!parse_hex(s, len, &pos, 2, device) || *device > 0x1f || pos >= len || s[pos++] != '.')
		return false;
	if (!parse_hex(s, len, &pos, 1, function) || *function > 7)
		return false;
	return pos == len;
}

/* ---- service file lines ---- */

struct field {
	const char *p;
	size_t len;
};

static bool field_is(const struct field *f, const char *text)
{
	return f->len == strlen(text) && memcmp(f->p, text, f->len) == 0;
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

static bool parse_port(const char *s, size_t len, unsigned *port)
{
	unsigned v = 0;
	size_t i;

	if (len == 0 || len > 5)
		return false;
	for (i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (v == 0 || v > 65535)
		return false;
	*port = v;
	return true;
}

/* dev_hostname -> "tcp:HOST:PORT" or "unix:PATH"; NULL, or the reason it is not one. */
static const char *parse_service_host(const struct field *f, char *address, size_t cap)
{
	const char *s = f->p, *host, *port_text = NULL;
	size_t len = f->len, host_len, port_len = 0, i;
	unsigned port = SERVICE_DEFAULT_PORT;

	if (len > 5 && memcmp(s, "unix:", 5) == 0) {
		if (s[5] != '/')
			return "a unix: address needs an absolute path";
		if (len - 5 >= sizeof(((struct sockaddr_un *)0)->sun_path))
			return "the unix: path is too long for a socket address";
		snprintf(address, cap, "%.*s", (int)len, s);
		return NULL;
	}
	if (s[0] == '[') {
		const char *close = memchr(s, ']', len);

		if (close == NULL)
			return "an IPv6 address lacks its ']'";
		host = s;
		host_len = (size_t)(close - s) + 1;
		if (host_len < 4)
			return "an empty IPv6 address";
		for (i = 1; i + 1 < host_len; i++)
			if (!isxdigit((unsigned char)s[i]) && s[i] != ':' && s[i] != '.' && s[i] != '%' &&
			    !name_char(s[i]))
				return "an IPv6 address holds a character it cannot";
		if (memchr(s + 1, ':', host_len - 2) == NULL)
			return "an address in brackets must be IPv6";
		if (host_len < len) {
			if (s[host_len] != ':')
				return "unexpected text after the IPv6 address";
			port_text = s + host_len + 1;
			port_len = len - host_len - 1;
		}
	} else {
		const char *colon = memchr(s, ':', len);

		host = s;
		host_len = colon != NULL ? (size_t)(colon - s) : len;
		if (colon != NULL) {
			port_text = colon + 1;
			port_len = len - host_len - 1;
			if (memchr(port_text, ':', port_len) != NULL)
				return "an IPv6 address needs brackets, as in [fe80::1]:7300";
		}
		if (host_len == 0)
			return "the daemon's host name is empty";
		for (i = 0; i < host_len; i++)
			if (!name_char(s[i]))
				return "the daemon's host name holds a character it cannot";
	}
	if (port_text != NULL && !parse_port(port_text, port_len, &port))
		return "the daemon's port is not a number from 1 to 65535";
	snprintf(address, cap, "tcp:%.*s:%u", (int)host_len, host, port);
	return NULL;
}

/* net,devs -> the first device's name; NULL, or the reason. */
static const char *parse_net_devs(const struct field *f, char *ibdev, size_t cap)
{
	size_t start = 0, first_len = 0;
	bool first = true;

	while (start <= f->len) {
		const char *item = f->p + start;
		const char *comma = memchr(item, ',', f->len - start);
		size_t item_len = comma != NULL ? (size_t)(comma - item) : f->len - start;
		const char *colon = memchr(item, ':', item_len);
		size_t name_len = colon != NULL ? (size_t)(colon - item) : item_len, i;
		unsigned port;

		if (name_len == 0)
			return "a network device name is empty";
		if (name_len >= DOCA_DEVINFO_IBDEV_NAME_SIZE)
			return "a network device name is longer than 63 bytes";
		for (i = 0; i < name_len; i++)
			if (!name_char(item[i]))
				return "a network device name holds a character it cannot";
		if (colon != NULL && !parse_port(colon + 1, item_len - name_len - 1, &port))
			return "a network device's port is not a number";
		if (first) {
			first_len = name_len;
			first = false;
		}
		if (comma == NULL)
			break;
		start += item_len + 1;
	}
	snprintf(ibdev, cap, "%.*s", (int)first_len, f->p);
	return NULL;
}

/* Splits a line into fields (a '#' at the start of a field ends it); returns how many there are, up to
 * max + 1 (more than max). */
static size_t split_fields(const char *line, size_t len, struct field *fields, size_t max)
{
	size_t n = 0, i = 0;

	while (i < len) {
		size_t start;

		while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
			i++;
		if (i >= len || line[i] == '#')
			break;
		start = i;
		while (i < len && line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
			i++;
		if (n <= max) {
			if (n < max) {
				fields[n].p = line + start;
				fields[n].len = i - start;
			}
			n++;
		}
	}
	return n;
}

struct host_names {
	char full[256];
	size_t short_len;
};

static bool is_this_host(const struct host_names *h, const struct field *f)
{
	if (f->len == strlen(h->full) && strncasecmp(f->p, h->full, f->len) == 0)
		return true;
	return f->len == h->short_len && strncasecmp(f->p, h->full, f->len) == 0;
}

/* Checks one line; fills *info and answers NULL when it is well formed, else the reason. Lines that are
 * empty or comments answer NULL with *empty set. */
static const char *parse_line(const char *line, size_t len, struct doca_devinfo *info, bool *empty,
			      struct field *app_host, char *reason, size_t reason_cap)
{
	struct field fields[SERVICE_FIELDS];
	const char *why;
	size_t n, i;

	*empty = false;
	if (memchr(line, '\0', len) != NULL)
		return "the line holds a NUL byte";
	n = split_fields(line, len, fields, SERVICE_FIELDS);
	if (n == 0) {
		*empty = true;
		return NULL;
	}
	if (n != SERVICE_FIELDS) {
		if (n > SERVICE_FIELDS)
			snprintf(reason, reason_cap, "expected %d fields, found more", SERVICE_FIELDS);
		else
			snprintf(reason, reason_cap, "expected %d fields, found %zu", SERVICE_FIELDS, n);
		return reason;
	}
	for (i = 0; i < SERVICE_FIELDS; i++) {
		if (fields[i].len > SERVICE_FIELD_MAX) {
			snprintf(reason, reason_cap, "field %zu is longer than %d bytes", i + 1, SERVICE_FIELD_MAX);
			return reason;
		}
	}
	*app_host = fields[0];
	if (!field_is(&fields[1], "dpu")) {
		snprintf(reason, reason_cap, "service type '%.*s' is not 'dpu'", (int)fields[1].len, fields[1].p);
		return reason;
	}
	why = parse_service_host(&fields[2], info->service_address, sizeof(info->service_address));
	if (why != NULL)
		return why;
	if (!parse_pci(fields[3].p, fields[3].len, &info->domain, &info->bus, &info->device, &info->function)) {
		snprintf(reason, reason_cap, "'%.*s' is not a PCI address (DDDD:BB:DD.F or BB:DD.F)",
			 (int)fields[3].len, fields[3].p);
		return reason;
	}
	snprintf(info->pci_addr, sizeof(info->pci_addr), "%04x:%02x:%02x.%x", info->domain & 0xffff, info->bus & 0xff,
		 info->device & 0xff, info->function & 0xf);
	return parse_net_devs(&fields[4], info->ibdev_name, sizeof(info->ibdev_name));
}

/* Reads the whole file; NULL after one SDK error line. */
static char *read_service_file(const char *path, size_t *size)
{
	struct stat st;
	size_t have = 0;
	char *data;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		urom_sdk_log(DOCA_LOG_LEVEL_ERROR, DEV_LOG_SOURCE, "%s %s: cannot open: %s; no UROM devices",
			     SERVICE_FILE_ENV, path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		urom_sdk_log(DOCA_LOG_LEVEL_ERROR, DEV_LOG_SOURCE, "%s %s: not a regular file; no UROM devices",
			     SERVICE_FILE_ENV, path);
		close(fd);
		return NULL;
	}
	data = malloc(SERVICE_FILE_MAX + 1);
	if (data == NULL) {
		urom_sdk_log(DOCA_LOG_LEVEL_ERROR, DEV_LOG_SOURCE, "%s %s: out of memory; no UROM devices",
			     SERVICE_FILE_ENV, path);
		close(fd);
		return NULL;
	}
	while (have <= SERVICE_FILE_MAX) {
		ssize_t n = read(fd, data + have, SERVICE_FILE_MAX + 1 - have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			urom_sdk_log(DOCA_LOG_LEVEL_ERROR, DEV_LOG_SOURCE, "%s %s: cannot read: %s; no UROM devices",
				     SERVICE_FILE_ENV, path, strerror(errno));
			free(data);
			close(fd);
			return NULL;
		}
		if (n == 0)
			break;
		have += (size_t)n;
	}
	close(fd);
	if (have > SERVICE_FILE_MAX) {
		urom_sdk_log(DOCA_LOG_LEVEL_ERROR, DEV_LOG_SOURCE, "%s %s: larger than 1 MiB; no UROM devices",
			     SERVICE_FILE_ENV, path);
		free(data);
		return NULL;
	}
	*size = have;
	return data;
}

static void this_host(struct host_names *h)
{
	const char *dot;

	if (gethostname(h->full, sizeof(h->full) - 1) != 0)
		h->full[0] = '\0';
	h->full[sizeof(h->full) - 1] = '\0';
	dot = strchr(h->full, '.');
	h->short_len = dot != NULL ? (size_t)(dot - h->full) : strlen(h->full);
}

/* The devices of this host, at most SERVICE_MAX_DEVICES, into infos; returns how many. */
static size_t load_devices(struct doca_devinfo *infos)
{
	const char *path = getenv(SERVICE_FILE_ENV);
	struct host_names host;
	size_t size = 0, pos = 0, count = 0, i;
	unsigned line_no = 0;
	bool full_warned = false, any_line = false;
	char *data;

	if (path == NULL || path[0] == '\0') {
		urom_sdk_log(DOCA_LOG_LEVEL_ERROR, DEV_LOG_SOURCE,
			     "%s is not set: it names the file of UROM services; no UROM devices", SERVICE_FILE_ENV);
		return 0;
	}
	data = read_service_file(path, &size);
	if (data == NULL)
		return 0;
	this_host(&host);
	while (pos < size) {
		const char *line = data + pos, *nl = memchr(line, '\n', size - pos);
		size_t len = nl != NULL ? (size_t)(nl - line) : size - pos;
		struct doca_devinfo info;
		struct field app_host = {NULL, 0};
		char reason[160];
		const char *why;
		bool empty;

		pos += len + (nl != NULL);
		line_no++;
		memset(&info, 0, sizeof(info));
		why = parse_line(line, len, &info, &empty, &app_host, reason, sizeof(reason));
		if (why != NULL) {
			urom_sdk_log(DOCA_LOG_LEVEL_WARNING, DEV_LOG_SOURCE, "%s %s line %u: %s; skipped",
				     SERVICE_FILE_ENV, path, line_no, why);
			continue;
		}
		if (empty || !is_this_host(&host, &app_host))
			continue;
		any_line = true;
		info.line = line_no;
		for (i = 0; i < count; i++)
			if (strcmp(infos[i].pci_addr, info.pci_addr) == 0)
				break;
		if (i < count) {
			urom_sdk_log(DOCA_LOG_LEVEL_WARNING, DEV_LOG_SOURCE,
				     "%s %s line %u: PCI address %s is already the device of line %u; skipped",
				     SERVICE_FILE_ENV, path, line_no, info.pci_addr, infos[i].line);
			continue;
		}
		if (count == SERVICE_MAX_DEVICES) {
			if (!full_warned)
				urom_sdk_log(DOCA_LOG_LEVEL_WARNING, DEV_LOG_SOURCE,
					     "%s %s line %u: more than %d devices for this host; this and later ones "
					     "skipped",
					     SERVICE_FILE_ENV, path, line_no, SERVICE_MAX_DEVICES);
			full_warned = true;
			continue;
		}
		infos[count++] = info;
	}
	free(data);
	if (!any_line)
		urom_sdk_log(DOCA_LOG_LEVEL_WARNING, DEV_LOG_SOURCE, "%s %s has no line for this host (%s)",
			     SERVICE_FILE_ENV, path, host.full);
	return count;
}

/* ---- the DOCA API ---- */

DOCA_EXPERIMENTAL doca_error_t doca_devinfo_create_list(struct doca_devinfo ***dev_list, uint32_t *nb_devs)
{
	struct doca_devinfo *infos, **list;
	size_t count, i;

	if (dev_list == NULL || nb_devs == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	infos = calloc(SERVICE_MAX_DEVICES, sizeof(*infos));
	if (infos == NULL)
		return DOCA_ERROR_NO_MEMORY;
	count = load_devices(infos);
	/* One allocation: the NULL-terminated array of pointers, then the devinfos it points to. */
	list = malloc((count + 1) * sizeof(*list) + count * sizeof(**list));
	if (list == NULL) {
		free(infos);
		return DOCA_ERROR_NO_MEMORY;
	}
	for (i = 0; i < count; i++) {
		struct doca_devinfo *slot = (struct doca_devinfo *)(void *)(list + count + 1) + i;

		*slot = infos[i];
		list[i] = slot;
	}
	list[count] = NULL;
	free(infos);
	*dev_list = list;
	*nb_devs = (uint32_t)count;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_devinfo_destroy_list(struct doca_devinfo **dev_list)
{
	if (dev_list == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	free(dev_list);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_dev_open(struct doca_devinfo *devinfo, struct doca_dev **dev)
{
	struct doca_dev *d;

	if (devinfo == NULL || dev == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	d = malloc(sizeof(*d));
	if (d == NULL)
		return DOCA_ERROR_NO_MEMORY;
	d->info = *devinfo;
	*dev = d;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_dev_close(struct doca_dev *dev)
{
	if (dev == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	free(dev);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL struct doca_devinfo *doca_dev_as_devinfo(const struct doca_dev *dev)
{
	return dev != NULL ? (struct doca_devinfo *)&dev->info : NULL;
}

DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_pci_addr_str(const struct doca_devinfo *devinfo, char *pci_addr_str)
{
	if (devinfo == NULL || pci_addr_str == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	memcpy(pci_addr_str, devinfo->pci_addr, DOCA_DEVINFO_PCI_ADDR_SIZE);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_devinfo_is_equal_pci_addr(const struct doca_devinfo *devinfo,
							      const char *pci_addr_str, uint8_t *is_equal)
{
	unsigned domain, bus, device, function;
	size_t len;

	if (devinfo == NULL || pci_addr_str == NULL || is_equal == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	len = strnlen(pci_addr_str, DOCA_DEVINFO_PCI_ADDR_SIZE);
	if (len >= DOCA_DEVINFO_PCI_ADDR_SIZE || !parse_pci(pci_addr_str, len, &domain, &bus, &device, &function))
		return DOCA_ERROR_INVALID_VALUE;
	*is_equal = domain == devinfo->domain && bus == devinfo->bus && device == devinfo->device &&
		    function == devinfo->function;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_iface_name(const struct doca_devinfo *devinfo, char *iface_name,
							   uint32_t size)
{
	if (devinfo == NULL || iface_name == NULL || size < DOCA_DEVINFO_IFACE_NAME_SIZE)
		return DOCA_ERROR_INVALID_VALUE;
	snprintf(iface_name, size, "%s", devinfo->ibdev_name);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_ibdev_name(const struct doca_devinfo *devinfo, char *ibdev_name,
							   uint32_t size)
{
	if (devinfo == NULL || ibdev_name == NULL || size < DOCA_DEVINFO_IBDEV_NAME_SIZE)
		return DOCA_ERROR_INVALID_VALUE;
	snprintf(ibdev_name, size, "%s", devinfo->ibdev_name);
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_pci_func_type(const struct doca_devinfo *devinfo,
							      enum doca_pci_func_type *pci_func_type)
{
	if (devinfo == NULL || pci_func_type == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*pci_func_type = DOCA_PCI_FUNC_TYPE_PF;
	return DOCA_SUCCESS;
}

DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_sf_index(const struct doca_devinfo *devinfo, uint32_t *sf_index)
{
	if (devinfo == NULL || sf_index == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return DOCA_ERROR_NOT_SUPPORTED;
}

UROM_INTERNAL const char *urom_dev_service_address(const struct doca_dev *dev)
{
	return dev != NULL ? dev->info.service_address : NULL;
}

/* ---- representors: none ---- */

DOCA_EXPERIMENTAL doca_error_t doca_devinfo_rep_create_list(struct doca_dev *dev, int filter,
							    struct doca_devinfo_rep ***dev_list_rep,
							    uint32_t *nb_devs_rep)
{
	(void)filter;
	if (dev == NULL || dev_list_rep == NULL || nb_devs_rep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*dev_list_rep = NULL;
	*nb_devs_rep = 0;
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t doca_devinfo_rep_destroy_list(struct doca_devinfo_rep **dev_list_rep)
{
	/* No list is ever made, so none can be destroyed. */
	(void)dev_list_rep;
	return dev_list_rep == NULL ? DOCA_ERROR_INVALID_VALUE : DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t doca_dev_rep_open(struct doca_devinfo_rep *devinfo, struct doca_dev_rep **dev_rep)
{
	if (devinfo == NULL || dev_rep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*dev_rep = NULL;
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t doca_dev_rep_close(struct doca_dev_rep *dev)
{
	return dev == NULL ? DOCA_ERROR_INVALID_VALUE : DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL struct doca_devinfo_rep *doca_dev_rep_as_devinfo(struct doca_dev_rep *dev_rep)
{
	(void)dev_rep;
	return NULL;
}

DOCA_EXPERIMENTAL doca_error_t doca_devinfo_rep_get_vuid(const struct doca_devinfo_rep *devinfo_rep, char *rep_vuid,
							 uint32_t size)
{
	if (devinfo_rep == NULL || rep_vuid == NULL || size == 0)
		return DOCA_ERROR_INVALID_VALUE;
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t doca_devinfo_rep_get_pci_addr_str(const struct doca_devinfo_rep *devinfo_rep,
								 char *pci_addr_str)
{
	if (devinfo_rep == NULL || pci_addr_str == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t doca_devinfo_rep_get_pci_func_type(const struct doca_devinfo_rep *devinfo_rep,
								  enum doca_pci_func_type *pci_func_type)
{
	if (devinfo_rep == NULL || pci_func_type == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return DOCA_ERROR_NOT_SUPPORTED;
}

DOCA_EXPERIMENTAL doca_error_t doca_devinfo_rep_is_equal_pci_addr(const struct doca_devinfo_rep *devinfo_rep,
								  const char *pci_addr_str, uint8_t *is_equal)
{
	if (devinfo_rep == NULL || pci_addr_str == NULL || is_equal == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	return DOCA_ERROR_NOT_SUPPORTED;
}
