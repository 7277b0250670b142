#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# liburom_mpi against a real daemon: starts one from the distribution (bin/urom daemon) on a Unix
# socket in a fresh directory, runs um_check under mpirun with the library preloaded, in every case
# below and with each rank count of NPS, and checks its exit status and lines: every result equal
# to MPI's, the offloaded count (UROM_MPI_STATS=1) non-zero where offload is expected and zero where
# everything must fall back, no worker left running afterwards. Prints one line per case and
# "mpi integration tests: N passed, N failed"; exit status 0 only when none failed.
#   UROM_BIN, UROM_MPI_LIB, UM_CHECK, FFT2D, TMPDIR, NPS come from the Makefile.
set -u

: "${UROM_BIN:?}" "${UROM_MPI_LIB:?}" "${UM_CHECK:?}" "${FFT2D:?}"
NPS=${NPS:-"2 3 4"}
RUN_TIMEOUT=${RUN_TIMEOUT:-300}
dir=$(mktemp -d "${TMPDIR:-/tmp}/urom-mpi-it-XXXXXX") || exit 1
passed=0
failed=0

# The daemons started here, each the leader of its process group.
daemons=()

stop_daemons() {
	for pid in "${daemons[@]}"; do
		kill -TERM "$pid" 2>/dev/null
		timeout 60 tail --pid="$pid" -f /dev/null
		# Whatever the daemon left in its process group.
		kill -KILL -- "-$pid" 2>/dev/null
	done
	daemons=()
}

cleanup() {
	stop_daemons
	rm -rf "$dir"
}
trap cleanup EXIT

mpirun_args=(--oversubscribe)
[ "$(id -u)" = 0 ] && mpirun_args+=(--allow-run-as-root)

# start_daemon NAME [ARGS...]: a daemon listening on $dir/NAME/urom.sock, its service file
# $dir/NAME/services; returns once its log says it listens.
start_daemon() {
	local d=$dir/$1 tp
	shift
	mkdir -p "$d/log"
	# Workers on one machine talk over shared memory only with these (docs/collectives.md).
	UCX_POSIX_ERROR_HANDLING=y UCX_SYSV_ERROR_HANDLING=y setsid "$UROM_BIN" daemon --listen "unix:$d/urom.sock" \
		--log-dir "$d/log" "$@" >"$d/daemon.out" 2>&1 &
	daemons+=($!)
	# Wait for the daemon's "listening" line (tail -F follows the log as it is written).
	exec 3< <(exec timeout 120 tail -F -n +1 "$d/log/urom_daemon_dev.log" 2>/dev/null)
	tp=$!
	if ! grep -q -m1 "daemon listening on" <&3; then
		echo "mpi it: the daemon did not start listening on $d/urom.sock"
		cat "$d/daemon.out"
		exit 1
	fi
	kill "$tp" 2>/dev/null
	exec 3<&-
	echo "$(hostname) dpu unix:$d/urom.sock 0000:3b:00.0 urom0:1" >"$d/services"
}

if [ "$(id -u)" = 0 ]; then
	# Workers of root's default worker user reach no root process (docs/collectives.md).
	start_daemon main --worker-user root
else
	start_daemon main
fi
sock=$dir/main/urom.sock

echo "$(hostname) dpu unix:$dir/nobody-listens.sock 0000:3b:00.0 urom0:1" >"$dir/services-down"

