// SPDX-License-Identifier: GPL-2.0
/*
 * workemu: a periodic task on a CPU that slows down with the frequency.
 *
 *   workemu [-f PRIO | -d RUNTIME_US | -n NICE] CPU PERIOD_US SECONDS POWER_CSV PHASE...
 *   workemu [-f PRIO | -d RUNTIME_US | -n NICE] any PERIOD_US SECONDS - PHASE...
 *
 * PHASE is DUTY_PCT or DUTY_PCT:PERIODS (default 1); the phases repeat until
 * SECONDS are over: "50" is a steady 50% load, "10:25 80:6" alternates 25
 * light periods with 6 heavy ones.
 *
 * In a VM the vCPU runs at the same speed whatever the virtual frequency, so
 * each period's work (DUTY_PCT of the period at the top frequency) is done in
 * chunks of CHUNK_US nominal time, and a chunk spins CHUNK_US * max / cur
 * wall-clock microseconds, cur read from the policy's scaling_cur_freq before
 * each chunk.  Energy of the work is the driver's power at cur times the
 * spin time (POWER_CSV: "khz,uw" lines of the energy model).  A job whose
 * work ends after the next period's start is a deadline miss.  Jobs are
 * released every period; the run ends at SECONDS, with the jobs released
 * by then.
 *
 * -f runs it SCHED_FIFO at PRIO, -d SCHED_DEADLINE with a reservation of
 * RUNTIME_US every PERIOD_US (admission control must be off: the task is
 * pinned), -n at nice NICE.
 *
 * With CPU "any" the task runs wherever the scheduler puts it, and each
 * chunk is priced on the CPU it ran on with the kernel's energy model
 * (debugfs energy_model/): its operating points' power and performance,
 * the latter out of the biggest CPU's 1024, so that a chunk takes
 * CHUNK_US * 1024 / performance on a little CPU as on a big one.
 *
 * Prints one line: periods misses busy_us energy_uj slow_us, slow_us being
 * the part of busy_us spent below the top frequency; with "any", then
 * little_us, the part spent on CPUs smaller than the biggest.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#define CHUNK_US 500
#define MAX_OPPS 64
#define MAX_PHASES 64
#define MAX_CPUS 64
#define FULL_PERF 1024

static int phase_duty[MAX_PHASES], phase_periods[MAX_PHASES], nr_phases;

/* A CPU's operating points, ascending: kHz, power, performance of 1024. */
struct cpu_model {
	int nr, fd;
	unsigned long khz[MAX_OPPS], uw[MAX_OPPS];
	double perf[MAX_OPPS];
};

static struct cpu_model models[MAX_CPUS];

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static void sleep_until_us(long long t)
{
	struct timespec ts = { .tv_sec = t / 1000000, .tv_nsec = (t % 1000000) * 1000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
		;
}

static unsigned long read_khz(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return 0;
	buf[n] = 0;
	return strtoul(buf, NULL, 10);
}

/* The lowest operating point at or above @khz, else the top one. */
static int opp_index(const struct cpu_model *m, unsigned long khz)
{
	int i;

	for (i = 0; i < m->nr; i++)
		if (m->khz[i] >= khz)
			return i;
	return m->nr - 1;
}

static void add_opp(struct cpu_model *m, unsigned long khz, unsigned long uw,
		    double perf)
{
	int i = m->nr;

	if (m->nr == MAX_OPPS)
		return;
	for (; i > 0 && m->khz[i - 1] > khz; i--) {
		m->khz[i] = m->khz[i - 1];
		m->uw[i] = m->uw[i - 1];
		m->perf[i] = m->perf[i - 1];
	}
	m->khz[i] = khz;
	m->uw[i] = uw;
	m->perf[i] = perf;
	m->nr++;
}

/* "khz,uw" lines; performance follows the frequency up to FULL_PERF. */
static void load_power_csv(struct cpu_model *m, const char *path)
{
	unsigned long khz, uw;
	FILE *f = fopen(path, "r");
	int i;

	if (!f) {
		perror(path);
		exit(1);
	}
	while (fscanf(f, "%lu,%lu", &khz, &uw) == 2)
		if (khz)
			add_opp(m, khz, uw, 0);
	fclose(f);
	if (!m->nr) {
		fprintf(stderr, "workemu: no operating points in %s\n", path);
		exit(1);
	}
	for (i = 0; i < m->nr; i++)
		m->perf[i] = (double)FULL_PERF * m->khz[i] / m->khz[m->nr - 1];
}

static unsigned long read_ul(const char *dir, const char *name)
{
	char path[512];
	unsigned long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%lu", &v) != 1) {
		perror(path);
		exit(1);
	}
	fclose(f);
	return v;
}

/* @cpu's performance domain from debugfs energy_model/cpuN/ps:KHZ/. */
static void load_energy_model(struct cpu_model *m, int cpu)
{
	char policy[128], path[256];
	struct dirent *d;
	DIR *dir;

	/* The domain's directory is named after its first CPU. */
	snprintf(policy, sizeof(policy), "/sys/devices/system/cpu/cpu%d/cpufreq", cpu);
	snprintf(path, sizeof(path), "/sys/kernel/debug/energy_model/cpu%lu",
		 read_ul(policy, "related_cpus"));
	dir = opendir(path);
	if (!dir) {
		perror(path);
		exit(1);
	}
	while ((d = readdir(dir))) {
		unsigned long perf;
		char ps[512];

		if (strncmp(d->d_name, "ps:", 3))
			continue;
		snprintf(ps, sizeof(ps), "%s/%s", path, d->d_name);
		perf = read_ul(ps, "performance");
		if (perf)
			add_opp(m, read_ul(ps, "frequency"), read_ul(ps, "power"), perf);
	}
	closedir(dir);
	if (!m->nr) {
		fprintf(stderr, "workemu: no operating points in %s\n", path);
		exit(1);
	}
}

