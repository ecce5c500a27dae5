#!/bin/sh
# Two harness processes over 127.0.0.1: recv publishes its handle file, send connects to it and
# logs its labels. Passes when both exit 0, recv reports no corruption and the log has a row per
# message with the documented labels.
set -u
harness=$1
dir=$2
rm -rf "$dir" && mkdir -p "$dir" || exit 1
n=50
"$harness" recv --handle-file="$dir/handle" --messages=$n --bytes=100000 --seed=3 --timeout=60 \
    >"$dir/recv.out" 2>&1 &
recv_pid=$!
"$harness" send --handle-file="$dir/handle" --messages=$n --bytes=100000 --seed=3 --timeout=60 \
    --log="$dir/send.csv" >"$dir/send.out" 2>&1
send_rc=$?
wait $recv_pid
recv_rc=$?
cat "$dir/send.out" "$dir/recv.out"
[ $send_rc -eq 0 ] && [ $recv_rc -eq 0 ] || { echo "FAIL: send $send_rc recv $recv_rc"; exit 1; }
grep -q "^received $n messages, $((n * 100000)) bytes, 0 corrupt$" "$dir/recv.out" || { echo "FAIL: summary"; exit 1; }
[ "$(head -n 1 "$dir/send.csv")" = "message,tensor_id,priority,bytes" ] || { echo "FAIL: log header"; exit 1; }
[ "$(wc -l <"$dir/send.csv")" -eq $((n + 1)) ] || { echo "FAIL: log rows"; exit 1; }
# Message 9: tensor id (1 << 24) | 9, priority 9 % 8.
grep -q "^9,$(((1 << 24) | 9)),1,100000$" "$dir/send.csv" || { echo "FAIL: log row 9"; exit 1; }
echo PASS