out=$dir/out
# run NAME NP MODE EXPECT [VAR=value ...]: EXPECT is offload (offloaded > 0), none (offloaded 0),
# error (the mismatch is reported as MPI_ERR_OTHER), kill (a worker is killed meanwhile) or off (the
# library says it is off). EXPECT_LINES: patterns the output must hold; EXPECT_WARNING: the one
# "urom_mpi: rank N: ..." warning line it must hold, alone.
run() {
	local name=$1 np=$2 mode=$3 expect=$4
	shift 4
	local env=(DOCA_UROM_SERVICE_FILE="$dir/main/services" UROM_MPI_STATS=1 UROM_MPI_MIN_BYTES=0 "$@")
	local xs=(-x LD_PRELOAD="$UROM_MPI_LIB")
	local why= rc offloaded
	for e in "${env[@]}"; do
		xs+=(-x "$e")
	done
	if [ "$expect" = kill ]; then
		launch_and_kill "$np" "${xs[@]}"
		rc=$?
	else
		env "${env[@]}" timeout -k 10 "$RUN_TIMEOUT" mpirun "${mpirun_args[@]}" -np "$np" "${xs[@]}" \
			"$UM_CHECK" "$mode" >"$out" 2>&1
		rc=$?
	fi
	offloaded=$(sed -n 's/^urom_mpi: stats: offloaded \([0-9]*\),.*/\1/p' "$out")
	if [ "$rc" -ne 0 ]; then
		why="exit status $rc"
	elif ! grep -q "^um_check $mode: [0-9]* checks, 0 failed$" "$out"; then
		why="no line 'um_check $mode: N checks, 0 failed'"
	fi
	case $expect in
	offload) [ -z "$why" ] && [ "${offloaded:-0}" -eq 0 ] && why="nothing was offloaded" ;;
	none) [ -z "$why" ] && [ "${offloaded:-x}" != 0 ] && why="offloaded '${offloaded}', expected 0" ;;
	error)
		[ -z "$why" ] && [ "$(grep -c "mismatched allreduce: urom_mpi: offloaded allreduce failed: .*reason MISMATCH" "$out")" -ne "$np" ] &&
			why="not every rank reported the mismatch as the plugin's MISMATCH"
		;;
	off) [ -z "$why" ] && ! grep -q "^urom_mpi: off (" "$out" && why="no line 'urom_mpi: off (...)'" ;;
	kill)
		[ -z "$why" ] && [ "$(grep -c "after the kill: urom_mpi: offloaded allreduce failed: " "$out")" -ne "$np" ] &&
			why="not every rank's collective failed with the library's error"
		;;
	esac
	for pattern in "${EXPECT_LINES[@]}"; do
		[ -z "$why" ] && ! grep -q -- "$pattern" "$out" && why="no line matching '$pattern'"
	done
	if [ -z "$why" ] && [ -n "$EXPECT_WARNING" ]; then
		if [ "$(grep -c "^urom_mpi: rank" "$out")" -ne 1 ]; then
			why="not exactly one warning line (urom_mpi: rank ...)"
		elif ! grep -q -- "$EXPECT_WARNING" "$out"; then
			why="no warning matching '$EXPECT_WARNING'"
		fi
	fi
	if [ -z "$why" ] && [ "$expect" != off ]; then
		local left
		left=$(workers_left)
		[ -n "$left" ] && why="workers left running ${WORKERS_GONE_S} s after the job: $left"
	fi
	if [ -z "$why" ]; then
		passed=$((passed + 1))
		echo "ok     $name (np $np): $(grep "^um_check $mode: [0-9]* checks" "$out")${offloaded:+; offloaded $offloaded}"
	else
		failed=$((failed + 1))
		echo "FAILED $name (np $np): $why"
		echo "---- output ----"
		cat "$out"
		echo "---- end of output ----"
	fi
	EXPECT_LINES=()
	EXPECT_WARNING=
}
EXPECT_LINES=()
EXPECT_WARNING=

# The daemon's workers after a job, empty once there are none. A worker that was told to stop
# still flushes its endpoints to peers that are gone (up to 2 s in the coll plugin) before it
# exits, and the daemon lists it until then: the listing is polled for up to WORKERS_GONE_S.
WORKERS_GONE_S=30
workers_left() {
	local left deadline=$((SECONDS + WORKERS_GONE_S))
	while :; do
		left=$("$UROM_BIN" workers --service "unix:$sock" 2>&1)
		[ "$left" = "(no workers)" ] && return 0
		[ "$SECONDS" -ge "$deadline" ] && { echo "$left"; return 0; }
		sleep 0.2
	done
}

# launch_and_kill NP MPIRUN-ARGS...: runs "um_check kill" in the background, kills one worker (the
# first that `urom workers` lists) once the program says it is ready, and waits for the program.
launch_and_kill() {
	local np=$1 mp tp worker rc
	shift
	env "${env[@]}" setsid mpirun "${mpirun_args[@]}" -np "$np" "$@" "$UM_CHECK" kill >"$out" 2>&1 &
	mp=$!
	exec 4< <(exec timeout 120 tail -F -n +1 --pid="$mp" "$out" 2>/dev/null)
	tp=$!
	grep -q -m1 "^um_check kill: ready$" <&4
	kill "$tp" 2>/dev/null
	exec 4<&-
	worker=$("$UROM_BIN" workers --json --service "unix:$sock" | grep -o '"pid":[0-9]*' | head -1 | cut -d: -f2)
	if [ -n "$worker" ]; then
		echo "killing worker $worker" >>"$dir/kill.log"
		kill -KILL "$worker"
	fi
	if ! timeout "$RUN_TIMEOUT" tail --pid="$mp" -f /dev/null; then
		kill -KILL -- "-$mp" 2>/dev/null
		echo "um_check kill: ran past ${RUN_TIMEOUT} s after a worker was killed" >>"$out"
	fi
	wait "$mp"
	rc=$?
	[ -n "$worker" ] || { echo "no worker to kill" >>"$out"; return 1; }
	return $rc
}

for np in $NPS; do
	EXPECT_LINES=("^urom_mpi: offloading ")
	run "every collective offloaded, checked against MPI" "$np" all offload
