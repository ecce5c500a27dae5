#!/bin/sh
# The harness's flow-completion mode over 127.0.0.1: a paced, stamped sender and a receiver that
# writes flows.csv in the simulator's columns. Passes when every message arrives intact, flows.csv
# has the columns and one row per message with a plausible FCT and ideal FCT, and the due times
# are the interval apart; and when --stamp without room for the stamp is refused.
set -u
harness=$1
dir=$2
rm -rf "$dir" && mkdir -p "$dir" || exit 1
n=24
"$harness" recv --handle-file="$dir/handle" --messages=$n --bytes=20000 --seed=4 --timeout=60 \
    --flows="$dir/flows.csv" --scheme=loop --ideal-mbps=1000 --base-rtt-us=50 \
    --idle-sleep-us=100 >"$dir/recv.out" 2>&1 &
recv_pid=$!
"$harness" send --handle-file="$dir/handle" --messages=$n --bytes=20000 --seed=4 --timeout=60 \
    --interval-us=5000 --stamp --idle-sleep-us=100 >"$dir/send.out" 2>&1
send_rc=$?
wait $recv_pid
recv_rc=$?
cat "$dir/send.out" "$dir/recv.out"
[ $send_rc -eq 0 ] && [ $recv_rc -eq 0 ] || { echo "FAIL: send $send_rc recv $recv_rc"; exit 1; }
grep -q "^received $n messages, $((n * 20000)) bytes, 0 corrupt$" "$dir/recv.out" || { echo "FAIL: summary"; exit 1; }
header="src_ip,dst_ip,src_port,dst_port,size_bytes,start_ns,fct_ns,ideal_fct_ns,slowdown,job,iteration,tensor,priority,kind,scheme,seed"
[ "$(head -n 1 "$dir/flows.csv")" = "$header" ] || { echo "FAIL: flows.csv header"; exit 1; }
# ideal = 50 us + (16 + 20000 + 15 x 74) bytes at 1 Gb/s = 50000 + 169008 ns
awk -F, -v n=$n 'NR > 1 {
    rows++
    if ($1 != "127.0.0.1" || $5 != 20000 || $7 <= 0 || $7 > 5e9 || $8 != 219008 || $13 != ($12 % 8) ||
        $11 != int($12 / 8) || $14 != "tensor" || $15 != "loop" || $16 != 4) { print "FAIL: row " NR ": " $0; bad = 1 }
    if (rows > 1 && $6 - prev != 5000000) { print "FAIL: due times not 5 ms apart at row " NR; bad = 1 }
    prev = $6
} END { if (rows != n) { print "FAIL: " rows " rows"; bad = 1 } exit bad }' "$dir/flows.csv" || exit 1
"$harness" send --handle-file="$dir/handle" --bytes=8 --stamp >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: --stamp with 8-byte messages was accepted"; exit 1; }
echo PASS