static int open_cur_freq(int cpu)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", cpu);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		exit(1);
	}
	return fd;
}

/* The kernel's struct sched_attr; glibc 2.36 has no wrapper. */
struct sched_attr_v1 {
	uint32_t size, sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
};

static void set_deadline(long long runtime_us, long long period_us)
{
	struct sched_attr_v1 attr = {
		.size = sizeof(attr),
		.sched_policy = 6,	/* SCHED_DEADLINE */
		.sched_runtime = runtime_us * 1000,
		.sched_deadline = period_us * 1000,
		.sched_period = period_us * 1000,
	};

	if (syscall(SYS_sched_setattr, 0, &attr, 0)) {
		perror("sched_setattr(SCHED_DEADLINE)");
		exit(1);
	}
}

static void set_class(int opt, const char *arg, long long period_us)
{
	struct sched_param param = { .sched_priority = atoi(arg) };

	switch (opt) {
	case 'f':
		if (sched_setscheduler(0, SCHED_FIFO, &param)) {
			perror("sched_setscheduler(SCHED_FIFO)");
			exit(1);
		}
		break;
	case 'd':
		set_deadline(atoll(arg), period_us);
		break;
	case 'n':
		if (setpriority(PRIO_PROCESS, 0, atoi(arg))) {
			perror("setpriority");
			exit(1);
		}
		break;
	}
}

static void parse_phases(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc && nr_phases < MAX_PHASES; i++, nr_phases++) {
		char *colon = strchr(argv[i], ':');

		phase_duty[nr_phases] = atoi(argv[i]);
		phase_periods[nr_phases] = colon ? atoi(colon + 1) : 1;
		if (phase_duty[nr_phases] < 0 || phase_duty[nr_phases] > 100 ||
		    phase_periods[nr_phases] < 1) {
			fprintf(stderr, "workemu: bad phase '%s'\n", argv[i]);
			exit(2);
		}
	}
}

int main(int argc, char **argv)
{
	long long period, work, end, start, next, t, spin;
	long periods = 0, misses = 0, in_phase = 0;
	double busy = 0, energy = 0, slow = 0, little = 0;
	const char *class_arg = NULL;
	int class_opt = 0, opt, anywhere;
	unsigned long cur;
	cpu_set_t set;
	int cpu, i, phase = 0;

	while ((opt = getopt(argc, argv, "+f:d:n:")) != -1) {
		if (opt == '?' || class_opt) {
			fprintf(stderr, "workemu: one of -f PRIO, -d RUNTIME_US, -n NICE\n");
			return 2;
		}
		class_opt = opt;
		class_arg = optarg;
	}
	argc -= optind - 1;
	argv += optind - 1;
	if (argc < 6) {
		fprintf(stderr, "usage: workemu [-f PRIO | -d RUNTIME_US | -n NICE] CPU|any PERIOD_US SECONDS POWER_CSV|- PHASE...\n");
		return 2;
	}
	anywhere = !strcmp(argv[1], "any");
	cpu = atoi(argv[1]);
	period = atoll(argv[2]);
	parse_phases(argc - 5, argv + 5);
	if (!anywhere && (cpu < 0 || cpu >= MAX_CPUS)) {
		fprintf(stderr, "workemu: bad CPU '%s'\n", argv[1]);
		return 2;
	}

	if (anywhere) {
		/* Free of the caller's affinity: the scheduler places it. */
		CPU_ZERO(&set);
		for (i = 0; i < MAX_CPUS && i < sysconf(_SC_NPROCESSORS_CONF); i++) {
			load_energy_model(&models[i], i);
			models[i].fd = open_cur_freq(i);
			CPU_SET(i, &set);
		}
	} else {
		load_power_csv(&models[cpu], argv[4]);
		models[cpu].fd = open_cur_freq(cpu);
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
	}
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		return 1;
	}
	if (class_opt)
		set_class(class_opt, class_arg, period);

	start = now_us();
	end = start + atoll(argv[3]) * 1000000LL;
	for (next = start; next + period <= end && now_us() < end; next += period) {
		long long left;

		if (in_phase++ == phase_periods[phase]) {
			phase = (phase + 1) % nr_phases;
			in_phase = 1;
		}
		work = period * phase_duty[phase] / 100;
		left = work;
		periods++;
		while (left > 0) {
			long long nominal = left < CHUNK_US ? left : CHUNK_US;
			const struct cpu_model *m = &models[anywhere ? sched_getcpu() : cpu];
			int top = m->nr - 1;

			cur = read_khz(m->fd) ?: m->khz[top];
			i = opp_index(m, cur);
			spin = nominal * FULL_PERF / m->perf[i];
			t = now_us();
			while (now_us() - t < spin)
				;
			busy += spin;
			if (cur < m->khz[top])
				slow += spin;
			if (m->perf[top] < FULL_PERF)
				little += spin;
			energy += (double)m->uw[i] * spin / 1e6;
			left -= nominal;
		}
		/*
		 * As rt-app's timer: a late job is a miss, and the next one
		 * starts at once (its release time has passed), so a governor
		 * that is too slow sees a busier CPU and can catch up.
		 */
		if (now_us() > next + period)
			misses++;
		sleep_until_us(next + period);
	}
	if (anywhere)
		printf("%ld %ld %.0f %.1f %.0f %.0f\n", periods, misses, busy, energy, slow, little);
	else
		printf("%ld %ld %.0f %.1f %.0f\n", periods, misses, busy, energy, slow);
	return 0;
}
