#!/usr/bin/env bash
# make stress: `make test` RUNS times in a row (default 10) while BUSY busy
# loops (default 2) keep the machine's cores loaded, as issue 19 asks; each
# run starts from a clean test cache. One line per run goes to stdout and
# to stress.log; a failing run's output is kept in stress-N.log.
set -u
runs=${RUNS:-10}
busy=${BUSY:-2}
pids=()
for _ in $(seq 1 "$busy"); do
	( while :; do :; done ) &
	pids+=($!)
done
trap 'kill "${pids[@]}" 2>/dev/null' EXIT
echo "commit $(git rev-parse --short HEAD), $busy busy loops, $runs runs, start $(date -u +%H:%M:%S)" | tee stress.log
failed=0
for i in $(seq 1 "$runs"); do
	go clean -testcache
	start=$(date +%s)
	if make test > "stress-$i.log" 2>&1; then
		result=PASS
		rm -f "stress-$i.log"
	else
		result=FAIL
		failed=$((failed + 1))
	fi
	echo "run $i: $result $(($(date +%s) - start)) s, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a stress.log
done
echo "$failed of $runs failed" | tee -a stress.log
[ "$failed" -eq 0 ]