done
run "connecting at MPI_Init" 3 all offload UROM_MPI_CONNECT=init
run "a split communicator first: MPI until all ranks connect" 4 subfirst offload
EXPECT_LINES=("to worker_coll_java workers")
run "Java workers (worker_coll_java)" 2 all offload UROM_MPI_PLUGIN=worker_coll_java
EXPECT_LINES=("to worker_coll_java workers")
run "rank 0 on a Java worker, the others on C workers" 3 all offload UM_CHECK_RANK0_ENV=UROM_MPI_PLUGIN=worker_coll_java
run "blocking forms offloaded with UROM_MPI_BLOCKING=1" 3 blocking offload UROM_MPI_BLOCKING=1
run "blocking forms go to MPI by default" 3 blocking none
run "a failed collective is MPI_ERR_OTHER naming the reason" 3 error error
run "a worker killed mid-collective: errors on every rank, no hang" 3 kill kill UROM_MPI_TIMEOUT_MS=5000
run "derived type, user op, inter-communicator fall back" 4 fallback none
# A barrier has no size: it is offloaded whenever UROM_MPI_COLLS names it.
run "below the threshold everything falls back" 3 basic none UROM_MPI_MIN_BYTES=1g \
	UROM_MPI_COLLS=allreduce,reduce,allgather,alltoall,bcast
run "collectives not in UROM_MPI_COLLS fall back" 2 basic offload UROM_MPI_COLLS=allreduce,barrier
EXPECT_WARNING="^urom_mpi: rank [0-9]*: connecting to the service: .*; every collective goes to MPI$"
run "no reachable daemon: one warning, then MPI" 3 basic none DOCA_UROM_SERVICE_FILE="$dir/services-down"
EXPECT_WARNING="^urom_mpi: rank [0-9]*: the service has no plugin named worker_nope (UROM_MPI_PLUGIN); every collective goes to MPI$"
run "a missing plugin: one warning, then MPI" 2 basic none UROM_MPI_PLUGIN=worker_nope
EXPECT_LINES=("^urom_mpi: off (UROM_MPI_MIN_BYTES=lots: not a byte count")
run "a bad setting: one line, then the library stays off" 2 basic off UROM_MPI_MIN_BYTES=lots
EXPECT_LINES=("^urom_mpi: off (MPI_THREAD_MULTIPLE is not supported)")
run "MPI_THREAD_MULTIPLE: the library stays off" 2 basic off UM_CHECK_THREAD=multiple
EXPECT_LINES=("^urom_mpi: off (the ranks' UROM_MPI_\\* settings differ")
run "ranks with different settings: the library stays off" 2 basic off UM_CHECK_RANK0_ENV=UROM_MPI_MIN_BYTES=64
EXPECT_LINES=("^urom_mpi: off (UROM_MPI=0)")
run "UROM_MPI=0" 2 basic off UROM_MPI=0
# run_fft2d NP ARGS...: the distribution's 2-D FFT, its transposes offloaded, checked against a
# DFT of the whole grid (--check).
run_fft2d() {
	local np=$1 why= offloaded
	shift
	env DOCA_UROM_SERVICE_FILE="$dir/main/services" UROM_MPI_STATS=1 UROM_MPI_MIN_BYTES=0 timeout -k 10 "$RUN_TIMEOUT" \
		mpirun "${mpirun_args[@]}" -np "$np" -x LD_PRELOAD="$UROM_MPI_LIB" -x DOCA_UROM_SERVICE_FILE -x UROM_MPI_STATS \
		-x UROM_MPI_MIN_BYTES "$FFT2D" "$@" --check >"$out" 2>&1 || why="exit status $?"
	offloaded=$(sed -n 's/^urom_mpi: stats: offloaded \([0-9]*\),.*/\1/p' "$out")
	[ -z "$why" ] && ! grep -q "^fft2d: check passed$" "$out" && why="no line 'fft2d: check passed'"
	[ -z "$why" ] && [ "${offloaded:-0}" -eq 0 ] && why="nothing was offloaded"
	if [ -z "$why" ]; then
		passed=$((passed + 1))
		echo "ok     fft2d $* (np $np): check passed; offloaded $offloaded"
	else
		failed=$((failed + 1))
		echo "FAILED fft2d $* (np $np): $why"
		cat "$out"
	fi
}
run_fft2d 2 -n 32 -b 4 -i 2 -w 1
run_fft2d 4 -n 16 -b 2 -i 2 -w 1

if [ "$(id -u)" = 0 ]; then
	# Root's jobs on a daemon whose workers run as another user: no team can be made.
	start_daemon other-user
	EXPECT_WARNING="^urom_mpi: rank 0: a communicator of 3 ranks falls back to MPI: .*HOST_UNREACHABLE.*; the worker cannot read"
	run "workers that cannot reach the ranks: one warning, then MPI" 3 basic none \
		DOCA_UROM_SERVICE_FILE="$dir/other-user/services"
fi

echo "mpi integration tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
