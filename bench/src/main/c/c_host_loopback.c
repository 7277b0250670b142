/* SPDX-License-Identifier: Apache-2.0 */
/*
 * c_host_loopback: the C host of the end-to-end benchmark. A program written against DOCA's host API
 * (doca_urom.h and the DOCA Core headers, nothing else of urom-java) that drives one worker of the
 * graph plugin with LOOPBACK commands, as a DOCA UROM program would.
 *
 *   c_host_loopback DEVICE PLUGIN ROUNDS THROUGHPUT IN_FLIGHT [spin|event]
 *
 * DEVICE is the PCI address ("DDDD:BB:DD.F" or "BB:DD.F") or the IB device / interface name of a
 * device of DOCA_UROM_SERVICE_FILE; the daemon its line names is the service. PLUGIN is the name of
 * a graph plugin in the daemon's list (worker_graph, worker_graph_java). The program starts one
 * worker of that plugin, then sends, unmeasured to warm up and then measured: ROUNDS LOOPBACKs one
 * after the other, each timed with CLOCK_MONOTONIC from the task's allocation to its completion
 * callback; then THROUGHPUT LOOPBACKs with IN_FLIGHT of them submitted at any time (refilled after
 * each progress call). Every reply must be the 16 bytes {u64 type = 0, u64 data} that were sent.
 * The last word says how the program waits for the progress engine: "spin" (the default) calls
 * doca_pe_progress() until it has something, as DOCA's samples do; "event" sleeps in epoll_wait()
 * on the engine's notification handle whenever it has nothing.
 *
 * On success it prints one line on stdout:
 *   c_host plugin=NAME wait=MODE rounds=N throughput=N in_flight=K p50_ns=.. p99_ns=.. mean_ns=..
 *       ops_per_s=.. cpu_ns_per_op=..
 * where the percentiles are nearest-rank ones of the ROUNDS samples and cpu_ns_per_op is this
 * process's CPU time (CLOCK_PROCESS_CPUTIME_ID) over the throughput phase divided by THROUGHPUT.
 *
 * Around the measured phases it pauses, so that its parent can read the CPU time of this program and
 * of its worker: it prints "warm" after the warm-up, "rounds_done" after the measured round trips and
 * "throughput_done" after the measured throughput (before stopping the worker), each on a line of its
 * own, and each time waits for a line, or end of file, on stdin.
 *
 * Errors: one line on stderr, "c_host_loopback: what failed: why", exit status 1; usage errors exit
 * 2. The library's own error messages are caught (an SDK log backend into a buffer) and the last one
 * ends that line instead of being printed on their own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_pe.h>
#include <doca_types.h>
#include <doca_urom.h>

#define PROGRAM "c_host_loopback"
#define MAX_COUNT 100000000L
#define MAX_IN_FLIGHT 4096L
#define LOOPBACK_TYPE 0
#define LOOPBACK_BYTES 16
/* How long one answer, the worker's start or its stop may take. */
#define ANSWER_TIMEOUT_NS (60ULL * 1000000000ULL)
#define SDK_LINE_MAX 1024

enum wait_mode { WAIT_SPIN, WAIT_EVENT };

/* The state of one phase of traffic. */
struct traffic {
	struct doca_urom_worker *worker;
	uint64_t plugin;
	uint64_t next_value;
	long submitted;
	long completed;
	long in_flight;
	/* The first reply that was not right, or empty. */
	char failure[256];
};

/* The 32 bytes of a command task's user data, as this program uses them. */
struct task_data {
	struct traffic *traffic;
	uint64_t value;
};

static struct doca_pe *pe;
static enum wait_mode wait_mode = WAIT_SPIN;
static doca_notification_handle_t notification = DOCA_EVENT_HANDLE_INVALID;
static int epoll_fd = -1;

/* The library's last SDK error message, its prefix cut off. */
static char sdk_record[SDK_LINE_MAX];
static char sdk_last[SDK_LINE_MAX];

static void sdk_flush(char *record)
{
	const char *message = record;
	int brackets = 0;
	size_t len;

	/* [time][pid][DOCA][LVL][SOURCE] message */
	for (const char *p = record; *p != '\0' && brackets < 5; p++) {
		if (*p == ']') {
			brackets++;
			message = p + 1;
		}
	}
	while (*message == ' ')
		message++;
	snprintf(sdk_last, sizeof(sdk_last), "%s", message);
	len = strlen(sdk_last);
	while (len > 0 && (sdk_last[len - 1] == '\n' || sdk_last[len - 1] == ' '))
		sdk_last[--len] = '\0';
}

static void fail(const char *format, ...) __attribute__((format(printf, 1, 2), noreturn));

static void fail(const char *format, ...)
{
	char what[1024];
	va_list args;

	va_start(args, format);
	vsnprintf(what, sizeof(what), format, args);
	va_end(args);
	if (sdk_last[0] != '\0')
		fprintf(stderr, "%s: %s (library: %s)\n", PROGRAM, what, sdk_last);
	else
		fprintf(stderr, "%s: %s\n", PROGRAM, what);
	exit(1);
}

static void check(doca_error_t status, const char *what)
{
	if (status != DOCA_SUCCESS)
		fail("%s: %s", what, doca_error_get_name(status));
}

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void usage(const char *why)
{
	fprintf(stderr, "%s: %s; usage: %s DEVICE PLUGIN ROUNDS THROUGHPUT IN_FLIGHT [spin|event]\n", PROGRAM, why,
		PROGRAM);
	exit(2);
}

static long parse_count(const char *text, const char *name, long min, long max)
{
	char why[256];
	char *end;
	long value;

	errno = 0;
	value = strtol(text, &end, 10);
	if (errno != 0 || *end != '\0' || end == text || value < min || value > max) {
		snprintf(why, sizeof(why), "%s '%.64s' is not a whole number from %ld to %ld", name, text, min, max);
		usage(why);
	}
	return value;
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/*
 * One call of doca_pe_progress(); with nothing to do, waits as the mode says, up to the deadline.
 * Returns whether an event was handled.
 */
static bool progress_once(uint64_t deadline_ns)
{
	struct epoll_event ready;
	uint64_t now;
	int timeout_ms;

	if (doca_pe_progress(pe))
		return true;
	now = clock_ns(CLOCK_MONOTONIC);
	if (now > deadline_ns)
		return false;
	if (wait_mode == WAIT_EVENT) {
		timeout_ms = (int)((deadline_ns - now) / 1000000ULL) + 1;
		check(doca_pe_request_notification(pe), "doca_pe_request_notification");
		if (epoll_wait(epoll_fd, &ready, 1, timeout_ms) < 0 && errno != EINTR)
			fail("epoll_wait on the progress engine's notification handle: %s", strerror(errno));
		check(doca_pe_clear_notification(pe, notification), "doca_pe_clear_notification");
	}
	return false;
}

/* Progresses until the context leaves state from, failing after the timeout with what. */
static enum doca_ctx_states progress_while(struct doca_ctx *ctx, enum doca_ctx_states from, const char *what)
{
	uint64_t deadline = clock_ns(CLOCK_MONOTONIC) + ANSWER_TIMEOUT_NS;
	enum doca_ctx_states state;

	for (;;) {
		check(doca_ctx_get_state(ctx, &state), "doca_ctx_get_state");
		if (state != from)
			return state;
		if (clock_ns(CLOCK_MONOTONIC) > deadline)
			fail("%s: still not done after %llu s", what, ANSWER_TIMEOUT_NS / 1000000000ULL);
		progress_once(deadline);
	}
}

static void loopback_done(struct doca_urom_worker_cmd_task *task, union doca_data task_user_data,
			  union doca_data ctx_user_data)
{
	struct task_data *data = doca_urom_worker_cmd_task_get_user_data(task);
	struct traffic *traffic = data->traffic;
	struct doca_buf *response = doca_urom_worker_cmd_task_get_response(task);
	doca_error_t status = doca_task_get_status(doca_urom_worker_cmd_task_as_task(task));
	void *bytes = NULL;
	size_t len = 0;

	(void)task_user_data;
	(void)ctx_user_data;
	if (traffic->failure[0] == '\0') {
		if (status != DOCA_SUCCESS) {
			snprintf(traffic->failure, sizeof(traffic->failure), "LOOPBACK of %llu failed: %s",
				 (unsigned long long)data->value, doca_error_get_name(status));
		} else if (doca_buf_get_data(response, &bytes) != DOCA_SUCCESS ||
			   doca_buf_get_data_len(response, &len) != DOCA_SUCCESS || len != LOOPBACK_BYTES) {
			snprintf(traffic->failure, sizeof(traffic->failure),
				 "LOOPBACK of %llu came back with %zu bytes, not %d", (unsigned long long)data->value,
				 len, LOOPBACK_BYTES);
		} else if (get64(bytes) != LOOPBACK_TYPE || get64((uint8_t *)bytes + 8) != data->value) {
			snprintf(traffic->failure, sizeof(traffic->failure),
				 "LOOPBACK of %llu came back as type %llu data %llu", (unsigned long long)data->value,
				 (unsigned long long)get64(bytes), (unsigned long long)get64((uint8_t *)bytes + 8));
		}
	}
	traffic->completed++;
	traffic->in_flight--;
	if (doca_urom_worker_cmd_task_release(task) != DOCA_SUCCESS && traffic->failure[0] == '\0')
		snprintf(traffic->failure, sizeof(traffic->failure), "a completed task could not be released");
}

/* Allocates and submits the next LOOPBACK; false when the worker takes no more now (AGAIN). */
static bool submit_loopback(struct traffic *traffic)
{
	struct doca_urom_worker_cmd_task *task;
	struct task_data *data;
	struct doca_buf *payload;
	void *head;
	doca_error_t status;

	check(doca_urom_worker_cmd_task_allocate_init(traffic->worker, traffic->plugin, &task),
	      "doca_urom_worker_cmd_task_allocate_init");
	payload = doca_urom_worker_cmd_task_get_payload(task);
	check(doca_buf_get_data(payload, &head), "doca_buf_get_data of a command's payload");
	put64(head, LOOPBACK_TYPE);
	put64((uint8_t *)head + 8, traffic->next_value);
	check(doca_buf_set_data(payload, head, LOOPBACK_BYTES), "doca_buf_set_data of a command's payload");
	data = doca_urom_worker_cmd_task_get_user_data(task);
	data->traffic = traffic;
	data->value = traffic->next_value;
	doca_urom_worker_cmd_task_set_cb(task, loopback_done);
	status = doca_task_submit(doca_urom_worker_cmd_task_as_task(task));
	if (status == DOCA_ERROR_AGAIN) {
		doca_urom_worker_cmd_task_release(task);
		return false;
	}
	if (status != DOCA_SUCCESS) {
		doca_urom_worker_cmd_task_release(task);
		fail("doca_task_submit of LOOPBACK %ld: %s", traffic->submitted, doca_error_get_name(status));
	}
	traffic->next_value++;
	traffic->submitted++;
	traffic->in_flight++;
	return true;
}

/* Progresses until every submitted LOOPBACK is answered, refilling up to in_flight of total. */
static void run_traffic(struct traffic *traffic, long total, long in_flight)
{
	uint64_t deadline = clock_ns(CLOCK_MONOTONIC) + ANSWER_TIMEOUT_NS;
	long answered = traffic->completed;

	for (;;) {
		while (traffic->submitted < total && traffic->in_flight < in_flight && traffic->failure[0] == '\0') {
			if (!submit_loopback(traffic))
				break;
		}
		if (traffic->failure[0] != '\0')
			fail("%s", traffic->failure);
		if (traffic->completed == total)
			return;
		if (progress_once(deadline))
			continue;
		if (traffic->completed != answered) {
			answered = traffic->completed;
			deadline = clock_ns(CLOCK_MONOTONIC) + ANSWER_TIMEOUT_NS;
		} else if (clock_ns(CLOCK_MONOTONIC) > deadline) {
			fail("%ld of %ld LOOPBACKs unanswered after %llu s", total - traffic->completed, total,
			     ANSWER_TIMEOUT_NS / 1000000000ULL);
		}
	}
}

static void traffic_init(struct traffic *traffic, struct doca_urom_worker *worker, uint64_t plugin, uint64_t *value)
{
	memset(traffic, 0, sizeof(*traffic));
	traffic->worker = worker;
	traffic->plugin = plugin;
	traffic->next_value = *value;
}

/* ROUNDS LOOPBACKs one after the other; samples (when not NULL) get each one's time. */
static void round_trips(struct doca_urom_worker *worker, uint64_t plugin, uint64_t *value, long rounds,
			uint64_t *samples)
{
	struct traffic traffic;

	traffic_init(&traffic, worker, plugin, value);
	for (long i = 0; i < rounds; i++) {
		uint64_t start = clock_ns(CLOCK_MONOTONIC);

		run_traffic(&traffic, i + 1, 1);
		if (samples != NULL)
			samples[i] = clock_ns(CLOCK_MONOTONIC) - start;
	}
	*value = traffic.next_value;
}

static void pipelined(struct doca_urom_worker *worker, uint64_t plugin, uint64_t *value, long total, long in_flight)
{
	struct traffic traffic;

	traffic_init(&traffic, worker, plugin, value);
	run_traffic(&traffic, total, in_flight);
	*value = traffic.next_value;
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The nearest-rank percentile: the smallest sample that at least that fraction do not exceed. */
static uint64_t percentile(const uint64_t *sorted, long count, double fraction)
{
	long rank = (long)(fraction * (double)count);

	if ((double)rank < fraction * (double)count)
		rank++;
	if (rank < 1)
		rank = 1;
	if (rank > count)
		rank = count;
	return sorted[rank - 1];
}

static struct doca_dev *open_device(const char *name)
{
	struct doca_devinfo **list = NULL;
	struct doca_dev *dev = NULL;
	uint32_t count = 0;
	char known[512] = "";
	size_t used = 0;

	check(doca_devinfo_create_list(&list, &count), "doca_devinfo_create_list");
	for (uint32_t i = 0; i < count && dev == NULL; i++) {
		char pci[DOCA_DEVINFO_PCI_ADDR_SIZE] = "";
		char ibdev[DOCA_DEVINFO_IBDEV_NAME_SIZE] = "";
		char iface[DOCA_DEVINFO_IFACE_NAME_SIZE] = "";
		uint8_t equal = 0;

		doca_devinfo_get_pci_addr_str(list[i], pci);
		doca_devinfo_get_ibdev_name(list[i], ibdev, sizeof(ibdev));
		doca_devinfo_get_iface_name(list[i], iface, sizeof(iface));
		/* INVALID_VALUE when name is no PCI address: then it may be a device name. */
		if ((doca_devinfo_is_equal_pci_addr(list[i], name, &equal) == DOCA_SUCCESS && equal) ||
		    strcmp(name, ibdev) == 0 || strcmp(name, iface) == 0) {
			doca_error_t status = doca_dev_open(list[i], &dev);

			if (status != DOCA_SUCCESS) {
				doca_devinfo_destroy_list(list);
				fail("doca_dev_open of %s: %s", name, doca_error_get_name(status));
			}
		} else if (used < sizeof(known)) {
			int n = snprintf(known + used, sizeof(known) - used, "%s%s (%s)", used == 0 ? "" : ", ", pci,
					 ibdev);

			used += n > 0 ? (size_t)n : 0;
		}
	}
	doca_devinfo_destroy_list(list);
	if (dev == NULL) {
		if (count == 0)
			fail("no device %s: DOCA_UROM_SERVICE_FILE gives no devices for this host", name);
		sdk_last[0] = '\0';
		fail("no device %s among the %u of DOCA_UROM_SERVICE_FILE: %s", name, count, known);
	}
	return dev;
}

static uint64_t plugin_id(struct doca_urom_service *service, const char *name)
{
	const struct doca_urom_service_plugin_info *plugins;
	char known[512] = "";
	size_t count, used = 0;

	check(doca_urom_service_get_plugins_list(service, &plugins, &count), "doca_urom_service_get_plugins_list");
	for (size_t i = 0; i < count; i++) {
		int n;

		if (strcmp(plugins[i].plugin_name, name) == 0)
			return plugins[i].id;
		if (used < sizeof(known)) {
			n = snprintf(known + used, sizeof(known) - used, "%s%s", used == 0 ? "" : ", ",
				     plugins[i].plugin_name);
			used += n > 0 ? (size_t)n : 0;
		}
	}
	fail("the daemon has no plugin %s; it has %s", name, count == 0 ? "none" : known);
}

/* Prints `marker` on a line of its own, then waits for a line or end of file on stdin. */
static void pause_at(const char *marker)
{
	char c;
	ssize_t n;

	printf("%s\n", marker);
	fflush(stdout);
	while ((n = read(STDIN_FILENO, &c, 1)) != 0) {
		if (n < 0 && errno != EINTR)
			fail("cannot read stdin after '%s': %s", marker, strerror(errno));
		if (n == 1 && c == '\n')
			return;
	}
}

static uint32_t power_of_two_at_least(long n)
{
	uint32_t p = 1;

	while ((long)p < n)
		p <<= 1;
	return p;
}

int main(int argc, char **argv)
{
	struct doca_log_backend *sdk_backend;
	struct doca_urom_service *service;
	struct doca_urom_worker *worker;
	struct doca_dev *dev;
	struct epoll_event watch = {.events = EPOLLIN};
	enum doca_ctx_states state;
	const char *device, *plugin_name;
	long rounds, throughput, in_flight;
	uint64_t plugin, value = 0x5ca1ab1e00000000ULL, total = 0, *samples;
	uint64_t wall_start, wall_ns, cpu_start, cpu_ns;
	doca_error_t status;

	if (argc != 6 && argc != 7)
		usage(argc < 6 ? "too few arguments" : "too many arguments");
	device = argv[1];
	plugin_name = argv[2];
	rounds = parse_count(argv[3], "ROUNDS", 1, MAX_COUNT);
	throughput = parse_count(argv[4], "THROUGHPUT", 1, MAX_COUNT);
	in_flight = parse_count(argv[5], "IN_FLIGHT", 1, MAX_IN_FLIGHT);
	if (argc == 7) {
		if (strcmp(argv[6], "spin") == 0)
			wait_mode = WAIT_SPIN;
		else if (strcmp(argv[6], "event") == 0)
			wait_mode = WAIT_EVENT;
		else
			usage("the wait mode is spin or event");
	}
	if (device[0] == '\0')
		usage("DEVICE is empty");
	samples = malloc(sizeof(*samples) * (size_t)rounds);
	if (samples == NULL)
		fail("cannot allocate %ld samples", rounds);

	/* The library's errors end this program's one line instead of going to stderr on their own. */
	check(doca_log_backend_create_with_buf_sdk(sdk_record, sizeof(sdk_record), sdk_flush, &sdk_backend),
	      "doca_log_backend_create_with_buf_sdk");
	check(doca_log_backend_set_sdk_level(sdk_backend, DOCA_LOG_LEVEL_ERROR), "doca_log_backend_set_sdk_level");

	dev = open_device(device);
	check(doca_pe_create(&pe), "doca_pe_create");
	if (wait_mode == WAIT_EVENT) {
		check(doca_pe_get_notification_handle(pe, &notification), "doca_pe_get_notification_handle");
		/* The handle is an epoll descriptor itself; waiting on it from another epoll set is portable. */
		epoll_fd = epoll_create1(EPOLL_CLOEXEC);
		if (epoll_fd < 0 || epoll_ctl(epoll_fd, EPOLL_CTL_ADD, notification, &watch) != 0)
			fail("cannot wait on the progress engine's notification handle: %s", strerror(errno));
	}

	check(doca_urom_service_create(&service), "doca_urom_service_create");
	check(doca_pe_connect_ctx(pe, doca_urom_service_as_ctx(service)), "doca_pe_connect_ctx of the service");
	check(doca_urom_service_set_dev(service, dev), "doca_urom_service_set_dev");
	check(doca_ctx_start(doca_urom_service_as_ctx(service)), "the service's start (doca_ctx_start)");
	plugin = plugin_id(service, plugin_name);

	check(doca_urom_worker_create(&worker), "doca_urom_worker_create");
	check(doca_pe_connect_ctx(pe, doca_urom_worker_as_ctx(worker)), "doca_pe_connect_ctx of the worker");
	check(doca_urom_worker_set_service(worker, service), "doca_urom_worker_set_service");
	check(doca_urom_worker_set_plugins(worker, plugin), "doca_urom_worker_set_plugins");
	check(doca_urom_worker_set_max_inflight_tasks(worker, power_of_two_at_least(in_flight)),
	      "doca_urom_worker_set_max_inflight_tasks");
	status = doca_ctx_start(doca_urom_worker_as_ctx(worker));
	if (status != DOCA_ERROR_IN_PROGRESS && status != DOCA_SUCCESS)
		fail("the worker's start (doca_ctx_start): %s", doca_error_get_name(status));
	state = progress_while(doca_urom_worker_as_ctx(worker), DOCA_CTX_STATE_STARTING, "the worker's start");
	if (state != DOCA_CTX_STATE_RUNNING)
		fail("the worker of %s did not start (state %d)", plugin_name, (int)state);

	/* The same traffic unmeasured first: the worker's code paths (a JVM's JIT too) warm up. */
	round_trips(worker, plugin, &value, rounds, NULL);
	pipelined(worker, plugin, &value, throughput, in_flight);

	pause_at("warm");
	round_trips(worker, plugin, &value, rounds, samples);
	pause_at("rounds_done");
	cpu_start = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	wall_start = clock_ns(CLOCK_MONOTONIC);
	pipelined(worker, plugin, &value, throughput, in_flight);
	wall_ns = clock_ns(CLOCK_MONOTONIC) - wall_start;
	cpu_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
	pause_at("throughput_done");

	status = doca_ctx_stop(doca_urom_worker_as_ctx(worker));
	if (status == DOCA_ERROR_IN_PROGRESS)
		state = progress_while(doca_urom_worker_as_ctx(worker), DOCA_CTX_STATE_STOPPING, "the worker's stop");
	else if (status != DOCA_SUCCESS)
		fail("the worker's stop (doca_ctx_stop): %s", doca_error_get_name(status));
	check(doca_urom_worker_destroy(worker), "doca_urom_worker_destroy");
	status = doca_ctx_stop(doca_urom_service_as_ctx(service));
	if (status == DOCA_ERROR_IN_PROGRESS)
		progress_while(doca_urom_service_as_ctx(service), DOCA_CTX_STATE_STOPPING, "the service's stop");
	else if (status != DOCA_SUCCESS)
		fail("the service's stop (doca_ctx_stop): %s", doca_error_get_name(status));
	check(doca_urom_service_destroy(service), "doca_urom_service_destroy");
	check(doca_pe_destroy(pe), "doca_pe_destroy");
	check(doca_dev_close(dev), "doca_dev_close");

	for (long i = 0; i < rounds; i++)
		total += samples[i];
	qsort(samples, (size_t)rounds, sizeof(*samples), compare_u64);
	printf("c_host plugin=%s wait=%s rounds=%ld throughput=%ld in_flight=%ld p50_ns=%llu p99_ns=%llu mean_ns=%llu"
	       " ops_per_s=%.0f cpu_ns_per_op=%.0f\n",
	       plugin_name, wait_mode == WAIT_SPIN ? "spin" : "event", rounds, throughput, in_flight,
	       (unsigned long long)percentile(samples, rounds, 0.50),
	       (unsigned long long)percentile(samples, rounds, 0.99), (unsigned long long)(total / (uint64_t)rounds),
	       (double)throughput / ((double)wall_ns / 1e9), (double)cpu_ns / (double)throughput);
	free(samples);
	return 0;
}
